#include "extract/stages/catalog_beside_pass.hpp"

#include <chrono>
#include <thread>

#include "celeris/error.hpp"
#include "extract/stages/measure_shape_columns.hpp"

namespace celeris::extract {

namespace {

// How long the thread sleeps when fewer than a batch of rows are new: the pass writes out about
// a batch of 2,048 rows every 0.3 ms on a dense frame; the rows not written by its end are the
// measurement's. It polls rather than CleanPass::wait_for, whose one pair of wake targets is
// the GPU photometry's feeder's: a second waiter would overwrite them.
constexpr std::chrono::microseconds kPoll{100};

}  // namespace

CatalogBesidePass::CatalogBesidePass(Inputs inputs) : in_(inputs) {}

CatalogBesidePass::~CatalogBesidePass() {
  end();
}

void CatalogBesidePass::prepare() {
  if (!thread_) thread_.emplace([this] { write(); });
}

void CatalogBesidePass::begin(const CleanPass& pass) {
  pass_ = &pass;
  started_ = true;
  prepare();
  thread_->go();
}

void CatalogBesidePass::end() noexcept {
  stop_.store(true, std::memory_order_release);
  if (thread_) thread_->join();  // without writing, when begin() did not say go
  pass_ = nullptr;
}

CatalogBesidePass::Rows CatalogBesidePass::take() {
  if (error_) std::rethrow_exception(error_);
  if (thread_ && thread_->error()) std::rethrow_exception(thread_->error());
  return std::move(rows_);
}

void CatalogBesidePass::write() {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const std::vector<Shape>& shapes = *in_.shapes;
    const std::vector<Iso>& isos = *in_.isos;
    Objects& o = rows_.catalog;
    // Room for every object's row: the columns never move, and their pages are first touched
    // here, beside the pass, as the rows come.
    o.reserve(in_.objects, in_.n_aper, in_.n_frac);
    // A bit per object: something has been merged into it (the masters of the merges so far).
    std::vector<uint64_t> merged_into((in_.objects + 63) / 64, 0);
    size_t merges = 0, rows = 0;
    for (;;) {
      // Read before the progress: after the stop, this progress is the pass's last.
      const bool last = stop_.load(std::memory_order_acquire);
      const CleanProgress p = pass_->progress();
      if (p.rows > in_.objects)
        throw Error("internal: the clean pass wrote " + std::to_string(p.rows) + " rows of " +
                    std::to_string(in_.objects) + " objects");
      // The merges made before these rows' write-outs (published before them).
      for (; merges < p.removed; ++merges) {
        const size_t m = p.victims[merges].master;
        merged_into[m >> 6] |= uint64_t{1} << (m & 63);
      }
      if (p.rows > rows && (last || p.rows - rows >= in_.batch_rows)) {
        o.resize(p.rows, in_.n_aper, in_.n_frac, 1);
        for (size_t i = rows; i < p.rows; ++i) {
          const size_t src = p.order[i];
          if ((merged_into[src >> 6] >> (src & 63)) & 1)
            rows_.left.push_back(i);
          else
            write_shape_columns(o, i, shapes[src], isos[src], false);
        }
        rows = p.rows;
      } else if (!last) {
        std::this_thread::sleep_for(kPoll);
      }
      if (last) break;
    }
    rows_.rows = rows;
  } catch (...) {
    error_ = std::current_exception();
  }
  seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace celeris::extract
