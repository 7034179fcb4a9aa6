// How fast can one host thread turn a big-endian float frame in the page cache into native floats
// in page-locked memory? Compares, per thread and with T threads side by side (each its own file):
//   pread        : the kernel's copy alone (what a byte swap on the GPU would leave the reader)
//   pread+swap   : pread in 1 MB slices, each swapped in place while in cache (celeris's reader)
//   mmap+swap    : the file mapped, swapped while copied out (one pass, no kernel copy)
//   memcpy       : a plain copy between two buffers of the same size (the memory's own speed)
// Usage: bench_read_modes DIR [MB] [THREADS,...] [REPEAT]. Writes T files of MB megabytes into
// DIR (plain files of bytes: the FITS header is not what is timed). No celeris code: it can be
// built alone with g++ -O3 -pthread on a machine without the build.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kSlice = 1 << 20;

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "bench_read_modes: %s\n", why.c_str());
  std::exit(1);
}

void swap_copy(const uint32_t* from, uint32_t* to, size_t n) {
  for (size_t i = 0; i < n; ++i) to[i] = __builtin_bswap32(from[i]);
}

struct Buffer {
  uint32_t* p = nullptr;
  size_t bytes = 0;
  explicit Buffer(size_t b) : bytes(b) {
    p = static_cast<uint32_t*>(std::aligned_alloc(4096, b));
    if (!p) fail("out of memory");
    std::memset(p, 0, b);
    if (mlock(p, b) != 0) std::fprintf(stderr, "(mlock failed: buffers are pageable)\n");
  }
  ~Buffer() {
    munlock(p, bytes);
    std::free(p);
  }
};

double run_mode(const std::string& mode, const std::string& path, Buffer& out, Buffer& scratch) {
  const size_t bytes = out.bytes;
  const auto t0 = Clock::now();
  if (mode == "memcpy") {
    std::memcpy(out.p, scratch.p, bytes);
  } else if (mode == "mmap+swap") {
    const int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) fail("cannot open " + path);
    void* m = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) fail("cannot map " + path);
    swap_copy(static_cast<const uint32_t*>(m), out.p, bytes / 4);
    munmap(m, bytes);
    close(fd);
  } else {
    const int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) fail("cannot open " + path);
    auto* to = reinterpret_cast<unsigned char*>(out.p);
    for (size_t at = 0; at < bytes; at += kSlice) {
      const size_t n = std::min(kSlice, bytes - at);
      if (pread(fd, to + at, n, static_cast<off_t>(at)) != static_cast<ssize_t>(n))
        fail("short read of " + path);
      if (mode == "pread+swap") {
        auto* w = reinterpret_cast<uint32_t*>(to + at);
        for (size_t i = 0; i < n / 4; ++i) w[i] = __builtin_bswap32(w[i]);
      }
    }
    close(fd);
  }
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [MB] [THREADS,...] [REPEAT]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const size_t bytes = (argc > 2 ? std::stoul(argv[2]) : 64) << 20;
  const std::string tlist = argc > 3 ? argv[3] : "1,8";
  const int repeat = argc > 4 ? std::stoi(argv[4]) : 5;
  std::vector<int> tcounts;
  std::stringstream ss(tlist);
  for (std::string t; std::getline(ss, t, ',');) tcounts.push_back(std::stoi(t));
  const int tmax = *std::max_element(tcounts.begin(), tcounts.end());
  std::vector<std::string> paths;
  {
    std::vector<unsigned char> data(bytes);
    for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
    for (int t = 0; t < tmax; ++t) {
      paths.push_back(dir + "/frame" + std::to_string(t) + ".raw");
      FILE* f = std::fopen(paths.back().c_str(), "wb");
      if (!f || std::fwrite(data.data(), 1, bytes, f) != bytes || std::fclose(f) != 0)
        fail("cannot write " + paths.back());
    }
  }
  std::vector<std::unique_ptr<Buffer>> out, scratch;
  for (int t = 0; t < tmax; ++t)
    out.push_back(std::make_unique<Buffer>(bytes)),
        scratch.push_back(std::make_unique<Buffer>(bytes));
  for (const char* mode : {"memcpy", "pread", "pread+swap", "mmap+swap"}) {
    for (int T : tcounts) {
      std::vector<double> best(T, 1e30);
      double wall_best = 1e30;
      for (int r = 0; r < repeat; ++r) {
        std::vector<std::thread> th;
        std::vector<double> took(T);
        const auto t0 = Clock::now();
        for (int t = 0; t < T; ++t)
          th.emplace_back([&, t] { took[t] = run_mode(mode, paths[t], *out[t], *scratch[t]); });
        for (auto& x : th) x.join();
        wall_best = std::min(wall_best, std::chrono::duration<double>(Clock::now() - t0).count());
        for (int t = 0; t < T; ++t) best[t] = std::min(best[t], took[t]);
      }
      double mean = 0;
      for (double b : best) mean += b / T;
      std::printf(
          "%-11s %2d threads: %6.1f ms a frame per thread (%.2f GB/s each), %.2f GB/s in all\n",
          mode, T, 1e3 * mean, bytes / mean / 1e9, T * bytes / wall_best / 1e9);
    }
  }
  return 0;
}
