#include "extract/stages/measure_beside_pass.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "celeris/error.hpp"

namespace celeris::extract {

namespace {

// How long the thread beside the pass sleeps when fewer than a batch of rows are new: the pass
// writes out about a batch of 4,096 rows every half millisecond on a crowded frame.
constexpr std::chrono::microseconds kPoll{20};

// The finished pass's whole result as its last progress.
CleanProgress progress_of(const CleanResult& r) {
  return r.prefix(r.order.size(), r.removed.size(), SIZE_MAX);
}

}  // namespace

PhotometryBesidePass::PhotometryBesidePass(Inputs inputs) : in_(std::move(inputs)) {}

PhotometryBesidePass::~PhotometryBesidePass() {
  end();
  // The kernels read the codes: the photometry's stream is done with them first.
  batches_.reset();
  codes_.reset();
}

void PhotometryBesidePass::prepare() {
  if (!feeder_) feeder_.emplace([this] { feed(); });
}

void PhotometryBesidePass::begin(const CleanPass& pass) {
  const auto t = std::chrono::steady_clock::now();
  // Fewer than two batches' worth: nothing would start before the pass ends.
  if (in_.objects->size() >= 2 * in_.batch_rows) {
    pass_ = &pass;
    prepare();  // unless started ahead
    feeder_->go();
  }
  start_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void PhotometryBesidePass::end() noexcept {
  const auto t = std::chrono::steady_clock::now();
  stop_.store(true, std::memory_order_release);
  if (!feeder_) return;
  feeder_->join();  // without feeding, when begin() did not say go
  pass_ = nullptr;
  start_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void PhotometryBesidePass::feed() {
  try {
    // The setup here, beside the pass, rather than before it on the pass's thread (the rows'
    // ApertureShapes alone are 3 MB of new pages on a crowded frame).
    const size_t n = in_.objects->size();
    // None where the draft has no objects: the photometry then starts after the pass.
    codes_ = gpu::codes_beside_pass(in_.draft, in_.field.value.width, *in_.objects,
                                    in_.params->buffer.blank_lag);
    if (!codes_) return;
    const BlankingView view{codes_->device(), in_.field.value.width, in_.params->buffer.blank_lag,
                            false};
    batches_ = std::make_unique<gpu::PhotometryBatches>(
        in_.field, view, photometry_request(*in_.params), n, in_.dvar_on_device);
    codes_->merge(*in_.objects, nullptr, 0, batches_->stream());  // the draft's codes first
    aps_.resize(n);
    ready_.store(true, std::memory_order_release);
    while (!stop_.load(std::memory_order_acquire)) {
      const CleanProgress p = pass_->progress();
      // Near the pass's end, smaller batches: what is left after it is then little more than
      // the rows its finish writes out.
      const size_t batch =
          p.taken + n / 8 >= n ? std::max<size_t>(in_.batch_rows / 8, 1) : in_.batch_rows;
      if (p.rows - launched_ >= batch)
        launch(*in_.objects, p);
      else
        std::this_thread::sleep_for(kPoll);
    }
  } catch (...) {
    error_ = std::current_exception();
  }
}

void PhotometryBesidePass::launch(const ObjectList& objects, const CleanProgress& p) {
  // The merges first: each row's photometry reads the codes of those made before its write-out.
  codes_->merge(objects, p.victims + merged_, p.removed - merged_, batches_->stream());
  merged_ = p.removed;
  const std::vector<Shape>& shapes = *in_.shapes;
  const std::vector<Iso>& isos = *in_.isos;
  const LineBuffer& buffer = in_.params->buffer;
  for (size_t i = launched_; i < p.rows; ++i) {
    const size_t src = p.order[i];
    aps_[i] = written_aperture(src, shapes[src], isos[src], p.written_at[i], p.buffer_at[i],
                               p.written_moment[i], buffer);
  }
  batches_->measure(aps_.data() + launched_, p.rows - launched_);
  launched_ = p.rows;
}

std::shared_ptr<const DeviceCodes> PhotometryBesidePass::codes(const ObjectList& objects,
                                                               const CleanResult& cleaned) {
  if (error_) std::rethrow_exception(error_);
  if (!ready_.load(std::memory_order_acquire))
    throw Error("internal: the photometry beside the pass was not set up");
  const CleanProgress p = progress_of(cleaned);
  codes_->merge(objects, p.victims + merged_, p.removed - merged_, batches_->stream());
  merged_ = p.removed;
  codes_done_ = true;
  return codes_->finish(objects.size());
}

gpu::PhotometryColumns PhotometryBesidePass::columns(const ObjectList& objects,
                                                     const CleanResult& cleaned,
                                                     std::vector<ApertureShape>& aps,
                                                     const std::function<void()>& meanwhile) {
  if (!codes_done_) codes(objects, cleaned);
  launch(objects, progress_of(cleaned));
  gpu::PhotometryColumns c = batches_->finish(meanwhile);
  aps_.resize(cleaned.order.size());
  aps = std::move(aps_);
  return c;
}

}  // namespace celeris::extract
