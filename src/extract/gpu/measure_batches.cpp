// The GPU measurement's driver for rows a batch at a time (measure_gpu.hpp PhotometryBatches):
// a context (measure_context.hpp) held from the first batch to the columns' return, each
// batch's shapes and order up into their own stretch of the packed inputs, its kernels writing
// its own stretch of the outputs.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <string>

#include "celeris/error.hpp"
#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/measure_context.hpp"
#include "extract/gpu/measure_gpu.hpp"

namespace celeris::extract::gpu {

// Batches go to the context's batch streams in turn: a batch takes as long as its largest object
// (a warp's growth curve out to a large radius), which one stream would serialise, batch after
// batch; beside each other the batches' tails overlap (stop 54, H200, crowded 4096^2, batches of
// 4,096 rows on one stream: the GPU 4-8 ms behind the pass at its end).
constexpr int kStreams = MeasureContext::kBatchStreams;

struct PhotometryBatches::State {
  std::shared_ptr<MeasureContext> taken;
  PhotometryRequest request;
  phot::View view;
  size_t capacity, na, nf;
  InputLayout in;
  OutputLayout out;
  unsigned char* d_in = nullptr;
  unsigned char* d_out = nullptr;
  size_t rows = 0, batches = 0;
  double launching = 0;  // host seconds in measure()
  bool finished = false;
  std::vector<int32_t> on_device, on_host;

  State(const PhotometryRequest& r, size_t capacity)
      : request(r),
        capacity(capacity),
        na(r.apertures.size()),
        nf(r.fluxfrac.size()),
        in(capacity, na, nf),
        out(capacity, na, nf) {}
};

PhotometryBatches::PhotometryBatches(const PhotometryField& field, const BlankingView& codes,
                                     const PhotometryRequest& request, size_t capacity,
                                     const float* dvar_on_device) {
  cuda::cuda_require_device("--device cuda");
  if (!field.value_on_device || field.var.data || field.dvar.data || field.dvalue.data ||
      field.blanking || field.dblanking)
    throw Error(
        "internal: PhotometryBatches needs the image on the device, no other image, and its "
        "blanking given apart");
  state_ = std::make_unique<State>(request, capacity);
  state_->request.meanwhile = nullptr;  // finish() takes its own
  State& st = *state_;
  st.taken = take_measure_context();
  MeasureContext& c = *st.taken;
  const cudaStream_t s = c.stream.get();
  st.view = photometry_view(field, false);
  st.view.value = field.value_on_device;
  // Weights: the variances on the device (the host's views are empty: a weighted frame's maps
  // come down only after the pass).
  st.view.var = field.var_on_device;
  st.view.dvar = dvar_on_device;
  if (st.view.mask_detected) st.view.blanking = codes;
  unsigned char* staged = c.staged_in.grow(st.in.all.bytes());
  c.staged_out.grow(st.out.all.bytes());
  st.d_in = c.in.grow(st.in.all.bytes());
  st.d_out = c.out.grow(st.out.all.bytes());
  // The diameters and fractions once; each batch sends its shapes and order.
  if (st.na)
    std::memcpy(staged + st.in.apertures, request.apertures.data(), st.na * sizeof(double));
  if (st.nf) std::memcpy(staged + st.in.fractions, request.fluxfrac.data(), st.nf * sizeof(double));
  c.in.upload_async(staged + st.in.apertures, st.in.all.bytes() - st.in.apertures, s,
                    st.in.apertures);
}

PhotometryBatches::~PhotometryBatches() {
  // The context's buffers go back to the pool: nothing queued may still use them.
  if (state_ && state_->taken && !state_->finished) {
    try {
      state_->taken->stream.synchronize();
      for (cuda::Stream& b : state_->taken->batch_streams) b.synchronize();
    } catch (...) {
    }
  }
}

cuda::StreamHandle PhotometryBatches::stream() const {
  return state_->taken->stream.get();
}

void PhotometryBatches::measure(const ApertureShape* shapes, size_t count) {
  if (count == 0) return;
  const auto t = std::chrono::steady_clock::now();
  State& st = *state_;
  MeasureContext& c = *st.taken;
  const cudaStream_t s = c.stream.get();
  const size_t first = st.rows;
  if (first + count > st.capacity)
    throw Error("internal: PhotometryBatches given " + std::to_string(first + count) +
                " rows for " + std::to_string(st.capacity));
  split_by_size(shapes, count, st.request.autoparams.min_search,
                std::numeric_limits<double>::infinity(), 1, st.on_device, st.on_host);
  // This batch's stream first waits for the context's: the diameters, and the blanking codes
  // of the merges made before these rows' write-outs (CodesBesidePass::merge waits there).
  const int k = static_cast<int>(st.batches % kStreams);
  const cudaStream_t b = c.batch_streams[k].get();
  c.batch_ready.record(s);
  CELERIS_CUDA_CHECK(cudaStreamWaitEvent(b, c.batch_ready.get(), 0));
  unsigned char* staged = c.staged_in.data();
  const size_t shape_at = st.in.shapes + first * sizeof(ApertureShape);
  const size_t order_at = st.in.order + first * sizeof(int32_t);
  std::memcpy(staged + shape_at, shapes, count * sizeof(ApertureShape));
  std::memcpy(staged + order_at, st.on_device.data(), count * sizeof(int32_t));
  c.in.upload_async(staged + shape_at, count * sizeof(ApertureShape), b, shape_at);
  c.in.upload_async(staged + order_at, count * sizeof(int32_t), b, order_at);
  // The growth curve's kernel chosen as for the frame's rows at once (its capacity, not the
  // batch's count): a crowded frame's batches of a few thousand rows each took it inside the
  // photometry kernel otherwise, the slower form there. Its first fill in the growth kernel
  // (GrowthFork's second stream is the context's alone).
  const PhotometryArgs a = photometry_args(st.view, st.request, c, st.d_in, st.in, st.d_out, st.out,
                                           first, shapes, st.on_device, st.capacity);
  measure_photometry(a, b, nullptr);
  st.rows += count;
  ++st.batches;
  st.launching += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

PhotometryColumns PhotometryBatches::finish(const std::function<void()>& meanwhile) {
  State& st = *state_;
  MeasureContext& c = *st.taken;
  const cudaStream_t s = c.stream.get();
  PhotometryColumns out;
  out.setup = st.launching;
  const auto t_wait = std::chrono::steady_clock::now();
  // The context's stream joins the batches' before the columns come down.
  for (int k = 0; k < kStreams && static_cast<size_t>(k) < st.batches; ++k) {
    c.batch_done[k].record(c.batch_streams[k].get());
    CELERIS_CUDA_CHECK(cudaStreamWaitEvent(s, c.batch_done[k].get(), 0));
  }
  c.timer.mark(kMeasured, s);
  c.out.download_async(c.staged_out.data(), st.out.all.bytes(), s);
  c.timer.mark(kDownloaded, s);
  if (meanwhile) {
    const auto t = std::chrono::steady_clock::now();
    meanwhile();
    out.meanwhile = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
  c.stream.synchronize();
  st.finished = true;
  out.kernel = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_wait).count() -
               out.meanwhile;
  out.download = c.timer.seconds(kMeasured, kDownloaded);
  const auto t_gather = std::chrono::steady_clock::now();
  gather_columns(c.staged_out.data(), st.out, st.rows, st.na, st.nf,
                 std::max(1, st.request.host_threads), out);
  out.gather = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_gather).count();
  return out;
}

}  // namespace celeris::extract::gpu
