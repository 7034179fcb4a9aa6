// Stage 5a on the GPU (shapes_gpu.hpp): the pixel indexes packed by the host threads into
// page-locked memory, one upload of them and the per-object inputs, the sums' kernels and the
// isophotal finish's, one download of the finished shapes (but theta) and isophotal values, and
// theta on the host threads.
#include "extract/gpu/shapes_gpu.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

#include "celeris/error.hpp"
#include "core/cuda/context_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/device_exception_lists.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/scratch_pool.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/blanking_draft.hpp"
#include "extract/gpu/shape_kernels.hpp"
#include "extract/gpu/zones_after_shapes.hpp"
#include "extract/stages/shape_finish.hpp"
#include "extract/stages/weights.hpp"

namespace celeris::extract::gpu {

namespace {

// One per call at a time, from a process-wide pool (a stream's back workers each take their
// own). Buffers grow with the frames, never shrink.
struct Context {
  cuda::Stream stream;
  cuda::DeviceBuffer<int32_t> index;
  cuda::PinnedBuffer<int32_t> staged_index;
  // The per-object inputs and all outputs, each packed in one buffer (one copy each way).
  cuda::DeviceBuffer<unsigned char> in, out;
  cuda::PinnedBuffer<unsigned char> staged_in, staged_out;
  cuda::DeviceBuffer<FwhmInput> fwhm_in;  // the FWHM fit's inputs (finish_isos)
  cuda::DeviceBuffer<float> back;         // the background's mesh grid (the FWHM fit's BACKGROUND)
  cuda::OrderEvent down;                  // the shapes (or the sums) are back
  cuda::OrderEvent isos_made;             // the isophotal values are made (ZonesAfterShapes)
  cuda::OrderEvent isos_down;             // the isophotal values are back
  cuda::Stream warp_stream;               // the larger objects' sums (shape_sums), and their list
  cuda::DeviceBuffer<int32_t> large;
  cuda::DeviceBuffer<unsigned> large_count;
  cuda::OrderEvent inputs_up, warp_sums;
};

cuda::ContextPool<Context>& contexts() {
  static cuda::ContextPool<Context>* pool = new cuda::ContextPool<Context>;
  return *pool;
}

}  // namespace

// The finish runs on the GPU where glibc's log can be reproduced there: its exception lists
// describe this process's glibc (else the host's finish).
bool finish_on_gpu() {
  return cuda::device_exception_lists().log;
}

bool shapes_supported(const IsoParams& p, bool weights_on_device) {
  return ((!p.weighted && !p.pixel_thresholds) || weights_on_device) && !p.measure.data &&
         p.ngamma == 0.0 && !p.dgeo && (!p.clean || p.minarea <= kMaxMinarea);
}

void shapes_and_isophotal(const ObjectList& objects, const float* value, const float* cvalue,
                          int64_t width, const IsoParams& params, int threads,
                          std::vector<Shape>& shapes, std::vector<Iso>& isos,
                          std::vector<std::pair<std::string, double>>* seconds,
                          const DeviceWeights& weights) {
  shapes.resize(objects.size());
  isos.resize(objects.size());
  shapes_and_isophotal(objects, 0, objects.size(), value, cvalue, width, params, threads, shapes,
                       isos, seconds, nullptr, weights);
}

void shapes_and_isophotal(const ObjectList& objects, size_t first, size_t last, const float* value,
                          const float* cvalue, int64_t width, const IsoParams& params, int threads,
                          std::vector<Shape>& shapes, std::vector<Iso>& isos,
                          std::vector<std::pair<std::string, double>>* seconds,
                          BlankingDraft* draft, const DeviceWeights& weights,
                          ZonesAfterShapes* zones) {
  if ((params.weighted || params.pixel_thresholds) && !weights.var)
    throw Error("internal: shapes_and_isophotal given weights without their device images");
  cuda::cuda_require_device("--device cuda");
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto since = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  if (last <= first) return;
  // The range's objects and pixels: object first + i is the kernel's object i, its pixels'
  // indexes start at the range's first pixel.
  const size_t n = last - first;
  const int64_t base = objects.offset[first];
  const size_t m = static_cast<size_t>(objects.offset[last] - base);
  const auto t_lock = Clock::now();
  const std::shared_ptr<Context> held = contexts().take();
  Context& c = *held;
  const auto t_locked = Clock::now();
  const cudaStream_t s = c.stream.get();

  // Where glibc's log can be reproduced on the device (its exception lists describe this
  // process's glibc), the objects are finished there but for theta (the shapes' area
  // correction and the FWHM fit take a log), and their shapes and isophotal values come back;
  // else their sums come back for the host's finish (finish_shape, finish_iso).
  const cuda::DeviceExceptionLists& exceptions = cuda::device_exception_lists();
  const bool finish_on_device = exceptions.log;
  // The per-object inputs in one buffer and the outputs in another, laid out by cuda::Carve:
  // first what comes back, then (finished on the device) the sums, which stay there.
  cuda::Carve in, out;
  in.add<int64_t>(n + 1), in.add<uint8_t>(n), in.add<double>(n), in.add<double>(n);
  if (finish_on_device)
    out.add<Shape>(n), out.add<Iso>(n);
  else
    out.add<ShapeSums>(n), out.add<IsoSums>(n), out.add<float>(n);
  const size_t down_bytes = out.bytes();
  if (finish_on_device) out.add<IsoSums>(n), out.add<float>(n);
  unsigned char* hin = c.staged_in.grow(in.bytes());
  unsigned char* din = c.in.grow(in.bytes());
  cuda::Carve hcut(hin), dcut(din);
  ShapeArgs a;
  int64_t* hoffset = hcut.take<int64_t>(n + 1);
  for (size_t i = 0; i <= n; ++i) hoffset[i] = objects.offset[first + i] - base;
  a.offset = dcut.take<int64_t>(n + 1);
  std::memcpy(hcut.take<uint8_t>(n), objects.fixed_centre.data() + first, n);
  a.fixed_centre = dcut.take<uint8_t>(n);
  std::memcpy(hcut.take<double>(n), objects.cx.data() + first, n * sizeof(double));
  a.cx = dcut.take<double>(n);
  std::memcpy(hcut.take<double>(n), objects.cy.data() + first, n * sizeof(double));
  a.cy = dcut.take<double>(n);
  CELERIS_CUDA_CHECK(cudaMemcpyAsync(din, hin, in.bytes(), cudaMemcpyHostToDevice, s));
  // The pixels' indexes, in slices: each slice crosses the bus while the next is packed.
  int32_t* hindex = c.staged_index.grow(m);
  int32_t* dindex = c.index.grow(m);
  const int32_t w32 = static_cast<int32_t>(width);  // a frame has fewer than 2^31 pixels
  constexpr size_t kSlice = size_t(1) << 20;
  for (size_t b = 0; b < m; b += kSlice) {
    const size_t e = std::min(m, b + kSlice);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = b; i < e; ++i) hindex[i] = objects.y[base + i] * w32 + objects.x[base + i];
    CELERIS_CUDA_CHECK(cudaMemcpyAsync(dindex + b, hindex + b, (e - b) * sizeof(int32_t),
                                       cudaMemcpyHostToDevice, s));
  }

