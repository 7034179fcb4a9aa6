#include "extract/stages/clean.hpp"
#include "extract/sextractor/pi.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <set>
#include <unordered_map>
#include <utility>

namespace celeris::extract {

namespace {

constexpr double kCleanZone = 10.0;  // double, as SExtractor: rlim * 100 is not rounded to float

// Moffat-like profile of object o, amp (1 + alpha r^2)^-beta, reaching the detection threshold
// on the isophote of area fdnpix; evaluated at offset (dx, dy) from its centre.
struct Profile {
  double amp = 0, alpha = 0;
  Profile(const Shape& s, float dthresh, double beta) {
    const double unitarea = kSexPi * static_cast<float>(s.a) * static_cast<float>(s.b);
    amp = static_cast<float>(s.flux) / (2 * unitarea * s.abcor);
    alpha = (std::pow(amp / dthresh, 1.0 / beta) - 1) * unitarea / s.npix;
  }
  // Returns whether the profile exceeds `level` at (dx, dy), as SExtractor's test.
  bool above(const Shape& s, float dx, float dy, double beta, float level) const {
    const float cxx = static_cast<float>(s.cxx), cyy = static_cast<float>(s.cyy),
                cxy = static_cast<float>(s.cxy);
    const double val = 1 + alpha * (cxx * dx * dx + cyy * dy * dy + cxy * dx * dy);
    return val > 1.0 && static_cast<float>(val < 1e10 ? amp * std::pow(val, -beta) : 0.0) > level;
  }
};

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

// SExtractor compares each newcomer with every object of its clean list, in list order. Only
// objects within CLEAN_ZONE x (a_in + a) can interact, so the list is indexed by a grid of
// cells and only nearby objects are visited, still in list order, which keeps the result
// identical to the full scan. The index holds the list's objects only (at most MEMORY_OBJSTACK),
// so a size tier with few members is scanned whole rather than cell by cell.
class CleanList {
 public:
  CleanList(const std::vector<Shape>& shapes) : shapes_(shapes), slot_(shapes.size()) {}

  const std::vector<size_t>& entries() const { return list_; }
  // The list position of object o, -1 when it is not in the list.
  int64_t position(size_t o) const { return slot_[o].pos; }
  std::vector<size_t>& entries() { return list_; }

  void push(size_t o) {
    Slot& sl = slot_[o];
    sl.pos = static_cast<int64_t>(list_.size());
    list_.push_back(o);
    sl.tier = tier(static_cast<float>(shapes_[o].a));
    sl.key = key(shapes_[o].mx, shapes_[o].my);
    Tier& t = tiers_[sl.tier];
    sl.in_tier = t.members.size();
    t.members.push_back(o);
    if (sl.tier < kTiers) {
      std::vector<size_t>& c = t.cells[sl.key];
      sl.in_cell = c.size();
      c.push_back(o);
    }
  }
  // SExtractor's subcleanobj: the last entry takes the freed slot.
  void remove_at(size_t li) {
    const size_t o = list_[li];
    Slot& sl = slot_[o];
    Tier& t = tiers_[sl.tier];
    swap_remove(t.members, sl.in_tier,
                [&](size_t moved) -> size_t& { return slot_[moved].in_tier; });
    if (sl.tier < kTiers) {
      auto it = t.cells.find(sl.key);
      swap_remove(it->second, sl.in_cell,
                  [&](size_t moved) -> size_t& { return slot_[moved].in_cell; });
      if (it->second.empty()) t.cells.erase(it);
    }
    sl.pos = -1;
    if (li + 1 != list_.size()) {
      list_[li] = list_.back();
      slot_[list_[li]].pos = static_cast<int64_t>(li);
    }
    list_.pop_back();
  }
  // List positions of the objects that may lie within the clean zone of (x, y, a), ascending.
  // Objects are indexed by grids, one per size tier (a <= 2, 4, 8, ... px), each searched out
  // to the clean zone of its largest member; objects larger than the last tier are always
  // visited.
  void candidates(double x, double y, float a, std::vector<size_t>& out) const {
    out.clear();
    for (size_t o : tiers_[kTiers].members) out.push_back(static_cast<size_t>(slot_[o].pos));
    for (int t = 0; t < kTiers; ++t) {
      const Tier& tr = tiers_[t];
      if (tr.members.empty()) continue;
      const double r = (a + tier_max(t)) * kCleanZone + 1.0;
      const int64_t cx0 = cell(x - r), cx1 = cell(x + r), cy0 = cell(y - r), cy1 = cell(y + r);
      if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) > static_cast<int64_t>(tr.members.size())) {
        for (size_t o : tr.members) out.push_back(static_cast<size_t>(slot_[o].pos));
        continue;
      }
      for (int64_t cy = cy0; cy <= cy1; ++cy)
        for (int64_t cx = cx0; cx <= cx1; ++cx) {
          auto it = tr.cells.find(cy * kStride + cx);
          if (it == tr.cells.end()) continue;
          for (size_t o : it->second) out.push_back(static_cast<size_t>(slot_[o].pos));
        }
    }
    std::sort(out.begin(), out.end());
  }

