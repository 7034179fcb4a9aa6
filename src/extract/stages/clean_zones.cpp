#include "extract/stages/clean_zones.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace celeris::extract {

namespace {

// Objects are bucketed by size tier (a <= 2, 4, ..., 128 px) and by a grid of 64-pixel cells;
// around an object, each tier is searched out to the clean zone of the tier's largest member
// (plus a pixel for the float rounding of the zone test), or scanned whole when it has fewer
// members than that search has cells. Objects larger than the last tier, or with a position or
// axis that is not finite, are in the last tier, always scanned whole.
constexpr int kTiers = 7;
constexpr double kCell = 64.0;

float tier_max(int t) {
  return static_cast<float>(2 << t);
}

int tier_of(const Shape& s) {
  if (!std::isfinite(s.mx) || !std::isfinite(s.my)) return kTiers;
  const float a = static_cast<float>(s.a);
  int t = 0;
  while (t < kTiers && !(a <= tier_max(t))) ++t;
  return t;
}

struct Grid {
  double x0 = 0, y0 = 0;
  int64_t nx = 1, ny = 1;
  int64_t cell_x(double x) const {
    return std::clamp<int64_t>(static_cast<int64_t>(std::floor((x - x0) / kCell)), 0, nx - 1);
  }
  int64_t cell_y(double y) const {
    return std::clamp<int64_t>(static_cast<int64_t>(std::floor((y - y0) / kCell)), 0, ny - 1);
  }
};

// What the zone test reads of an object, packed (24 bytes instead of a 152-byte Shape spread
// over three cache lines), so that a cell's candidates are read as one contiguous run.
struct ZonePoint {
  double x, y;
  float a;
  uint32_t index;
};

ZonePoint zone_point(const Shape& s, uint32_t index) {
  return {s.mx, s.my, static_cast<float>(s.a), index};
}

// One tier: its members' points grouped by cell (CSR over the grid's cells), by ascending
// index within a cell. The last tier has no cells: `start` is empty and `points` ascend.
struct Tier {
  std::vector<int64_t> start;  // nx * ny + 1
  std::vector<ZonePoint> points;
};

// Objects per output chunk: each chunk's neighbours go to one buffer of its own, so the search
// allocates once per chunk rather than once per object, and threads take chunks dynamically
// (crowded patches have many neighbours, sparse ones few).
constexpr size_t kChunk = 256;

}  // namespace