  a.objects = static_cast<int64_t>(n);
  a.index = dindex;
  a.max_pixels = kHostObjectPixels;
  a.large = c.large.grow(n);
  a.large_count = c.large_count.grow(1);
  a.value = value;
  a.cvalue = cvalue;
  a.width = w32;
  a.detect_thresh = params.detect_thresh;
  a.var = weights.var;
  a.thresh = weights.thresh;
  a.pixel_thresholds = params.pixel_thresholds;
  a.iso = iso_sum_params(params);
  a.clean = params.clean;
  a.minarea = params.minarea;
  unsigned char* dout = c.out.grow(out.bytes());
  unsigned char* hout = c.staged_out.grow(down_bytes);
  cuda::Carve dres(dout), hres(hout);
  // What the host reads: the finished shapes (but theta) and isophotal values, or the sums.
  const Shape* finished = nullptr;
  const Iso* finished_iso = nullptr;
  const ShapeSums* shape = nullptr;
  const IsoSums* sums = nullptr;
  const float* mthresh = nullptr;
  IsoFinishArgs f;
  if (finish_on_device) {
    a.finished = dres.take<Shape>(n);
    f.isos = dres.take<Iso>(n);
    a.sums = dres.take<IsoSums>(n);
    a.mthresh = dres.take<float>(n);
    finished = hres.take<Shape>(n);
    finished_iso = hres.take<Iso>(n);
    a.lists = exceptions.lists;
    a.log_cap = std::log(shape_finish::kRatioCap);  // the host's (finish_shape)
    // The FWHM fit's inputs made by the sums' kernel.
    const BackgroundMap& map = *params.background;
    c.back.grow(map.back.size());
    c.back.upload_async(map.back.data(), map.back.size(), s);
    a.fwhm_in = c.fwhm_in.grow(n);
    a.back = map.grid();
    a.back.back = c.back.data();
    a.satur_level = params.satur_level;
  } else {
    a.shape = dres.take<ShapeSums>(n);
    a.sums = dres.take<IsoSums>(n);
    a.mthresh = dres.take<float>(n);
    shape = hres.take<ShapeSums>(n);
    sums = hres.take<IsoSums>(n);
    mthresh = hres.take<float>(n);
  }
  // The larger objects' kernel on a stream of its own, beside the others' (shape_kernels.hpp).
  c.inputs_up.record(s);
  c.warp_stream.wait(c.inputs_up);
  shape_sums(a, s, c.warp_stream.get());
  c.warp_sums.record(c.warp_stream.get());
  c.stream.wait(c.warp_sums);
  // Finished on the device: the shapes come back first, and the host makes their theta while
  // the isophotal finish runs; then the isophotal values. Else the sums, all at once.
  const size_t first_down = finish_on_device ? n * sizeof(Shape) : down_bytes;
  CELERIS_CUDA_CHECK(cudaMemcpyAsync(hout, dout, first_down, cudaMemcpyDeviceToHost, s));
  c.down.record(s);
  if (finish_on_device) {
    f.objects = static_cast<int64_t>(n);
    f.offset = a.offset;
    f.index = dindex;
    f.value = value;
    f.width = w32;
    f.max_pixels = kHostObjectPixels;
    f.in = a.fwhm_in;
    f.lists = exceptions.lists;
    f.shapes = a.finished;
    f.sums = a.sums;
    f.mthresh = a.mthresh;
    f.finish = iso_finish_params(params);
    finish_isos(f, s);
    c.isos_made.record(s);
    CELERIS_CUDA_CHECK(cudaMemcpyAsync(const_cast<Iso*>(finished_iso), f.isos, n * sizeof(Iso),
                                       cudaMemcpyDeviceToHost, s));
    c.isos_down.record(s);
  }
  // The blanking codes' draft from the same pixel indexes, after this call's kernels on its
  // stream (the next call on this context's stream comes after it): it runs beside the host's
  // finish, the clean zones and the clean pass.
  if (draft) draft->add(s, dindex, a.offset, first, n);
  // An object's detection threshold: its pixels' smallest with pixel thresholds (weights).
  auto object_thresh = [&](const ObjectView& o) {
    return object_dthresh(o, params.detect_thresh, params.pixel_thresholds);
  };
  // While the kernels run: the largest objects on the host, as compute_shape and isophotal.
  const auto t_columns = Clock::now();
  std::vector<size_t> large;
  for (size_t i = first; i < last; ++i)
    if (objects.count(i) > static_cast<size_t>(kHostObjectPixels)) large.push_back(i);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (size_t j = 0; j < large.size(); ++j) {
    const size_t i = large[j];
    shapes[i] = compute_shape(objects[i], object_thresh(objects[i]), params.pixel_thresholds);
    isos[i] = isophotal(objects[i], shapes[i], params);
  }
  // The clean zones from the finished columns, on their own stream (beside the blanking draft).
  const bool zones_here = zones && finish_on_device && first == 0 && last == objects.size();
  if (zones_here) zones->count(c.isos_made.get(), a.finished, f.isos, n, large, shapes, isos);
  const auto t_host = Clock::now();
  c.down.synchronize();
  const auto t_device = Clock::now();
  auto small = [&](size_t i) { return objects.count(i) <= static_cast<size_t>(kHostObjectPixels); };
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
  for (size_t j = 0; j < n; ++j) {
    const size_t i = first + j;
    if (!small(i)) continue;
    Shape& sh = shapes[i];
    if (finish_on_device) {
      sh = finished[j];
      sh.theta = shape_theta(sh);
    } else {
      const ObjectView o = objects[i];
      sh = finish_shape(shape[j], static_cast<int64_t>(o.size()), o.fixed_centre, o.cx, o.cy,
                        object_thresh(o), params.pixel_thresholds);
      isos[i] =
          finish_iso(o, sh, params, sums[j], mthresh[j], iso_background(sh, params, 0.0f), 0.0f);
    }
  }
  const auto t_shapes = Clock::now();
  if (finish_on_device) {
    c.isos_down.synchronize();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t j = 0; j < n; ++j)
      if (small(first + j)) isos[first + j] = finished_iso[j];
  }
  if (seconds) {
    // Taking a context from the pool (a new one's stream made): its own line.
    seconds->emplace_back("gpu shapes: wait for the context", since(t_lock, t_locked));
    seconds->emplace_back("gpu shapes: pack, upload, launch",
                          since(t0, t_columns) - since(t_lock, t_locked));
    seconds->emplace_back("gpu shapes: largest objects on the host", since(t_columns, t_host));
    seconds->emplace_back("gpu shapes: wait for the kernel and download", since(t_host, t_device));
    if (finish_on_device) {
      seconds->emplace_back("gpu shapes: host columns, theta", since(t_device, t_shapes));
      seconds->emplace_back("gpu shapes: isophotal finish, its wait and columns",
                            since(t_shapes, Clock::now()));
    } else {
      seconds->emplace_back("gpu shapes: host finish", since(t_device, Clock::now()));
    }
  }
}

}  // namespace celeris::extract::gpu
