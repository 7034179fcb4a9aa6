// Cleaning of spurious detections (SExtractor clean.c): a faint object lying in the wings of a
// brighter one, where the bright object's extrapolated Moffat-like profile exceeds the faint
// object's own CLEAN threshold (mthresh), is merged into it. Objects are taken in detection
// order against the list of those kept so far, as SExtractor does; a merge adds the slave's
// fluxes, pixel counts and bounding box to the master, never its moments.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "extract/objects.hpp"
#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/clean_pairs.hpp"
#include "extract/stages/clean_zones.hpp"
#include "extract/stages/isophotal.hpp"
#include "extract/stages/moments.hpp"

namespace celeris::extract {

struct CleanParams {
  bool enabled = true;
  double clean_param = 1.0;
  float detect_thresh = 0;
  int clean_margin = 0;       // SExtractor's cleanmargin (from the aperture sizes)
  LineBuffer buffer;          // when objects are written out (sextractor/scan_order.hpp)
  int64_t stack_size = 3000;  // MEMORY_OBJSTACK
  // For clean_zones and clean_pairs, which callers run first, and the write-back of the merged
  // objects' values at the pass's finish; the pass itself is sequential.
  int threads = 1;
  // Tests: compare every pair of the clean list as the pass meets it (SExtractor's direct form)
  // instead of using the decisions made beforehand (clean_pairs.hpp); the results are the same.
  bool compare_every_pair = false;
};

// What the pass has written out so far, for a reader on another thread while it runs
// (CleanPass::progress): rows [0, rows) of the result's order, written_at, buffer_at and
// written_moment, and removed[0, removed), every merge made before those rows' write-outs
// among them. The arrays stay where they are until finish() (each is reserved for every object).
struct CleanProgress {
  size_t rows = 0, removed = 0;
  size_t taken = 0;  // newcomers taken so far (of every object)
  const size_t* order = nullptr;
  const int64_t *written_at = nullptr, *buffer_at = nullptr, *written_moment = nullptr;
  const CleanVictim* victims = nullptr;
};

struct CleanResult {
  std::vector<size_t> order;        // surviving objects in SExtractor's output (NUMBER) order
  std::vector<int64_t> written_at;  // for each of them, the scan line at which it is written out
                                    // (and measured); INT64_MAX after the last line
  // For each of them, the scan line whose line buffer it is measured in: written_at, or the
  // line after it for a write-out amid a line (the object stack full), which SExtractor makes
  // after that line's buffer has moved (scan.c: loadstrip, then the line's objects).
  std::vector<int64_t> buffer_at;
  // For each of them, the moment of its write-out (sextractor/blanking_view.hpp: the merges made
  // before it on its line count as made), and the scan line of each write-out because the
  // object stack was full, in order.
  std::vector<int64_t> written_moment;
  std::vector<int64_t> stack_full_lines;
  std::vector<CleanVictim> removed;  // objects merged into another

  // Its first `rows` rows and `removed` merges, as CleanPass::progress gives them.
  CleanProgress prefix(size_t rows, size_t merges, size_t taken) const;
};

// The clean pass a range of newcomers at a time, in order: each take() gives the next objects'
// zones (CleanZones::first onward) and the answers decided beforehand for them (clean_pairs).
// The columns given at construction are read, never written, until finish() (the changed
// objects are kept apart), and a take() reads only the objects before its end: the next
// objects' columns, profiles, zones and pairs can be made while the pass runs on another
// thread. `profile` and `rows`: each object's CleanProfile and CleanRows from its shape as
// detected (clean_pairs, or clean_rows alone with cleaning off), read as the pass takes it.
class CleanPass {
 public:
  CleanPass(size_t n, std::vector<uint16_t>& flags, const std::vector<Shape>& shapes,
            const std::vector<Iso>& isos, const std::vector<int64_t>& done_line,
            const std::vector<CleanProfile>& profile, const std::vector<CleanRows>& rows,
            const CleanParams& params);
  ~CleanPass();
  CleanPass(const CleanPass&) = delete;
  CleanPass& operator=(const CleanPass&) = delete;
  // The newcomers zones.first .. zones.first + zones.offset.size() - 2 (zones.first == next()).
  // `pair` and `any` index as clean_pairs' for these zones. Cleaning off: zones with no
  // neighbours.
  void take(const CleanZones& zones, const std::vector<uint8_t>& pair,
            const std::vector<uint8_t>& any);
  size_t next() const;  // the first newcomer not yet taken
  // Safe to call from another thread while take() runs, until finish().
  CleanProgress progress() const;
  // The same, once the pass has written out at least `rows` rows or taken at least `taken`
  // newcomers, or release_waiters() was called, or `timeout` has passed (a wake it may miss,
  // at its last newcomers, costs no more). The pass wakes the waiter itself when it gets there,
  // a futex wake on its thread a batch, so a reader beside it need not poll (the GPU
  // photometry's feeder slept 20 us at a time; the frame's time on the H200 did not change
  // measurably either way, stop 61 call 2).
  CleanProgress wait_for(size_t rows, size_t taken, std::chrono::microseconds timeout) const;
  // Every wait_for returns at once from now on (the reader is told to stop).
  void release_waiters() const;
  // After every object is taken: the last write-outs; the merges are written into `shapes`
  // and `isos` (the columns given at construction).
  CleanResult finish(std::vector<Shape>& shapes, std::vector<Iso>& isos);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The whole pass at once. Updates shapes/isos/flags of the masters in place. done_line[i]: the scan
// line on which object i's detection was completed (sextractor/scan_order.hpp). `zones`:
// clean_zones(shapes); `pairs`: clean_pairs(shapes, isos, zones, params.clean_param,
// params.clean_margin), both from the arguments as given (with cleaning off: no zones, and only
// the pairs' rows are read, made here when `pairs` has none).
CleanResult clean_objects(std::vector<uint16_t>& flags, std::vector<Shape>& shapes,
                          std::vector<Iso>& isos, const std::vector<int64_t>& done_line,
                          const CleanZones& zones, CleanPairs pairs, const CleanParams& params);

}  // namespace celeris::extract
