#include "extract/stages/clean.hpp"
#include "extract/stages/clean_list.hpp"

#include "celeris/error.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <utility>

namespace celeris::extract {

namespace {

// Every cache line of v, to be read soon. The pass reads a newcomer's shape, isophotal values
// and profile only where it compares or merges it (about one newcomer in three on a crowded
// frame), too seldom for the hardware to see the stream: each such read missed the caches (the
// columns, 10 MB for a crowded 4096^2 frame, were last written by other threads), about a
// quarter of the pass (bench_clean, crowded 4096^2, development machine: 4.4 -> 3.4 ms; less on
// the H200's host, whose 2 MB L2 holds more of them).
template <class T>
inline void prefetch_lines(const T& v) {
  const char* p = reinterpret_cast<const char*>(&v);
  for (size_t b = 0; b < sizeof(T); b += 64) __builtin_prefetch(p + b);
  __builtin_prefetch(p + sizeof(T) - 1);
}
// How many newcomers ahead: a dozen covers a miss's latency at the pass's pace (8-16 alike).
constexpr size_t kAhead = 12;
// Fewer changed objects than this are written back by one thread (a team's start costs more).
constexpr int64_t kParallelWriteBack = 2048;

}  // namespace

// Why the decisions made beforehand are SExtractor's. When newcomer `in` is cleaned, it is
// compared with each entry o of the clean list in list order; entries outside its clean zone
// are skipped (the zones list every earlier object inside it), and each other comparison is a
// function of the two objects' shapes and thresholds at that moment (clean_pair). The
// newcomer's are those detected: a merge goes into an object only at its own turn or later.
// An entry's are those detected unless something has already been merged into it (it is then
// "changed"). So the comparison with an unchanged entry gives clean_pairs' precomputed answer,
// whatever else has changed, and a changed entry is compared afresh, as SExtractor does. The
// comparisons answering kNone change nothing (a fainter entry not under the newcomer's profile
// is no victim; a brighter one whose profile does not cover the newcomer lets the scan go on):
// visiting only the entries with another answer, in list order, takes the same decisions in
// the same order. The list itself (membership, positions, write-outs) is kept by the same
// sequential bookkeeping either way; only the comparisons move out of the pass. Groups of
// interacting objects are not decided independently: on crowded frames the zone graph is mostly one
// component, and list positions, which order the comparisons, depend on every write-out before.
//
// The changed objects' shapes, isophotal values and profiles are kept apart (a slot each) until
// finish(): the columns as detected stay read-only while the pass runs, so the pairs of later
// newcomers can be decided from them at the same time (the pipelined back end, back_end.hpp).
struct CleanPass::State {
  std::vector<uint16_t>& flags;
  const std::vector<Shape>& shapes;
  const std::vector<Iso>& isos;
  const std::vector<int64_t>& done_line;
  const std::vector<CleanProfile>& profile;
  const std::vector<CleanRows>& rows;
  CleanParams params;
  size_t n;
  size_t next = 0;  // the next newcomer
  CleanResult result;
  WriteOutSchedule schedule;
  CleanList list;
  // Per object its slot among the changed ones (-1: as detected; the list's tag), and the slots.
  struct alignas(64) Changed {
    Changed(const Shape& s, const Iso& i, size_t o)
        : cmp(clean_pair_input_of(s, i.mthresh, 0, 0)),
          flux0(cmp.flux),
          shape(s),
          iso(i),
          object(o) {}
    // What a comparison afresh reads of the object, in the slot's first cache line: position,
    // ellipse and CLEAN threshold, which no merge changes, its flux, kept with each merge, and
    // its profile, remade lazily after one. The comparisons afresh are about a quarter of a
    // dense frame's pass; one line instead of four (shape, isophotal values, profile) made no
    // measurable difference on the development machine (stop 75, as stop 72 found), but holds
    // the fluxes compare_afresh's shortcut reads.
    CleanPairInput cmp;
    float flux0;  // its flux as detected, when the answers made beforehand were
    bool profile_valid = false;
    Shape shape;
    Iso iso;
    size_t object = 0;  // whose: finish() writes back the changed objects alone
  };
  static_assert(offsetof(Changed, profile_valid) < 64, "a comparison afresh reads one line");
  std::vector<Changed> changed;
  // A bit per object, set with its slot: the zone scan asks it of every neighbour (138,081 on a
  // crowded 4096^2 frame), and 6 KB of bits stay in the first-level cache where the objects'
  // 16-byte list records (0.75 MB, read at random) did not.
  std::vector<uint64_t> changed_bit;
  bool is_changed(size_t o) const { return (changed_bit[o >> 6] >> (o & 63)) & 1; }
  std::vector<size_t> victims;
  std::vector<std::pair<size_t, CleanPair>> met;  // (list position, answer)
  std::vector<uint32_t> candidate;                // a newcomer's zone entries to visit
  std::vector<size_t> leaving;
  int64_t now = 0;  // the scan line of the write-outs below
  // Write-outs made so far because the stack was full: a moment is the scan line plus these
  // (blanking_view.hpp), so that such a write-out follows the merges made before it on its line.
  int64_t stack_full = 0;
  // progress(): the merges' count stored before the rows', so that a reader who sees a row
  // sees every merge made before its write-out.
  std::atomic<size_t> published_removed{0}, published_rows{0}, published_taken{0};
  // wait_for(): the waiter's targets (SIZE_MAX: none), read by the pass at every newcomer; the
  // pass wakes it once either is reached. Relaxed: a wake missed by the two threads' stores
  // crossing is made at the next newcomer, or by the waiter's timeout after the last.
  std::atomic<size_t> wake_rows{SIZE_MAX}, wake_taken{SIZE_MAX};
  std::mutex wake_m;
  std::condition_variable wake_cv;
  bool released = false;  // release_waiters()

