#include "extract/stages/measure_dgeo.hpp"

#include <algorithm>

namespace celeris::extract {

void dgeo_vignet(ImageView<const float> plane, const ApertureShape& s, double x, double y, int w,
                 int h, float* out) {
  std::fill(out, out + static_cast<size_t>(w) * h, 0.0f);
  const int width = static_cast<int>(plane.width), height = static_cast<int>(plane.height);
  // The map is read in strips along with the image: its rows are the buffer's.
  const int fymin = std::max(s.fymin, 0), fymax = std::min(s.fymax, height);
  const int ix = static_cast<int>(x + 0.49999), iy = static_cast<int>(y + 0.49999);
  if (ix < 0 || ix >= width || iy < fymin || iy >= fymax) return;
  const int x0 = ix - w / 2, y0 = iy - h / 2;
  for (int v = std::max(y0, fymin); v < std::min(y0 + h, fymax); ++v)
    for (int u = std::max(x0, 0); u < std::min(x0 + w, width); ++u)
      out[static_cast<size_t>(v - y0) * w + (u - x0)] = plane(u, v);
}

}  // namespace celeris::extract
