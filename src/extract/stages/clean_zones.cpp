#include "extract/stages/clean_zones.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace celeris::extract {

namespace {

// Objects are bucketed by size tier (a <= 2, 4, ..., 128 px) and, within a tier, by a grid of
// cells 10 times the tier's largest axis wide (its members' clean zones are about that wide,
// so a search covers a few cells whatever the tier). Around an object, each tier is searched
// out to the clean zone of the tier's largest member (plus a pixel for the float rounding of
// the zone test), or scanned whole when it has fewer members than that search has cells.
// Objects larger than the last tier, or with a position or axis that is not finite, are in the
// last tier, always scanned whole.
constexpr int kTiers = kZoneTiers;

int tier_of(const Shape& s) {
  if (!std::isfinite(s.mx) || !std::isfinite(s.my)) return kTiers;
  return zone_tier_of_axis(static_cast<float>(s.a));
}

// floor(q) clamped to [0, n - 1], 0 for a NaN; without std::floor, a library call on x86-64's
// baseline instruction set, made several times per object and tier.
int64_t clamped_floor(double q, int64_t n) {
  if (!(q >= 0)) return 0;
  if (q >= static_cast<double>(n)) return n - 1;
  return static_cast<int64_t>(q);
}

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

// One tier: its members' points grouped by cell (CSR over its grid's cells), by ascending index
// within a cell. The last tier has no grid: `start` is empty and `points` ascend.
struct Tier {
  double x0 = 0, y0 = 0;
  double per_cell = 1;  // 1 / the cell width: a product costs far less than a division

  int64_t nx = 1, ny = 1;
  std::vector<int64_t> start;  // nx * ny + 1
  std::vector<ZonePoint> points;
  int64_t cell_x(double x) const { return clamped_floor((x - x0) * per_cell, nx); }
  int64_t cell_y(double y) const { return clamped_floor((y - y0) * per_cell, ny); }
  int64_t cell_of(const ZonePoint& p) const { return cell_y(p.y) * nx + cell_x(p.x); }
};

// Objects per output chunk: each chunk's neighbours go to one buffer of its own, so the search
// allocates once per chunk rather than once per object, and threads take chunks dynamically
// (crowded patches have many neighbours, sparse ones few).
constexpr size_t kChunk = 256;

// The tiers of `points` (by tier number), each grid over the tiers' common bounding box.
void build_tiers(const std::vector<ZonePoint>& points, const std::vector<uint8_t>& tier,
                 Tier (&tiers)[kTiers + 1]) {
  double x0 = std::numeric_limits<double>::infinity(), y0 = x0, x1 = -x0, y1 = -x0;
  size_t count[kTiers + 1] = {};
  for (size_t i = 0; i < points.size(); ++i) {
    ++count[tier[i]];
    if (tier[i] == kTiers) continue;
    x0 = std::min(x0, points[i].x), x1 = std::max(x1, points[i].x);
    y0 = std::min(y0, points[i].y), y1 = std::max(y1, points[i].y);
  }
  for (int t = 0; t <= kTiers; ++t) tiers[t].points.resize(count[t]);
  for (int t = 0; t < kTiers; ++t) {
    Tier& tr = tiers[t];
    if (count[t] == 0) continue;
    tr.x0 = x0, tr.y0 = y0, tr.per_cell = 1.0 / (10.0 * zone_tier_max(t));
    tr.nx = static_cast<int64_t>((x1 - x0) * tr.per_cell) + 1;
    tr.ny = static_cast<int64_t>((y1 - y0) * tr.per_cell) + 1;
    tr.start.assign(tr.nx * tr.ny + 1, 0);
  }
  // Counting sort by cell, stable in the object index.
  for (size_t i = 0; i < points.size(); ++i)
    if (tier[i] != kTiers) ++tiers[tier[i]].start[tiers[tier[i]].cell_of(points[i]) + 1];
  std::vector<int64_t> fill[kTiers];
  for (int t = 0; t < kTiers; ++t) {
    std::vector<int64_t>& s = tiers[t].start;
    for (size_t c = 1; c < s.size(); ++c) s[c] += s[c - 1];
    if (!s.empty()) fill[t].assign(s.begin(), s.end() - 1);
  }
  size_t last = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    Tier& tr = tiers[tier[i]];
    if (tier[i] == kTiers)
      tr.points[last++] = points[i];
    else
      tr.points[fill[tier[i]][tr.cell_of(points[i])]++] = points[i];
  }
}

}  // namespace

CleanZones clean_zones(const std::vector<Shape>& shapes, int threads) {
  return clean_zones(shapes, 0, shapes.size(), threads);
}