  State(size_t n, std::vector<uint16_t>& flags, const std::vector<Shape>& shapes,
        const std::vector<Iso>& isos, const std::vector<int64_t>& done_line,
        const std::vector<CleanProfile>& profile, const std::vector<CleanRows>& rows,
        const CleanParams& params)
      : flags(flags),
        shapes(shapes),
        isos(isos),
        done_line(done_line),
        profile(profile),
        rows(rows),
        params(params),
        n(n),
        schedule(params.buffer),
        // The list holds at most MEMORY_OBJSTACK entries (one, if that is not positive); its
        // ycmin index files entries by the rows of the buffer's write-out events.
        list(
            n,
            static_cast<size_t>(std::clamp<int64_t>(params.stack_size, 1, std::max<int64_t>(n, 1))),
            schedule.ymin_range().first, schedule.ymin_range().second) {
    result.order.reserve(n);
    result.written_at.reserve(n);
    result.buffer_at.reserve(n);
    result.written_moment.reserve(n);
    // An object is merged away at most once (a victim leaves the list, an eaten newcomer never
    // joins it): `removed` never moves either (progress()).
    result.removed.reserve(n);
    // A dense 4096^2 frame changes one object in 7.75 (22,874 of 177,277): the slots (256
    // bytes each) are reserved for one in four, whose pages are touched only as they fill, so
    // that no growth copies them mid-pass (0.2-1.7 ms of a 23-24 ms pass, three alternations).
    changed.reserve(n / 4 + 1);
    changed_bit.assign((n + 63) / 64, 0);
  }

  int32_t slot(size_t o) const { return list.tag(o); }
  const Shape& shape(size_t o) const { return slot(o) < 0 ? shapes[o] : changed[slot(o)].shape; }
  const Iso& iso(size_t o) const { return slot(o) < 0 ? isos[o] : changed[slot(o)].iso; }
  Changed& change(size_t o) {
    if (slot(o) < 0) {
      list.set_tag(o, static_cast<int32_t>(changed.size()));
      changed_bit[o >> 6] |= uint64_t{1} << (o & 63);
      changed.emplace_back(shapes[o], isos[o], o);  // in place: no temporary copied
    }
    Changed& c = changed[slot(o)];
    c.profile_valid = false;
    return c;
  }

  void merge(size_t slave, size_t master) {
    const Shape ss = shape(slave);
    const Iso si = iso(slave);
    Changed& m = change(master);
    Shape& ms = m.shape;
    ms.npix += ss.npix;
    ms.flux = static_cast<float>(ms.flux) + static_cast<float>(ss.flux);
    m.cmp.flux = static_cast<float>(ms.flux);
    merge_iso(m.iso, si);
    if (ss.peak > ms.peak) ms.peak = ss.peak;
    ms.xmin = std::min(ms.xmin, ss.xmin);
    ms.xmax = std::max(ms.xmax, ss.xmax);
    ms.ymin = std::min(ms.ymin, ss.ymin);
    ms.ymax = std::max(ms.ymax, ss.ymax);
    flags[master] |= flags[slave] & ~(kFlagBlended | kFlagNeighbours);
  }