CleanZones clean_zones(const std::vector<Shape>& shapes, int threads) {
  const size_t n = shapes.size();
  CleanZones zones;
  zones.offset.assign(n + 1, 0);
  if (n == 0) return zones;
  std::vector<uint8_t> tier(n);
  Grid g;
  double x1 = -std::numeric_limits<double>::infinity(), y1 = x1;
  g.x0 = g.y0 = std::numeric_limits<double>::infinity();
  size_t count[kTiers + 1] = {};
  for (size_t i = 0; i < n; ++i) {
    tier[i] = static_cast<uint8_t>(tier_of(shapes[i]));
    ++count[tier[i]];
    if (tier[i] == kTiers) continue;
    g.x0 = std::min(g.x0, shapes[i].mx), x1 = std::max(x1, shapes[i].mx);
    g.y0 = std::min(g.y0, shapes[i].my), y1 = std::max(y1, shapes[i].my);
  }
  if (x1 >= g.x0) {
    g.nx = static_cast<int64_t>((x1 - g.x0) / kCell) + 1;
    g.ny = static_cast<int64_t>((y1 - g.y0) / kCell) + 1;
  }
  const int64_t ncell = g.nx * g.ny;
  auto cell_of = [&](size_t i) { return g.cell_y(shapes[i].my) * g.nx + g.cell_x(shapes[i].mx); };
  std::vector<int64_t> cell(n);
  Tier tiers[kTiers + 1];
  // Counting sort of each tier by cell, stable in the object index.
  for (int t = 0; t < kTiers; ++t)
    if (count[t] > 0) tiers[t].start.assign(ncell + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    if (tier[i] == kTiers) continue;
    cell[i] = cell_of(i);
    ++tiers[tier[i]].start[cell[i] + 1];
  }
  for (int t = 0; t <= kTiers; ++t) {
    Tier& tr = tiers[t];
    tr.points.resize(count[t]);
    for (int64_t c = 0; c < static_cast<int64_t>(tr.start.size()) - 1; ++c)
      tr.start[c + 1] += tr.start[c];
  }
  {
    std::vector<int64_t> fill[kTiers];
    for (int t = 0; t < kTiers; ++t)
      if (count[t] > 0) fill[t].assign(tiers[t].start.begin(), tiers[t].start.end() - 1);
    size_t last = 0;
    for (size_t i = 0; i < n; ++i) {
      const ZonePoint p = zone_point(shapes[i], static_cast<uint32_t>(i));
      if (tier[i] == kTiers)
        tiers[kTiers].points[last++] = p;
      else
        tiers[tier[i]].points[fill[tier[i]][cell[i]]++] = p;
    }
  }

  const size_t nchunks = (n + kChunk - 1) / kChunk;
  std::vector<std::vector<uint32_t>> found(nchunks);
#pragma omp parallel num_threads(threads)
  {
    std::vector<uint32_t> near;
#pragma omp for schedule(dynamic, 1)
    for (size_t chunk = 0; chunk < nchunks; ++chunk) {
      std::vector<uint32_t>& out = found[chunk];
      for (size_t i = chunk * kChunk; i < std::min(n, (chunk + 1) * kChunk); ++i) {
        const Shape& s = shapes[i];
        const ZonePoint si = zone_point(s, static_cast<uint32_t>(i));
        near.clear();
        auto consider = [&](const ZonePoint& p) {
          if (p.index < i && in_clean_zone(si.x, si.y, si.a, p.x, p.y, p.a))
            near.push_back(p.index);
        };
        // The last tier ascends: none of its members from i on comes before i.
        for (const ZonePoint& p : tiers[kTiers].points) {
          if (p.index >= i) break;
          consider(p);
        }
        if (!std::isfinite(s.mx) || !std::isfinite(s.my)) {  // compare with everything before it
          for (uint32_t j = 0; j < i; ++j)
            if (tier[j] != kTiers) consider(zone_point(shapes[j], j));
        } else {
          for (int t = 0; t < kTiers; ++t) {
            const Tier& tr = tiers[t];
            if (tr.points.empty()) continue;
            const double r = (si.a + tier_max(t)) * kCleanZone + 1.0;
            const int64_t cx0 = r < 1e12 ? g.cell_x(s.mx - r) : 0;
            const int64_t cx1 = r < 1e12 ? g.cell_x(s.mx + r) : g.nx - 1;
            const int64_t cy0 = r < 1e12 ? g.cell_y(s.my - r) : 0;
            const int64_t cy1 = r < 1e12 ? g.cell_y(s.my + r) : g.ny - 1;
            // A NaN or huge axis, or a search wider than the tier: the whole tier.
            if (!(r < 1e12) ||
                (cx1 - cx0 + 1) * (cy1 - cy0 + 1) > static_cast<int64_t>(tr.points.size())) {
              for (const ZonePoint& p : tr.points) consider(p);
              continue;
            }
            for (int64_t cy = cy0; cy <= cy1; ++cy) {
              const ZonePoint* p = tr.points.data() + tr.start[cy * g.nx + cx0];
              const ZonePoint* end = tr.points.data() + tr.start[cy * g.nx + cx1 + 1];
              for (; p < end; ++p) consider(*p);
            }
          }
        }
        std::sort(near.begin(), near.end());
        near.erase(std::unique(near.begin(), near.end()), near.end());
        out.insert(out.end(), near.begin(), near.end());
        zones.offset[i + 1] = static_cast<int64_t>(near.size());
      }
    }
  }
  for (size_t i = 0; i < n; ++i) zones.offset[i + 1] += zones.offset[i];
  zones.neighbours.resize(zones.offset[n]);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t chunk = 0; chunk < nchunks; ++chunk)
    std::copy(found[chunk].begin(), found[chunk].end(),
              zones.neighbours.begin() + zones.offset[chunk * kChunk]);
  return zones;
}

}  // namespace celeris::extract