CleanZones clean_zones(const std::vector<Shape>& shapes, size_t begin, size_t end, int threads) {
  const size_t n = end;  // the objects read
  CleanZones zones;
  zones.first = begin;
  zones.offset.assign(end - begin + 1, 0);
  if (end <= begin) return zones;
  std::vector<ZonePoint> points(n);
  std::vector<uint8_t> tier(n);
  // below[i]: the largest y of the objects before i that are in a grid (-inf if none), which no
  // earlier object exceeds: objects come in detection order, so this bounds the search rows
  // of i to those above about its own last row.
  std::vector<double> below(n);
  double top = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < n; ++i) {
    points[i] = zone_point(shapes[i], static_cast<uint32_t>(i));
    tier[i] = static_cast<uint8_t>(tier_of(shapes[i]));
    below[i] = top;
    if (tier[i] != kTiers) top = std::max(top, points[i].y);
  }
  Tier tiers[kTiers + 1];
  build_tiers(points, tier, tiers);

  const size_t nchunks = (end - begin + kChunk - 1) / kChunk;
  std::vector<std::vector<uint32_t>> found(nchunks);
#pragma omp parallel num_threads(threads)
  {
    std::vector<uint32_t> near;
#pragma omp for schedule(dynamic, 1)
    for (size_t chunk = 0; chunk < nchunks; ++chunk) {
      std::vector<uint32_t>& out = found[chunk];
      for (size_t i = begin + chunk * kChunk; i < std::min(end, begin + (chunk + 1) * kChunk);
           ++i) {
        const ZonePoint& si = points[i];
        size_t kept = 0;  // near[0, kept): the objects found
        auto consider = [&](const ZonePoint& p) {
          if (p.index < i && in_clean_zone(si.x, si.y, si.a, p.x, p.y, p.a)) {
            if (near.size() <= kept) near.resize(2 * kept + 16);
            near[kept++] = p.index;
          }
        };
        // The last tier ascends: none of its members from i on comes before i.
        for (const ZonePoint& p : tiers[kTiers].points) {
          if (p.index >= i) break;
          consider(p);
        }
        if (tier[i] == kTiers && (!std::isfinite(si.x) || !std::isfinite(si.y))) {
          for (uint32_t j = 0; j < i; ++j)  // compare with everything before it
            if (tier[j] != kTiers) consider(points[j]);
        } else if (below[i] > -std::numeric_limits<double>::infinity()) {
          for (int t = 0; t < kTiers; ++t) {
            const Tier& tr = tiers[t];
            if (tr.points.empty()) continue;
            const double r = (si.a + zone_tier_max(t)) * kCleanZone + 1.0;
            // A NaN or huge axis, or a search wider than the tier: the whole tier.
            const bool whole = !(r < 1e12);
            const int64_t cx0 = whole ? 0 : tr.cell_x(si.x - r);
            const int64_t cx1 = whole ? tr.nx - 1 : tr.cell_x(si.x + r);
            const int64_t cy0 = whole ? 0 : tr.cell_y(si.y - r);
            const int64_t cy1 = whole ? tr.ny - 1 : tr.cell_y(std::min(si.y + r, below[i]));
            if (whole ||
                (cx1 - cx0 + 1) * (cy1 - cy0 + 1) > static_cast<int64_t>(tr.points.size())) {
              for (const ZonePoint& p : tr.points) consider(p);
              continue;
            }
            // The cells of a row are one run of the tier's points. The test is written without
            // branches (an index is stored, then kept or overwritten): candidates pass it
            // unpredictably, and most runs are a few points long.
            for (int64_t cy = cy0; cy <= cy1; ++cy) {
              const int64_t k0 = tr.start[cy * tr.nx + cx0], k1 = tr.start[cy * tr.nx + cx1 + 1];
              if (near.size() < kept + static_cast<size_t>(k1 - k0))
                near.resize(2 * (kept + k1 - k0));
              uint32_t* out = near.data();
              for (int64_t k = k0; k < k1; ++k) {
                const ZonePoint& p = tr.points[k];
                out[kept] = p.index;
                kept += (p.index < i) & in_clean_zone(si.x, si.y, si.a, p.x, p.y, p.a);
              }
            }
          }
        }
        std::sort(near.begin(), near.begin() + kept);
        const auto last = std::unique(near.begin(), near.begin() + kept);
        out.insert(out.end(), near.begin(), last);
        zones.offset[i - begin + 1] = last - near.begin();
      }
    }
  }
  const size_t m = end - begin;
  for (size_t i = 0; i < m; ++i) zones.offset[i + 1] += zones.offset[i];
  zones.neighbours.resize(zones.offset[m]);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t chunk = 0; chunk < nchunks; ++chunk)
    std::copy(found[chunk].begin(), found[chunk].end(),
              zones.neighbours.begin() + zones.offset[chunk * kChunk]);
  return zones;
}

}  // namespace celeris::extract