  // SExtractor fixes an object's rows when it joins the clean list, from its shape then: as
  // detected (made beforehand, clean_rows), or grown by the victims it has just absorbed.
  void add(size_t o) {
    const CleanRows y =
        !is_changed(o) ? rows[o] : clean_rows(changed[slot(o)].shape, params.clean_margin);
    list.push(o, y.ycmin, y.ycmax);
  }
  int64_t moment(int64_t line) const {
    return line == std::numeric_limits<int64_t>::max() ? line : line + stack_full;
  }
  void write_out(size_t li, bool amid_line = false) {
    result.order.push_back(list[li]);
    result.written_at.push_back(now);
    result.buffer_at.push_back(amid_line ? now + 1 : now);
    result.written_moment.push_back(moment(now));
    list.remove_at(li);
  }
  // At each of the buffer's write-out events, the objects whose apertures no longer reach the
  // buffer leave. SExtractor scans the list from its end, each removal moving the last entry
  // (already scanned, and staying) into the freed slot: the same as removing the qualifying
  // entries in decreasing list position.
  void events_before(int64_t line) {
    schedule.events_before(line, [&](int64_t at, int64_t ymin) {
      now = at;
      leaving.clear();
      list.take_ycmin_at_most(ymin, [&](size_t li) { leaving.push_back(li); });
      for (size_t v = leaving.size(); v--;) write_out(leaving[v]);
    });
  }
  // The comparison of newcomer `in` (as detected) with list entry o, changed, from their
  // shapes now (SExtractor's), `detected` the answer made beforehand from o as detected. o is a
  // neighbour in in's zone (clean_zones), which no merge changes (positions and semi-major axes
  // stay): clean_pair's arithmetic without its zone test (clean_pair_test), o's side from its
  // slot's first line.
  // `in_cmp`: the newcomer's comparison input (clean_pair_input, as detected), made by the caller
  // once for all of its comparisons afresh.
  CleanPair compare_afresh(const CleanPairInput& in_cmp, size_t o, CleanPair detected) {
    Changed& c = changed[slot(o)];
    const float flux_in = in_cmp.flux;
    // o fainter than the newcomer, now and as detected: both times the newcomer's profile (as
    // detected) is tested at o's threshold (which no merge changes) and o's position, so the
    // answer is the one made beforehand (29% of the comparisons afresh on a dense 4096^2 frame).
    if (c.cmp.flux < flux_in && c.flux0 < flux_in) return detected;
    const double beta = params.clean_param;
    if (!c.profile_valid) {
      const CleanProfile p(c.shape, c.iso.dthresh, beta);
      c.cmp.amp = p.amp;
      c.cmp.alpha = p.alpha;
      c.profile_valid = true;
    }
    const CleanPairTest t = clean_pair_test(in_cmp, c.cmp);
    if (!clean_profile_above(t.amp, t.val, beta, t.level)) return CleanPair::kNone;
    return t.victim ? CleanPair::kVictim : CleanPair::kMaster;
  }

  // The same from the objects' whole records, as clean_pair takes them (compare_every_pair:
  // the tests' reference for the decisions made beforehand and for compare_afresh alike).
  CleanPair compare_directly(size_t in, size_t o) const {
    const double beta = params.clean_param;
    const CleanProfile po =
        is_changed(o) ? CleanProfile(shape(o), iso(o).dthresh, beta) : profile[o];
    return clean_pair(shapes[in], isos[in], profile[in], shape(o), iso(o), po, beta);
  }

  void publish(size_t taken) {
    published_removed.store(result.removed.size(), std::memory_order_release);
    published_rows.store(result.order.size(), std::memory_order_release);
    published_taken.store(taken, std::memory_order_relaxed);
    if (result.order.size() >= wake_rows.load(std::memory_order_relaxed) ||
        taken >= wake_taken.load(std::memory_order_relaxed))
      wake();
  }
  void wake() {
    {
      std::lock_guard<std::mutex> lock(wake_m);
      wake_rows.store(SIZE_MAX, std::memory_order_relaxed);
      wake_taken.store(SIZE_MAX, std::memory_order_relaxed);
    }
    wake_cv.notify_all();
  }
  CleanProgress progress() const {
    const size_t rows = published_rows.load(std::memory_order_acquire);
    const size_t merges = published_removed.load(std::memory_order_acquire);
    return result.prefix(rows, merges, published_taken.load(std::memory_order_relaxed));
  }
  CleanProgress wait_for(size_t rows, size_t taken, std::chrono::microseconds timeout) {
    auto there = [&] {
      return released || published_rows.load(std::memory_order_acquire) >= rows ||
             published_taken.load(std::memory_order_relaxed) >= taken;
    };
    std::unique_lock<std::mutex> lock(wake_m);
    if (!there()) {
      wake_rows.store(rows, std::memory_order_relaxed);
      wake_taken.store(taken, std::memory_order_relaxed);
      wake_cv.wait_for(lock, timeout, there);
      wake_rows.store(SIZE_MAX, std::memory_order_relaxed);
      wake_taken.store(SIZE_MAX, std::memory_order_relaxed);
    }
    lock.unlock();
    return progress();
  }
  void release_waiters() {
    {
      std::lock_guard<std::mutex> lock(wake_m);
      released = true;
    }
    wake_cv.notify_all();
  }

