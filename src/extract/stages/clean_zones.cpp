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

// One tier: its members by cell (CSR over the grid's cells) and in a flat list.
struct Tier {
  std::vector<int64_t> start;  // nx * ny + 1
  std::vector<uint32_t> by_cell;
  std::vector<uint32_t> members;
};

}  // namespace

CleanZones clean_zones(const std::vector<Shape>& shapes, int threads) {
  const size_t n = shapes.size();
  CleanZones zones;
  zones.offset.assign(n + 1, 0);
  if (n == 0) return zones;
  std::vector<int> tier(n);
  Grid g;
  double x1 = -std::numeric_limits<double>::infinity(), y1 = x1;
  g.x0 = g.y0 = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < n; ++i) {
    tier[i] = tier_of(shapes[i]);
    if (tier[i] == kTiers) continue;
    g.x0 = std::min(g.x0, shapes[i].mx), x1 = std::max(x1, shapes[i].mx);
    g.y0 = std::min(g.y0, shapes[i].my), y1 = std::max(y1, shapes[i].my);
  }
  if (x1 >= g.x0) {
    g.nx = static_cast<int64_t>((x1 - g.x0) / kCell) + 1;
    g.ny = static_cast<int64_t>((y1 - g.y0) / kCell) + 1;
  }
  const int64_t ncell = g.nx * g.ny;
  Tier tiers[kTiers + 1];
  for (size_t i = 0; i < n; ++i) tiers[tier[i]].members.push_back(static_cast<uint32_t>(i));
  for (int t = 0; t < kTiers; ++t) {
    Tier& tr = tiers[t];
    if (tr.members.empty()) continue;
    tr.start.assign(ncell + 1, 0);
    auto cell_of = [&](uint32_t i) {
      return g.cell_y(shapes[i].my) * g.nx + g.cell_x(shapes[i].mx);
    };
    for (uint32_t i : tr.members) ++tr.start[cell_of(i) + 1];
    for (int64_t c = 0; c < ncell; ++c) tr.start[c + 1] += tr.start[c];
    tr.by_cell.resize(tr.members.size());
    std::vector<int64_t> fill(tr.start.begin(), tr.start.end() - 1);
    for (uint32_t i : tr.members) tr.by_cell[fill[cell_of(i)]++] = i;
  }

  std::vector<std::vector<uint32_t>> found(n);
#pragma omp parallel num_threads(threads)
  {
    std::vector<uint32_t> near;
#pragma omp for schedule(dynamic, 256)
    for (size_t i = 0; i < n; ++i) {
      const Shape& s = shapes[i];
      near.clear();
      auto consider = [&](uint32_t j) {
        if (j < i && in_clean_zone(s, shapes[j])) near.push_back(j);
      };
      for (uint32_t j : tiers[kTiers].members) consider(j);
      if (!std::isfinite(s.mx) || !std::isfinite(s.my)) {  // compare with everything before it
        for (uint32_t j = 0; j < i; ++j) consider(j);
      } else {
        for (int t = 0; t < kTiers; ++t) {
          const Tier& tr = tiers[t];
          if (tr.members.empty()) continue;
          const double r = (static_cast<float>(s.a) + tier_max(t)) * kCleanZone + 1.0;
          if (!(r < 1e12)) {  // a NaN or huge axis: the whole tier
            for (uint32_t j : tr.members) consider(j);
            continue;
          }
          const int64_t cx0 = g.cell_x(s.mx - r), cx1 = g.cell_x(s.mx + r);
          const int64_t cy0 = g.cell_y(s.my - r), cy1 = g.cell_y(s.my + r);
          if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) > static_cast<int64_t>(tr.members.size())) {
            for (uint32_t j : tr.members) consider(j);
            continue;
          }
          for (int64_t cy = cy0; cy <= cy1; ++cy)
            for (int64_t k = tr.start[cy * g.nx + cx0]; k < tr.start[cy * g.nx + cx1 + 1]; ++k)
              consider(tr.by_cell[k]);
        }
      }
      std::sort(near.begin(), near.end());
      near.erase(std::unique(near.begin(), near.end()), near.end());
      found[i].assign(near.begin(), near.end());
    }
  }
  for (size_t i = 0; i < n; ++i) zones.offset[i + 1] = zones.offset[i] + found[i].size();
  zones.neighbours.resize(zones.offset[n]);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = 0; i < n; ++i)
    std::copy(found[i].begin(), found[i].end(), zones.neighbours.begin() + zones.offset[i]);
  return zones;
}

}  // namespace celeris::extract
