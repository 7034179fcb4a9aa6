#include "extract/stages/clean.hpp"
#include "extract/stages/clean_list.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace celeris::extract {

namespace {

void merge(size_t slave, size_t master, std::vector<uint16_t>& flags, std::vector<Shape>& shapes,
           std::vector<Iso>& isos) {
  Shape& ms = shapes[master];
  const Shape& ss = shapes[slave];
  ms.npix += ss.npix;
  ms.flux = static_cast<float>(ms.flux) + static_cast<float>(ss.flux);
  merge_iso(isos[master], isos[slave]);
  if (ss.peak > ms.peak) ms.peak = ss.peak;
  ms.xmin = std::min(ms.xmin, ss.xmin);
  ms.xmax = std::max(ms.xmax, ss.xmax);
  ms.ymin = std::min(ms.ymin, ss.ymin);
  ms.ymax = std::max(ms.ymax, ss.ymax);
  flags[master] |= flags[slave] & ~(kFlagBlended | kFlagNeighbours);
}

// SExtractor's ycmin / ycmax (clean.c addcleanobj): the lines above and below an object that
// its apertures may reach; they decide when it is written out, hence its NUMBER.
struct YLimits {
  int ycmin, ycmax;
};

YLimits ylimits(const Shape& s, int clean_margin) {
  float hh1 = static_cast<float>(s.cyy - s.cxy * s.cxy / (4.0 * s.cxx));
  hh1 = hh1 > 0.0f ? static_cast<float>(1 / std::sqrt(3 * hh1)) : 0.0f;
  const float hh2 = static_cast<float>(s.ymax - s.ymin + 1.0);
  const int margin = static_cast<int>((hh1 > hh2 ? hh1 : hh2) * 2.0 + 4.0 + 0.49999);
  const int yc = static_cast<int>(s.my + 0.49999);
  return {std::min(yc - clean_margin, static_cast<int>(s.ymin) - margin),
          std::max(yc + clean_margin, static_cast<int>(s.ymax) + margin)};
}

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
CleanResult clean_objects(std::vector<uint16_t>& flags, std::vector<Shape>& shapes,
                          std::vector<Iso>& isos, const std::vector<int64_t>& done_line,
                          const CleanZones& zones, CleanPairs pairs, const CleanParams& params) {
  const size_t n = shapes.size();
  CleanResult result;
  result.order.reserve(n);
  result.written_at.reserve(n);
  result.buffer_at.reserve(n);
  result.written_moment.reserve(n);
  // The list holds at most MEMORY_OBJSTACK entries (one, if that is not positive); its ycmin
  // index files entries by the rows of the buffer's write-out events.
  WriteOutSchedule schedule(params.buffer);
  const auto [row_lo, row_hi] = schedule.ymin_range();
  CleanList list(
      n, static_cast<size_t>(std::clamp<int64_t>(params.stack_size, 1, std::max<int64_t>(n, 1))),
      row_lo, row_hi);
  const double beta = params.clean_param;
  std::vector<CleanProfile>& profile = pairs.profile;
  // Profiles are recomputed lazily after a merge into their object.
  std::vector<char> profile_valid(profile.size(), 1);
  // Objects something has been merged into (their comparisons are no longer those precomputed).
  std::vector<uint8_t> changed(n, 0);
  bool any_changed = false;
  std::vector<size_t> victims;
  std::vector<std::pair<size_t, CleanPair>> met;  // (list position, answer)
  // SExtractor fixes an object's limits when it joins the clean list, from its shape then (as
  // detected, or grown by the victims it has just absorbed). Computed here, on the pass's own
  // thread: a parallel loop for them beforehand costs more than it saves (about 10 ns each).
  auto add = [&](size_t o) {
    const YLimits y = ylimits(shapes[o], params.clean_margin);
    list.push(o, y.ycmin, y.ycmax);
  };
  int64_t now = 0;  // the scan line of the write-outs below
  // Write-outs made so far because the stack was full: a moment is the scan line plus these
  // (blanking_view.hpp), so that such a write-out follows the merges made before it on its line.
  int64_t stack_full = 0;
  auto moment = [&](int64_t line) {
    return line == std::numeric_limits<int64_t>::max() ? line : line + stack_full;
  };
  auto write_out = [&](size_t li, bool amid_line = false) {
    result.order.push_back(list[li]);
    result.written_at.push_back(now);
    result.buffer_at.push_back(amid_line ? now + 1 : now);
    result.written_moment.push_back(moment(now));
    list.remove_at(li);
  };
  // At each of the buffer's write-out events, the objects whose apertures no longer reach the
  // buffer leave. SExtractor scans the list from its end, each removal moving the last entry
  // (already scanned, and staying) into the freed slot: the same as removing the qualifying
  // entries in decreasing list position.
  std::vector<size_t> leaving;
  auto events_before = [&](int64_t line) {
    schedule.events_before(line, [&](int64_t at, int64_t ymin) {
      now = at;
      leaving.clear();
      list.take_ycmin_at_most(ymin, [&](size_t li) { leaving.push_back(li); });
      for (size_t v = leaving.size(); v--;) write_out(leaving[v]);
    });
  };
  // The comparison of newcomer `in` with list entry o from their shapes now (SExtractor's).
  auto compare_afresh = [&](size_t in, size_t o) {
    if (!profile_valid[o]) profile[o] = CleanProfile(shapes[o], isos[o].dthresh, beta);
    profile_valid[o] = 1;
    return clean_pair(shapes[in], isos[in], profile[in], shapes[o], isos[o], profile[o], beta);
  };
  for (size_t in = 0; in < n; ++in) {
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
    if (params.compare_every_pair) {
      for (int64_t k = zones.offset[in]; k < zones.offset[in + 1]; ++k) {
        const size_t o = zones.neighbours[k];
        const int64_t li = list.position(o);
        if (li < 0) continue;
        const CleanPair c = compare_afresh(in, o);
        if (c != CleanPair::kNone) met.emplace_back(static_cast<size_t>(li), c);
      }
    } else if (pairs.any[in] || any_changed) {
      // Per pair: the answer made beforehand while o is as detected, else o compared afresh.
      for (int64_t k = zones.offset[in]; k < zones.offset[in + 1]; ++k) {
        const size_t o = zones.neighbours[k];
        CleanPair c = pairs.pair[k];
        if (!changed[o] && c == CleanPair::kNone) continue;
        const int64_t li = list.position(o);
        if (li < 0) continue;
        if (changed[o] && (c = compare_afresh(in, o)) == CleanPair::kNone) continue;
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
      merge(in, o, flags, shapes, isos);
      profile_valid[o] = 0;
      changed[o] = 1, any_changed = true;
      result.removed.push_back({in, done_line[in], o, in, moment(done_line[in])});
      eaten = true;
      break;
    }
    if (eaten) continue;
    for (size_t v = victims.size(); v--;) {
      const size_t li = victims[v];
      merge(list[li], in, flags, shapes, isos);
      result.removed.push_back({list[li], done_line[in], in, in, moment(done_line[in])});
      list.remove_at(li);
    }
    if (!victims.empty()) {
      profile_valid[in] = 0;
      changed[in] = 1, any_changed = true;
    }
    add(in);
  }
  events_before(std::numeric_limits<int64_t>::max());
  // Then the rest, always taking the first entry and moving the last one into its place.
  now = std::numeric_limits<int64_t>::max();
  while (!list.empty()) write_out(0);
  return result;
}

}  // namespace celeris::extract