  void take(const CleanZones& zones, const std::vector<uint8_t>& pair,
            const std::vector<uint8_t>& any) {
    const size_t end = zones.first + zones.offset.size() - 1;
    for (size_t in = next; in < end; ++in) {
      publish(in);
      if (in + kAhead < end) {
        prefetch_lines(shapes[in + kAhead]);
        prefetch_lines(isos[in + kAhead]);
        prefetch_lines(profile[in + kAhead]);
        __builtin_prefetch(&rows[in + kAhead]);
      }
      events_before(done_line[in]);
      // A full list first writes out the object with the smallest ycmax (the first such).
      if (static_cast<int64_t>(list.size()) >= params.stack_size && !list.empty()) {
        now = done_line[in];
        ++stack_full;
        result.stack_full_lines.push_back(now);
        write_out(list.first_of_smallest_ycmax(), true);
      }
      if (!params.enabled) {
        add(in);
        continue;
      }
      // The entries of in's zone now in the list, with their answers, in list order.
      met.clear();
      const size_t z = in - zones.first;
      if (params.compare_every_pair) {
        for (int64_t k = zones.offset[z]; k < zones.offset[z + 1]; ++k) {
          const size_t o = zones.neighbours[k];
          const int64_t li = list.position(o);
          if (li < 0) continue;
          const CleanPair c = compare_directly(in, o);
          if (c != CleanPair::kNone) met.emplace_back(static_cast<size_t>(li), c);
        }
      } else if (any[z] || !changed.empty()) {
        // Per pair: the answer made beforehand while o is as detected, else o compared afresh.
        // The entries that need either are gathered first without a branch, then visited:
        // on a dense 4096^2 frame (13 entries a newcomer, one in eight objects changed) the
        // pass took 22.7 ms against 26.5 with the test and skip in one loop (development
        // machine, one core; mispredicted skips are the likely reason, not measured: no
        // hardware counters there).
        const int64_t k0 = zones.offset[z], k1 = zones.offset[z + 1];
        if (candidate.size() < static_cast<size_t>(k1 - k0))
          candidate.resize(static_cast<size_t>(k1 - k0));
        size_t nc = 0;
        for (int64_t k = k0; k < k1; ++k) {
          candidate[nc] = static_cast<uint32_t>(k - k0);
          nc +=
              (pair[k] != static_cast<uint8_t>(CleanPair::kNone)) | is_changed(zones.neighbours[k]);
        }
        CleanPairInput in_cmp;
        bool in_cmp_made = false;
        for (size_t q = 0; q < nc; ++q) {
          const int64_t k = k0 + candidate[q];
          const size_t o = zones.neighbours[k];
          const int64_t li = list.position(o);
          if (li < 0) continue;
          CleanPair c = static_cast<CleanPair>(pair[k]);
          if (is_changed(o)) {
            if (!in_cmp_made) {
              in_cmp = clean_pair_input(shapes[in], isos[in], profile[in]);
              in_cmp_made = true;
            }
            if ((c = compare_afresh(in_cmp, o, c)) == CleanPair::kNone) continue;
          }
          met.emplace_back(static_cast<size_t>(li), c);
        }
      }
      std::sort(met.begin(), met.end());
      victims.clear();
      bool eaten = false;
      for (const auto& [li, c] : met) {
        if (c == CleanPair::kVictim) {
          victims.push_back(li);
          continue;
        }
        const size_t o = list[li];
        merge(in, o);
        result.removed.push_back({in, done_line[in], o, in, moment(done_line[in])});
        eaten = true;
        break;
      }
      if (eaten) continue;
      for (size_t v = victims.size(); v--;) {
        const size_t li = victims[v];
        merge(list[li], in);
        result.removed.push_back({list[li], done_line[in], in, in, moment(done_line[in])});
        list.remove_at(li);
      }
      add(in);
    }
    publish(end);
    next = end;
  }

