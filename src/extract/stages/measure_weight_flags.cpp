#include "extract/stages/measure_weight_flags.hpp"

#include <algorithm>

namespace celeris::extract {

float capped_detection_wthresh(float dwthresh) {
  // scan.c: cdwthresh = min(weight_thresh, BIG * WTHRESH_CONVFAC), in PIXTYPE (float).
  constexpr double kCap = 1e30 * 1e-4;
  return dwthresh > kCap ? static_cast<float>(kCap) : dwthresh;
}

void weight_flags(const ObjectList& objects, const std::vector<size_t>& order,
                  ImageView<const float> var, float wthresh, ImageView<const float> cdvar,
                  float cdwthresh, Objects& out) {
  const size_t n = order.size();
  out.flags_weight.assign(n, 0);
  out.nlowweight.assign(n, 0);
  out.nlowdweight.assign(n, 0);
  const int64_t w = cdvar.width, h = cdvar.height;
  auto low_detection_weight = [&](int64_t x, int64_t y) {
    for (int64_t yy = std::max<int64_t>(y - 1, 0); yy <= std::min<int64_t>(y + 1, h - 1); ++yy)
      for (int64_t xx = std::max<int64_t>(x - 1, 0); xx <= std::min<int64_t>(x + 1, w - 1); ++xx)
        if (cdvar(xx, yy) >= cdwthresh) return true;
    return false;
  };
  for (size_t i = 0; i < n; ++i) {
    int nw = 0, ndw = 0;
    for (const Pixel p : objects[order[i]]) {
      if (var(p.x, p.y) >= wthresh) ++nw;
      if (low_detection_weight(p.x, p.y)) ++ndw;
    }
    out.nlowweight[i] = nw;
    out.nlowdweight[i] = ndw;
    out.flags_weight[i] = static_cast<int16_t>((nw ? kLowWeight : 0) | (ndw ? kLowDWeight : 0));
  }
}

}  // namespace celeris::extract