 private:
  static constexpr double kCell = 64.0;
  static constexpr int kTiers = 7;  // a <= 2, 4, ..., 128 px; larger objects: tier kTiers
  static float tier_max(int t) { return static_cast<float>(2 << t); }
  static int tier(float a) {
    int t = 0;
    while (t < kTiers && !(a <= tier_max(t))) ++t;
    return t;
  }
  static constexpr int64_t kStride = 1 << 20;
  static int64_t cell(double v) { return static_cast<int64_t>(std::floor(v / kCell)); }
  static int64_t key(double x, double y) { return cell(y) * kStride + cell(x); }
  // Removes v[i] by moving the last element into its place; index_of(moved) is that element's
  // recorded index.
  template <class IndexOf>
  static void swap_remove(std::vector<size_t>& v, size_t i, IndexOf&& index_of) {
    if (i + 1 != v.size()) {
      v[i] = v.back();
      index_of(v[i]) = i;
    }
    v.pop_back();
  }

  struct Slot {
    int64_t pos = -1;  // list position
    int tier = 0;
    int64_t key = 0;  // grid cell
    size_t in_tier = 0, in_cell = 0;
  };
  struct Tier {
    std::vector<size_t> members;  // the list's objects of this tier, in no order
    std::unordered_map<int64_t, std::vector<size_t>> cells;
  };
  const std::vector<Shape>& shapes_;
  std::vector<size_t> list_;
  std::vector<Slot> slot_;
  Tier tiers_[kTiers + 1];
};

}  // namespace

