// Can a frame in the page cache reach the GPU without the host copying it? A stream's reader
// preads each frame into page-locked memory (the kernel's copy, _copy_to_iter, was 9% of the
// stream's host CPU in stop 48's profile) and the upload follows. The alternative: the file mapped
// (mmap), the mapping page-locked for the device (cudaHostRegister, read-only), the upload made
// straight from the page cache's pages, then unregistered and unmapped. Timed per frame, wall
// and CPU (the process's user + system time), with T threads side by side (each its own file and
// stream), for:
//   pread+upload     : pread in 1 MB slices into a page-locked buffer, then cudaMemcpyAsync
//   map+register     : mmap(MAP_POPULATE) + cudaHostRegister(ReadOnly) + cudaMemcpyAsync +
//                      cudaHostUnregister + munmap
//   map+register-nopopulate : the same without MAP_POPULATE (the registration faults them in)
//   map-private-rw+register : a private writable mapping (a write would copy the page)
// Usage: bench_register_read DIR [MB] [THREADS,...] [REPEAT]. No celeris code.
// Stop 49 (H200): alone, map+register took 3-4 ms of CPU a 64 MB frame against 12-15 for pread,
// and the upload from the page cache's pages ran at the pinned buffer's speed (1.24 ms). In the
// stream it lost (branch wip/mapped-reads: 78-79 -> 57-60 frames/s, 7.7 of 16 cores busy):
// registering and unregistering hold the driver while the other threads wait to launch.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kSlice = 1 << 20;

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "bench_register_read: %s\n", why.c_str());
  std::exit(1);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(e));
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Worker {
  void* pinned = nullptr;
  void* device = nullptr;
  cudaStream_t stream{};
  size_t bytes = 0;
  bool log = false;  // print each step's time (one thread's first frame of a round)
  explicit Worker(size_t b) : bytes(b) {
    check(cudaHostAlloc(&pinned, b, cudaHostAllocDefault), "cudaHostAlloc");
    check(cudaMalloc(&device, b), "cudaMalloc");
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~Worker() {
    cudaStreamDestroy(stream);
    cudaFree(device);
    cudaFreeHost(pinned);
  }
};

// The FITS data start 2880 bytes into the file (one header block): not page-aligned, as in a
// real frame; the mapping starts at the page before.
constexpr size_t kHeader = 2880;

void run_mode(const std::string& mode, const std::string& path, Worker& w) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) fail("cannot open " + path);
  if (mode == "pread+upload") {
    auto* to = static_cast<unsigned char*>(w.pinned);
    for (size_t at = 0; at < w.bytes; at += kSlice) {
      const size_t n = std::min(kSlice, w.bytes - at);
      if (pread(fd, to + at, n, static_cast<off_t>(kHeader + at)) != static_cast<ssize_t>(n))
        fail("short read of " + path);
    }
    check(cudaMemcpyAsync(w.device, w.pinned, w.bytes, cudaMemcpyHostToDevice, w.stream), "copy");
    check(cudaStreamSynchronize(w.stream), "sync");
  } else {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t start = kHeader / page * page, skip = kHeader - start;
    const size_t len = (skip + w.bytes + page - 1) / page * page;
    const bool priv = mode == "map-private-rw+register";
    const int flags =
        (priv ? MAP_PRIVATE : MAP_SHARED) | (mode == "map+register-nopopulate" ? 0 : MAP_POPULATE);
    const auto t0 = Clock::now();
    void* m = mmap(nullptr, len, priv ? PROT_READ | PROT_WRITE : PROT_READ, flags, fd,
                   static_cast<off_t>(start));
    if (m == MAP_FAILED) fail("cannot map " + path);
    const auto t1 = Clock::now();
    check(cudaHostRegister(m, len, cudaHostRegisterReadOnly), "cudaHostRegister");
    const auto t2 = Clock::now();
    check(cudaMemcpyAsync(w.device, static_cast<unsigned char*>(m) + skip, w.bytes,
                          cudaMemcpyHostToDevice, w.stream),
          "copy");
    check(cudaStreamSynchronize(w.stream), "sync");
    const auto t3 = Clock::now();
    check(cudaHostUnregister(m), "cudaHostUnregister");
    munmap(m, len);
    const auto t4 = Clock::now();
    auto ms = [](Clock::time_point a, Clock::time_point b) {
      return 1e3 * std::chrono::duration<double>(b - a).count();
    };
    if (w.log)
      std::printf("    %s: map %.2f, register %.2f, copy %.2f, unregister+unmap %.2f ms\n",
                  mode.c_str(), ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t3, t4));
  }
  close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [MB] [THREADS,...] [REPEAT]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const size_t bytes = (argc > 2 ? std::stoul(argv[2]) : 64) << 20;
  const std::string tlist = argc > 3 ? argv[3] : "1,4";
  const int repeat = argc > 4 ? std::stoi(argv[4]) : 5;
  std::vector<int> tcounts;
  std::stringstream ss(tlist);
  for (std::string t; std::getline(ss, t, ',');) tcounts.push_back(std::stoi(t));
  const int tmax = *std::max_element(tcounts.begin(), tcounts.end());
  std::vector<std::string> paths;
  {
    std::vector<unsigned char> data(kHeader + bytes);
    for (size_t i = 0; i < data.size(); ++i)
      data[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
    for (int t = 0; t < tmax; ++t) {
      paths.push_back(dir + "/frame" + std::to_string(t) + ".fits");
      FILE* f = std::fopen(paths.back().c_str(), "wb");
      if (!f || std::fwrite(data.data(), 1, data.size(), f) != data.size() || std::fclose(f) != 0)
        fail("cannot write " + paths.back());
    }
  }
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < tmax; ++t) workers.push_back(std::make_unique<Worker>(bytes));
  for (int round = 0; round < 2; ++round)
    for (const char* mode :
         {"pread+upload", "map+register", "map+register-nopopulate", "map-private-rw+register"}) {
      for (int T : tcounts) {
        double wall_best = 1e30, cpu_best = 1e30;
        for (int r = 0; r < repeat; ++r) {
          std::vector<std::thread> th;
          const double c0 = cpu_seconds();
          const auto t0 = Clock::now();
          workers[0]->log = r == 0;
          for (int t = 0; t < T; ++t)
            th.emplace_back([&, t] {
              for (int k = 0; k < 4; ++k) {
                run_mode(mode, paths[t], *workers[t]);
                workers[t]->log = false;
              }
            });
          for (auto& x : th) x.join();
          wall_best = std::min(wall_best, std::chrono::duration<double>(Clock::now() - t0).count());
          cpu_best = std::min(cpu_best, cpu_seconds() - c0);
        }
        const double frames = 4.0 * T;
        std::printf("round %d %-24s %2d threads: %6.2f ms wall a frame, %6.2f ms CPU a frame\n",
                    round, mode, T, 1e3 * wall_best / frames, 1e3 * cpu_best / frames);
      }
    }
  return 0;
}
