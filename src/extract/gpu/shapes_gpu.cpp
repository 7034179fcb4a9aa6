// Stage 5a on the GPU (shapes_gpu.hpp): the pixel indexes packed by the host threads into
// page-locked memory, one upload of them and the per-object inputs, one kernel, one download of
// the sums, and the finish on the host threads.
#include "extract/gpu/shapes_gpu.hpp"

#include <chrono>
#include <cstring>
#include <mutex>

#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/shape_kernels.hpp"

namespace celeris::extract::gpu {

namespace {

// Process-wide, never destroyed (its CUDA resources would outlive the runtime's teardown at
// exit); shapes_and_isophotal() holds `busy`. Buffers grow with the frames, never shrink.
struct Context {
  std::mutex busy;
  cuda::Stream stream;
  cuda::DeviceBuffer<int32_t> index;
  cuda::PinnedBuffer<int32_t> staged_index;
  // The per-object inputs and all outputs, each packed in one buffer (one copy each way).
  cuda::DeviceBuffer<unsigned char> in, out;
  cuda::PinnedBuffer<unsigned char> staged_in, staged_out;
};

Context& context() {
  static Context* c = new Context;
  return *c;
}

// Byte offsets of consecutive arrays in one buffer, each 16-byte aligned.
struct Layout {
  size_t bytes = 0;
  template <class T>
  size_t add(size_t count) {
    const size_t at = bytes;
    bytes += (count * sizeof(T) + 15) / 16 * 16;
    return at;
  }
};

template <class T>
T* at(unsigned char* base, size_t offset) {
  return reinterpret_cast<T*>(base + offset);
}

}  // namespace

bool shapes_supported(const IsoParams& p) {
  return !p.weighted && !p.pixel_thresholds && !p.measure.data && p.ngamma == 0.0 && !p.dgeo &&
         (!p.clean || p.minarea <= kMaxMinarea);
}

void shapes_and_isophotal(const ObjectList& objects, const float* value, const float* cvalue,
                          int64_t width, const IsoParams& params, int threads,
                          std::vector<Shape>& shapes, std::vector<Iso>& isos,
                          std::vector<std::pair<std::string, double>>* seconds) {
  cuda::cuda_require_device("--device cuda");
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const size_t n = objects.size(), m = objects.pixel_count();
  if (n == 0) {
    shapes.clear();
    isos.clear();
    return;
  }
  Context& c = context();
  std::lock_guard<std::mutex> lock(c.busy);
  const cudaStream_t s = c.stream.get();

  Layout in;
  const size_t at_offset = in.add<int64_t>(n + 1), at_fixed = in.add<uint8_t>(n),
               at_cx = in.add<double>(n), at_cy = in.add<double>(n);
  Layout out;
  const size_t at_shape = out.add<ShapeSums>(n), at_sums = out.add<IsoSums>(n),
               at_mthresh = out.add<float>(n);
  unsigned char* hin = c.staged_in.grow(in.bytes);
  std::memcpy(at<int64_t>(hin, at_offset), objects.offset.data(), (n + 1) * sizeof(int64_t));
  std::memcpy(at<uint8_t>(hin, at_fixed), objects.fixed_centre.data(), n);
  std::memcpy(at<double>(hin, at_cx), objects.cx.data(), n * sizeof(double));
  std::memcpy(at<double>(hin, at_cy), objects.cy.data(), n * sizeof(double));
  unsigned char* din = c.in.grow(in.bytes);
  CELERIS_CUDA_CHECK(cudaMemcpyAsync(din, hin, in.bytes, cudaMemcpyHostToDevice, s));
  // The pixels' indexes, in slices: each slice crosses the bus while the next is packed.
  int32_t* hindex = c.staged_index.grow(m);
  int32_t* dindex = c.index.grow(m);
  const int32_t w32 = static_cast<int32_t>(width);  // a frame has fewer than 2^31 pixels
  constexpr size_t kSlice = size_t(1) << 20;
  for (size_t b = 0; b < m; b += kSlice) {
    const size_t e = std::min(m, b + kSlice);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = b; i < e; ++i) hindex[i] = objects.y[i] * w32 + objects.x[i];
    CELERIS_CUDA_CHECK(cudaMemcpyAsync(dindex + b, hindex + b, (e - b) * sizeof(int32_t),
                                       cudaMemcpyHostToDevice, s));
  }
  const auto t_packed = Clock::now();

  ShapeArgs a;
  a.objects = static_cast<int64_t>(n);
  a.offset = at<int64_t>(din, at_offset);
  a.index = dindex;
  a.fixed_centre = at<uint8_t>(din, at_fixed);
  a.cx = at<double>(din, at_cx);
  a.max_pixels = kHostObjectPixels;
  a.cy = at<double>(din, at_cy);
  a.value = value;
  a.cvalue = cvalue;
  a.width = w32;
  a.detect_thresh = params.detect_thresh;
  a.iso = iso_sum_params(params);
  a.clean = params.clean;
  a.minarea = params.minarea;
  unsigned char* dout = c.out.grow(out.bytes);
  a.shape = at<ShapeSums>(dout, at_shape);
  a.sums = at<IsoSums>(dout, at_sums);
  a.mthresh = at<float>(dout, at_mthresh);
  shape_sums(a, s);
  unsigned char* hout = c.staged_out.grow(out.bytes);
  CELERIS_CUDA_CHECK(cudaMemcpyAsync(hout, dout, out.bytes, cudaMemcpyDeviceToHost, s));
  // While the kernel runs: the two columns, made side by side (filling them takes about a
  // millisecond on a crowded frame, 9 MB, on one thread), and the largest objects on the host,
  // as compute_shape and isophotal.
#pragma omp parallel sections num_threads(2)
  {
#pragma omp section
    shapes.resize(n);
#pragma omp section
    isos.resize(n);
  }
  std::vector<size_t> large;
  for (size_t i = 0; i < n; ++i)
    if (objects.count(i) > static_cast<size_t>(kHostObjectPixels)) large.push_back(i);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (size_t j = 0; j < large.size(); ++j) {
    const size_t i = large[j];
    shapes[i] = compute_shape(objects[i], params.detect_thresh);
    isos[i] = isophotal(objects[i], shapes[i], params);
  }
  const auto t_host = Clock::now();
  c.stream.synchronize();
  const auto t_device = Clock::now();

  const ShapeSums* shape = at<ShapeSums>(hout, at_shape);
  const IsoSums* sums = at<IsoSums>(hout, at_sums);
  const float* mthresh = at<float>(hout, at_mthresh);
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
  for (size_t i = 0; i < n; ++i) {
    const ObjectView o = objects[i];
    if (o.size() > static_cast<size_t>(kHostObjectPixels)) continue;
    shapes[i] = finish_shape(shape[i], static_cast<int64_t>(o.size()), o.fixed_centre, o.cx, o.cy,
                             params.detect_thresh, false);
    isos[i] = finish_iso(o, shapes[i], params, sums[i], mthresh[i],
                         iso_background(shapes[i], params, 0.0f), 0.0f);
  }
  if (seconds) {
    auto since = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double>(b - a).count();
    };
    seconds->emplace_back("gpu shapes: pack and upload", since(t0, t_packed));
    seconds->emplace_back("gpu shapes: host columns and largest objects", since(t_packed, t_host));
    seconds->emplace_back("gpu shapes: wait for the kernel and download", since(t_host, t_device));
    seconds->emplace_back("gpu shapes: host finish", since(t_device, Clock::now()));
  }
}

}  // namespace celeris::extract::gpu