CleanResult clean_objects(std::vector<uint16_t>& flags, std::vector<Shape>& shapes,
                          std::vector<Iso>& isos, const std::vector<int64_t>& done_line,
                          const CleanParams& params) {
  CleanResult result;
  CleanList clean(shapes);
  std::vector<size_t> victims, near;
  std::vector<YLimits> ylim(shapes.size(), YLimits{0, 0});
  std::vector<size_t>& list = clean.entries();
  // Indexes of the list for the two write-out rules, which SExtractor applies by scanning the
  // whole list: the entries by (ycmax, position) and a lazy min-heap of (ycmin, object).
  std::set<std::pair<int, size_t>> by_ycmax;
  std::priority_queue<std::pair<int, size_t>, std::vector<std::pair<int, size_t>>, std::greater<>>
      by_ycmin;
  auto add = [&](size_t o) {  // after ylim[o] is set
    clean.push(o);
    by_ycmax.emplace(ylim[o].ycmax, list.size() - 1);
    by_ycmin.emplace(ylim[o].ycmin, o);
  };
  // SExtractor's subcleanobj: the last entry takes the freed slot.
  auto remove_at = [&](size_t li) {
    const size_t last = list.size() - 1;
    by_ycmax.erase({ylim[list[li]].ycmax, li});
    if (li != last) {
      by_ycmax.erase({ylim[list[last]].ycmax, last});
      by_ycmax.emplace(ylim[list[last]].ycmax, li);
    }
    clean.remove_at(li);
  };
  int64_t now = 0;  // the scan line of the write-outs below
  auto write_out = [&](size_t li) {
    result.order.push_back(list[li]);
    result.written_at.push_back(now);
    remove_at(li);
  };
  // At each of the buffer's write-out events, the objects whose apertures no longer reach the
  // buffer leave. SExtractor scans the list from its end, each removal moving the last entry
  // (already scanned, and staying) into the freed slot: the same as removing the qualifying
  // entries in decreasing list position.
  WriteOutSchedule schedule(params.buffer);
  std::vector<size_t> leaving;
  auto events_before = [&](int64_t line) {
    schedule.events_before(line, [&](int64_t at, int64_t ymin) {
      now = at;
      leaving.clear();
      while (!by_ycmin.empty() && by_ycmin.top().first <= ymin) {
        const int64_t li = clean.position(by_ycmin.top().second);
        if (li >= 0) leaving.push_back(static_cast<size_t>(li));
        by_ycmin.pop();  // objects never return to the list
      }
      std::sort(leaving.begin(), leaving.end(), std::greater<>());
      for (size_t li : leaving) write_out(li);
    });
  };
  const double beta = params.clean_param;
  for (size_t in = 0; in < shapes.size(); ++in) {
    events_before(done_line[in]);
    // A full list first writes out the object with the smallest ycmax (the first such).
    if (static_cast<int64_t>(list.size()) >= params.stack_size && !list.empty()) {
      now = done_line[in];
      write_out(by_ycmax.begin()->second);
    }
    if (!params.enabled) {
      ylim[in] = ylimits(shapes[in], params.clean_margin);
      add(in);
      continue;
    }
    const Shape& sin = shapes[in];
    const Profile pin(sin, isos[in].dthresh, beta);  // obj->dthresh (weights: per object)
    victims.clear();
    bool eaten = false;
    clean.candidates(sin.mx, sin.my, static_cast<float>(sin.a), near);
    for (size_t li : near) {
      const size_t o = clean.entries()[li];
      const Shape& so = shapes[o];
      const float dx = static_cast<float>(sin.mx - so.mx), dy = static_cast<float>(sin.my - so.my);
      float rlim = static_cast<float>(sin.a) + static_cast<float>(so.a);
      rlim *= rlim;
      const float d2 = dx * dx + dy * dy;  // float, compared in double
      if (!(d2 < rlim * kCleanZone * kCleanZone)) continue;
      if (static_cast<float>(so.flux) < static_cast<float>(sin.flux)) {
        if (pin.above(sin, dx, dy, beta, isos[o].mthresh)) victims.push_back(li);
      } else {
        const Profile po(so, isos[o].dthresh, beta);
        if (po.above(so, dx, dy, beta, isos[in].mthresh)) {
          merge(in, o, flags, shapes, isos);
          result.removed.push_back({in, done_line[in], o, in});
          eaten = true;
          break;
        }
      }
    }
    if (eaten) continue;
    for (size_t v = victims.size(); v--;) {
      const size_t li = victims[v];
      merge(clean.entries()[li], in, flags, shapes, isos);
      result.removed.push_back({clean.entries()[li], done_line[in], in, in});
      remove_at(li);
    }
    // SExtractor fixes the limits when the object joins the clean list (after it has eaten its
    // victims); objects it absorbs later widen its box but not these limits.
    ylim[in] = ylimits(shapes[in], params.clean_margin);
    add(in);
  }
  events_before(std::numeric_limits<int64_t>::max());
  // Then the rest, always taking the first entry and moving the last one into its place.
  now = std::numeric_limits<int64_t>::max();
  while (!list.empty()) write_out(0);
  return result;
}

}  // namespace celeris::extract
