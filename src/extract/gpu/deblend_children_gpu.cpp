#include "extract/gpu/deblend_children_gpu.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>

#include "celeris/device.hpp"
#include "core/cuda/context_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/device_exception_lists.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/scratch_pool.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/deblend_children_kernels.hpp"
#include "extract/sextractor/glibc_rand.hpp"

namespace celeris::extract::gpu {

namespace {

// A stream and its buffers (grown with the frames, never shrunk), one per call at a time from a
// pool (core/cuda/context_pool.hpp), so that a stream's back workers do not wait for each
// other's calls (a single context behind a mutex until stop 49).
struct Context {
  cuda::Stream stream;
  cuda::DeviceBuffer<unsigned char> in, out;
  cuda::PinnedBuffer<unsigned char> staged_in, staged_out;
};

cuda::ContextPool<Context>& contexts() {
  static auto* pool = new cuda::ContextPool<Context>;
  return *pool;
}

}  // namespace

void choose_deblend_children(const DeblendChildrenJob& job, std::vector<int32_t>& chosen,
                             std::vector<uint8_t>& done,
                             std::vector<std::pair<std::string, double>>* seconds) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto since = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  const size_t m = job.plans.size();
  done.assign(m, 0);
  if (m == 0 || cuda_device_count() == 0) return;
  // glibc's expf reproduced from its exception lists, where they describe this process's glibc
  // (else every choice on the host).
  const cuda::DeviceExceptionLists& exceptions = cuda::device_exception_lists();
  if (!exceptions.expf) return;
  const auto t_lock = Clock::now();
  const std::shared_ptr<Context> held = contexts().take();
  Context& c = *held;
  const double lock_wait = since(t_lock, Clock::now());
  const cudaStream_t s = c.stream.get();
  const size_t npix = job.chosen_begin.back();
  // The kernel counts a detection's pixels in 32 bits: a larger one (and the job) stays on the
  // host.
  for (const ObjectView& p : job.parents)
    if (p.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) return;
  std::vector<int32_t> child_begin(m + 1, 0);
  for (size_t j = 0; j < m; ++j)
    child_begin[j + 1] = child_begin[j] + static_cast<int32_t>(job.plans[j]->children.size());
  const size_t nchild = static_cast<size_t>(child_begin[m]);

  // Everything up in one buffer, everything down in another (cuda::Carve's layout).
  cuda::Carve in, out;
  in.add<ChildrenDetection>(m), in.add<DeblendChild>(nchild), in.add<int32_t>(npix);
  in.add<int32_t>(npix), in.add<uint8_t>(npix), in.add<int32_t>(job.draws);
  out.add<int32_t>(npix), out.add<int64_t>(m), out.add<uint8_t>(m);
  unsigned char* hin = c.staged_in.grow(in.bytes());
  unsigned char* din = c.in.grow(in.bytes());
  unsigned char* hout = c.staged_out.grow(out.bytes());
  unsigned char* dout = c.out.grow(out.bytes());
  cuda::Carve hcut(hin), dcut(din), hres(hout), dres(dout);
  ChildrenDetection* hdet = hcut.take<ChildrenDetection>(m);
  DeblendChild* hchild = hcut.take<DeblendChild>(nchild);
  int32_t* hx = hcut.take<int32_t>(npix);
  int32_t* hy = hcut.take<int32_t>(npix);
  uint8_t* hcore = hcut.take<uint8_t>(npix);
  int32_t* hrandom = hcut.take<int32_t>(job.draws);
  ChildrenArgs a;
  a.detections = dcut.take<ChildrenDetection>(m);
  a.children = dcut.take<DeblendChild>(nchild);
  a.x = dcut.take<int32_t>(npix);
  a.y = dcut.take<int32_t>(npix);
  a.in_core = dcut.take<uint8_t>(npix);
  a.random = dcut.take<int32_t>(job.draws);
  a.chosen = dres.take<int32_t>(npix);
  a.draws = dres.take<int64_t>(m);
  a.unsure = dres.take<uint8_t>(m);
  const int32_t* got = hres.take<int32_t>(npix);
  const int64_t* draws = hres.take<int64_t>(m);
  const uint8_t* unsure = hres.take<uint8_t>(m);
  a.count = static_cast<int64_t>(m);
  a.rand_max = GlibcRand::kRandMax;
  a.lists = exceptions.lists;

  const int threads = std::max(1, job.threads);
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
  for (size_t j = 0; j < m; ++j) {
    const DeblendPlan& plan = *job.plans[j];
    const ObjectView& parent = job.parents[j];
    const size_t b = job.chosen_begin[j];
    ChildrenDetection& d = hdet[j];
    d.pixel_begin = static_cast<int64_t>(b);
    d.first_draw = static_cast<int64_t>(job.first_draw[j]);
    d.draws = static_cast<int64_t>(plan.draws);
    d.pixels = static_cast<int32_t>(parent.size());
    d.child_begin = child_begin[j];
    d.children = static_cast<int32_t>(plan.children.size());
    std::copy(plan.children.begin(), plan.children.end(), hchild + child_begin[j]);
    std::memcpy(hx + b, parent.x, parent.size() * sizeof(int32_t));
    std::memcpy(hy + b, parent.y, parent.size() * sizeof(int32_t));
    std::memcpy(hcore + b, plan.in_core.data(), parent.size());
  }
  if (job.draws) std::memcpy(hrandom, job.random, job.draws * sizeof(int32_t));
  const auto t_packed = Clock::now();
  CELERIS_CUDA_CHECK(cudaMemcpyAsync(din, hin, in.bytes(), cudaMemcpyHostToDevice, s));
  CELERIS_CUDA_CHECK(cudaMemsetAsync(a.unsure, 0, m, s));
  choose_children(a, s);
  CELERIS_CUDA_CHECK(cudaMemcpyAsync(hout, dout, out.bytes(), cudaMemcpyDeviceToHost, s));
  c.stream.synchronize();
  const auto t_device = Clock::now();
  chosen.resize(npix);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t j = 0; j < m; ++j) {
    const size_t b = job.chosen_begin[j];
    std::memcpy(chosen.data() + b, got + b, job.parents[j].size() * sizeof(int32_t));
    done[j] = !unsure[j] && draws[j] == static_cast<int64_t>(job.plans[j]->draws);
  }
  if (seconds) {
    seconds->emplace_back("deblend children on the GPU: wait for the context", lock_wait);
    seconds->emplace_back("deblend children on the GPU: pack", since(t0, t_packed) - lock_wait);
    seconds->emplace_back("deblend children on the GPU: upload, kernel, download",
                          since(t_packed, t_device));
    seconds->emplace_back("deblend children on the GPU: copy out", since(t_device, Clock::now()));
  }
}

}  // namespace celeris::extract::gpu
