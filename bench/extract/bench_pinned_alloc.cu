// How long does page-locked host memory for one frame take to get, and how fast do uploads from
// it run? Compares, for B bytes (default a 4096^2 float frame):
//   cudaHostAlloc                 : the driver's own allocation (PinnedBuffer's)
//   malloc+touch+register         : ordinary pages, faulted in by a memset, then cudaHostRegister
//   hugepages+touch+register      : 2 MB-aligned, madvise(MADV_HUGEPAGE) (transparent huge pages
//                                   where the kernel allows them), faulted in, registered
// each followed by its free, and the upload rate from each (cudaMemcpyAsync to the device).
// Usage: bench_pinned_alloc [MB] [REPEAT]
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench_pinned_alloc: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

struct Timed {
  double alloc = 1e30, free = 1e30, upload = 1e30;
};

}  // namespace

int main(int argc, char** argv) {
  const size_t bytes = (argc > 1 ? std::stoul(argv[1]) : 64) << 20;
  const int repeat = argc > 2 ? std::stoi(argv[2]) : 5;
  void* dev = nullptr;
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  cudaStream_t s;
  check(cudaStreamCreate(&s), "cudaStreamCreate");
  auto upload = [&](void* host) {
    const auto t = Clock::now();
    check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s), "upload");
    check(cudaStreamSynchronize(s), "sync");
    return since(t);
  };
  constexpr size_t kHuge = size_t(2) << 20;
  for (const char* mode : {"cudaHostAlloc", "malloc+touch+register", "hugepages+touch+register"}) {
    Timed best;
    const std::string m = mode;
    for (int r = 0; r < repeat; ++r) {
      void* p = nullptr;
      auto t = Clock::now();
      if (m == "cudaHostAlloc") {
        check(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "cudaHostAlloc");
      } else {
        const bool huge = m.rfind("huge", 0) == 0;
        p = std::aligned_alloc(huge ? kHuge : 4096, (bytes + kHuge - 1) / kHuge * kHuge);
        if (!p) return 1;
        if (huge) madvise(p, bytes, MADV_HUGEPAGE);
        std::memset(p, 0, bytes);
        check(cudaHostRegister(p, bytes, cudaHostRegisterDefault), "cudaHostRegister");
      }
      best.alloc = std::min(best.alloc, since(t));
      upload(p);
      best.upload = std::min(best.upload, upload(p));
      t = Clock::now();
      if (m == "cudaHostAlloc") {
        check(cudaFreeHost(p), "cudaFreeHost");
      } else {
        check(cudaHostUnregister(p), "cudaHostUnregister");
        std::free(p);
      }
      best.free = std::min(best.free, since(t));
    }
    std::printf("%-26s %zu MB: allocate %8.2f ms, free %6.2f ms, upload %.2f ms (%.1f GB/s)\n",
                mode, bytes >> 20, 1e3 * best.alloc, 1e3 * best.free, 1e3 * best.upload,
                bytes / best.upload / 1e9);
  }
  return 0;
}
