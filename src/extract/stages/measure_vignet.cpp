#include "extract/stages/measure_vignet.hpp"

#include <algorithm>
#include <cmath>

namespace celeris::extract {

void vignet(const PhotometryField& f, const ApertureShape& s, double x, double y, int w, int h,
            float* out) {
  std::fill(out, out + static_cast<size_t>(w) * h, kVignetBlank);
  const int width = static_cast<int>(f.value.width), height = static_cast<int>(f.value.height);
  const int fymin = std::max(s.fymin, 0), fymax = std::min(s.fymax, height);
  const int ix = static_cast<int>(x + 0.49999), iy = static_cast<int>(y + 0.49999);
  // copyimage: nothing at all when the centre pixel is off the frame or the buffer.
  if (ix < 0 || ix >= width || iy < fymin || iy >= fymax) return;
  const int x0 = ix - w / 2, y0 = iy - h / 2;
  for (int v = std::max(y0, fymin); v < std::min(y0 + h, fymax); ++v)
    for (int u = std::max(x0, 0); u < std::min(x0 + w, width); ++u) {
      const float p = f.value(u, v);
      const bool blanked = std::isnan(p) || (f.mask_type != MaskType::None &&
                                             f.blanked(u, v, s.id, s.time, s.moment));
      out[static_cast<size_t>(v - y0) * w + (u - x0)] = blanked ? kVignetBlank : p;
    }
}

}  // namespace celeris::extract