  CleanResult finish(std::vector<Shape>& out_shapes, std::vector<Iso>& out_isos) {
    events_before(std::numeric_limits<int64_t>::max());
    // Then the rest, always taking the first entry and moving the last one into its place.
    now = std::numeric_limits<int64_t>::max();
    list.drain_in_end_order([&](size_t o) {
      result.order.push_back(o);
      result.written_at.push_back(now);
      result.buffer_at.push_back(now);
      result.written_moment.push_back(moment(now));
    });
    // The changed objects' values back into the columns, on params.threads threads: a slot per
    // object, so no two write the same entry. A crowded 4096^2 frame has about 5,000 of them,
    // 1.1 MB written at random places: 0.1 ms on one core of the development machine, about
    // 0.3 ms on the H200's host, where the pass's end lies on the frame's critical path.
    const int64_t nchanged = static_cast<int64_t>(changed.size());
    const int threads = nchanged >= kParallelWriteBack ? std::max(params.threads, 1) : 1;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t k = 0; k < nchanged; ++k) {
      const Changed& c = changed[static_cast<size_t>(k)];
      out_shapes[c.object] = c.shape;
      out_isos[c.object] = c.iso;
    }
    return std::move(result);
  }
};

CleanProgress CleanResult::prefix(size_t rows, size_t merges, size_t taken) const {
  // The arrays' addresses only (not their sizes, which the pass may be changing).
  CleanProgress p;
  p.rows = rows;
  p.removed = merges;
  p.taken = taken;
  p.order = order.data();
  p.written_at = written_at.data();
  p.buffer_at = buffer_at.data();
  p.written_moment = written_moment.data();
  p.victims = removed.data();
  return p;
}

CleanPass::CleanPass(size_t n, std::vector<uint16_t>& flags, const std::vector<Shape>& shapes,
                     const std::vector<Iso>& isos, const std::vector<int64_t>& done_line,
                     const std::vector<CleanProfile>& profile, const std::vector<CleanRows>& rows,
                     const CleanParams& params) {
  if (rows.size() < n || (params.enabled && profile.size() < n))
    throw Error("internal: CleanPass given " + std::to_string(rows.size()) + " rows and " +
                std::to_string(profile.size()) + " profiles for " + std::to_string(n) + " objects");
  state_ = std::make_unique<State>(n, flags, shapes, isos, done_line, profile, rows, params);
}

CleanPass::~CleanPass() = default;

size_t CleanPass::next() const {
  return state_->next;
}

CleanProgress CleanPass::progress() const {
  return state_->progress();
}

CleanProgress CleanPass::wait_for(size_t rows, size_t taken,
                                  std::chrono::microseconds timeout) const {
  return state_->wait_for(rows, taken, timeout);
}

void CleanPass::release_waiters() const {
  state_->release_waiters();
}

void CleanPass::take(const CleanZones& zones, const std::vector<uint8_t>& pair,
                     const std::vector<uint8_t>& any) {
  if (zones.first != state_->next || zones.offset.empty() ||
      zones.first + zones.offset.size() - 1 > state_->n)
    throw Error("internal: CleanPass::take given objects " + std::to_string(zones.first) + " .. " +
                std::to_string(zones.first + zones.offset.size() - 1) + ", expected " +
                std::to_string(state_->next) + " onwards");
  state_->take(zones, pair, any);
}

CleanResult CleanPass::finish(std::vector<Shape>& shapes, std::vector<Iso>& isos) {
  if (state_->next != state_->n)
    throw Error("internal: CleanPass::finish after " + std::to_string(state_->next) + " of " +
                std::to_string(state_->n) + " objects");
  return state_->finish(shapes, isos);
}

CleanResult clean_objects(std::vector<uint16_t>& flags, std::vector<Shape>& shapes,
                          std::vector<Iso>& isos, const std::vector<int64_t>& done_line,
                          const CleanZones& zones, CleanPairs pairs, const CleanParams& params) {
  const size_t n = shapes.size();
  if (pairs.profile.size() < n) pairs.profile.resize(n);
  if (pairs.rows.size() < n) {  // cleaning off: no pairs made
    pairs.rows.resize(n);
    clean_rows(shapes, 0, n, params.clean_margin, params.threads, pairs.rows);
  }
  if (pairs.any.size() < n) pairs.any.resize(n, 0);
  if (pairs.pair.size() < zones.neighbours.size()) pairs.pair.resize(zones.neighbours.size());
  CleanPass pass(n, flags, shapes, isos, done_line, pairs.profile, pairs.rows, params);
  CleanZones all_zones;
  const CleanZones* z = &zones;
  if (zones.offset.size() != n + 1) {  // cleaning off: no zones
    all_zones.offset.assign(n + 1, 0);
    z = &all_zones;
  }
  pass.take(*z, pairs.pair, pairs.any);
  return pass.finish(shapes, isos);
}

}  // namespace celeris::extract
