#include "extract/stages/measure_beside_pass.hpp"

#include <algorithm>
#include <chrono>

#include "celeris/error.hpp"
#include "core/thread_cpu.hpp"

namespace celeris::extract {

namespace {

// The thread beside the pass waits for the pass to wake it (CleanPass::wait_for), at most this
// long: the pass writes out about a batch of 4,096 rows every half millisecond on a crowded
// frame, and a wake missed at its last newcomers costs no more than this.
constexpr std::chrono::microseconds kWaitAtMost{500};

// The last batch's ApertureShapes are made on several threads when it has at least twice this
// many rows (a crowded 4096^2 frame's, about 3,000, took 0.11-0.13 ms so with the merges and the
// launch on the H200's 16 threads, stop 62; the threshold itself was not tuned).
constexpr int64_t kRowsPerThread = 256;

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
  if (goes(in_.objects->size(), in_.batch_rows)) {
    pass_ = &pass;
    prepare();  // unless started ahead
    feeder_->go();
  }
  start_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void PhotometryBesidePass::end() noexcept {
  const auto t = std::chrono::steady_clock::now();
  stop_.store(true, std::memory_order_release);
  if (pass_) pass_->release_waiters();  // a feeder waiting for rows stops now
  if (!feeder_) return;
  feeder_->join();  // without feeding, when begin() did not say go
  pass_ = nullptr;
  start_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void PhotometryBesidePass::feed() {
  using Clock = std::chrono::steady_clock;
  const double cpu0 = thread_cpu_seconds();
  const auto t0 = Clock::now();
  struct CpuAtEnd {
    FeederSeconds& s;
    double cpu0;
    ~CpuAtEnd() { s.cpu = thread_cpu_seconds() - cpu0; }
  } cpu_at_end{feeder_seconds_, cpu0};
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
    feeder_seconds_.setup = std::chrono::duration<double>(Clock::now() - t0).count();
    // Near the pass's end (its last eighth of newcomers), smaller batches: what is left after
    // it is then little more than the rows its finish writes out.
    const size_t near_end = n - n / 8;
    const size_t small = std::max<size_t>(in_.batch_rows / 8, 1);
    CleanProgress p = pass_->progress();
    while (!stop_.load(std::memory_order_acquire)) {
      const bool near = p.taken >= near_end;
      const size_t batch = near ? small : in_.batch_rows;
      if (p.rows - launched_ >= batch) {
        const auto t = Clock::now();
        launch(*in_.objects, p);
        feeder_seconds_.batches += std::chrono::duration<double>(Clock::now() - t).count();
      }
      // Until the next batch's rows are written out, or the small batches begin.
      p = pass_->wait_for(launched_ + batch, near ? SIZE_MAX : near_end, kWaitAtMost);
    }
  } catch (...) {
    error_ = std::current_exception();
  }
}

void PhotometryBesidePass::launch(const ObjectList& objects, const CleanProgress& p, int threads) {
  // The merges first: each row's photometry reads the codes of those made before its write-out.
  codes_->merge(objects, p.victims + merged_, p.removed - merged_, batches_->stream());
  merged_ = p.removed;
  const std::vector<Shape>& shapes = *in_.shapes;
  const std::vector<Iso>& isos = *in_.isos;
  const LineBuffer& buffer = in_.params->buffer;
  // Beside the pass one thread (more would crowd the pass's core: stop 46); after it, the last
  // rows (the object stack's, about 3,000 on a crowded frame) on the measurement's threads.
  const int64_t first = static_cast<int64_t>(launched_), last = static_cast<int64_t>(p.rows);
  const int team = last - first >= kRowsPerThread * 2 ? threads : 1;
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t i = first; i < last; ++i) {
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
  const auto t = std::chrono::steady_clock::now();
  if (!codes_done_) codes(objects, cleaned);
  launch(objects, progress_of(cleaned), in_.params->threads);
  last_batch_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  gpu::PhotometryColumns c = batches_->finish(meanwhile);
  aps_.resize(cleaned.order.size());
  aps = std::move(aps_);
  return c;
}

}  // namespace celeris::extract
