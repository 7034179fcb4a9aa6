#include "extract/stages/moments.hpp"
#include "extract/stages/shape_finish.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace celeris::extract {

namespace {
// A DGEO map's shift at a pixel (shape_sums.hpp's Shift).
struct DgeoShift {
  static constexpr bool kActive = true;
  const DgeoMap* map;
  void operator()(int32_t x, int32_t y, float& dx, float& dy) const {
    dx = map->dx(x, y);
    dy = map->dy(x, y);
  }
};

// The sums of pixels px(0 .. n), with the map's shifts if there is one.
template <class Pixels>
ShapeSums sums_of(const Pixels& px, int64_t n, float thresh, const DgeoMap* dgeo) {
  return dgeo ? shape_sums(px, n, thresh, DgeoShift{dgeo}) : shape_sums(px, n, thresh, NoShift{});
}

}  // namespace

Shape compute_shape(const ObjectView& object, float thresh, bool weighted, const DgeoMap* dgeo) {
  const auto px = [&](int64_t i) { return object[static_cast<size_t>(i)]; };
  const int64_t n = static_cast<int64_t>(object.size());
  return finish_shape(sums_of(px, n, thresh, dgeo), n, object.fixed_centre, object.cx, object.cy,
                      thresh, weighted);
}

Shape compute_shape_at(const ObjectView& parent, const int32_t* index, size_t n, float thresh,
                       bool weighted, const DgeoMap* dgeo) {
  const auto px = [&](int64_t k) { return parent[static_cast<size_t>(index[k])]; };
  const int64_t m = static_cast<int64_t>(n);
  return finish_shape(sums_of(px, m, thresh, dgeo), m, false, 0.0, 0.0, thresh, weighted);
}

namespace {
double c_atan2(double y, double x) {
  return std::atan2(y, x);
}
}  // namespace

Shape finish_shape(const ShapeSums& sums, int64_t npix, bool fixed_centre, double cx, double cy,
                   float thresh, bool weighted) {
  return finish_shape_with(
      sums, npix, fixed_centre, cx, cy, thresh, weighted, c_atan2,
      [](float t1t2) { return std::log(t1t2 < 1 ? t1t2 : shape_finish::kRatioCap); });
}

double shape_theta(const Shape& s) {
  return ellipse_theta(s.x2, s.y2, s.xy, c_atan2);
}

}  // namespace celeris::extract
