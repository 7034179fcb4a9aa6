#include "extract/stages/vignet_shift.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "extract/stages/measure_vignet.hpp"

namespace celeris::extract {

namespace {
constexpr double kPi = 3.1415926535898;  // SExtractor's PI (define.h), not M_PI
constexpr double kInterpFac = 4.0;       // INTERPFAC
}  // namespace

double vignet_shift_kernel(float x) {
  // The comparisons are in double (x promoted), as the macro's literals are doubles.
  if (x < 1e-5 && x > -1e-5) return 1.0;
  if (x > kInterpFac || x < -kInterpFac) return 0.0;
  const double xd = x;
  // sinf takes the double products rounded to float; the product of the two sines is a float,
  // promoted to double for the division.
  const float sines =
      std::sin(static_cast<float>(kPi * xd)) * std::sin(static_cast<float>(kPi / kInterpFac * xd));
  return sines / (kPi * kPi / kInterpFac * xd * xd);
}

void vignet_shift_mask(float dx, float dy, float mask[kVignetShiftTaps * kVignetShiftTaps]) {
  const int idmx = (kVignetShiftTaps - (dx > 0.0 ? 1 : 0)) / 2;
  const int idmy = (kVignetShiftTaps - (dy > 0.0 ? 1 : 0)) / 2;
  const float ddx0 = -idmx - dx;
  float ddy = -idmy - dy;
  float sum = 0.0f;
  for (int my = 0; my < kVignetShiftTaps; ++my, ddy = static_cast<float>(ddy + 1.0)) {
    float ddx = ddx0;
    const float fy = static_cast<float>(vignet_shift_kernel(ddy));
    for (int mx = 0; mx < kVignetShiftTaps; ++mx, ddx = static_cast<float>(ddx + 1.0)) {
      // fy * INTERPF(ddx) in double, stored as float; the sum is of the stored floats.
      const float m = static_cast<float>(fy * vignet_shift_kernel(ddx));
      mask[my * kVignetShiftTaps + mx] = m;
      sum += m;
    }
  }
  for (int k = 0; k < kVignetShiftTaps * kVignetShiftTaps; ++k) mask[k] /= sum;
}

void vignet_shift(const PhotometryField& f, const ApertureShape& s, double x, double y, int w,
                  int h, float* out) {
  std::fill(out, out + static_cast<size_t>(w) * h, 0.0f);
  const float xf = static_cast<float>(x), yf = static_cast<float>(y);  // copyimage_center's floats
  const int ix = static_cast<int>(xf), iy = static_cast<int>(yf);
  const int width = static_cast<int>(f.value.width), height = static_cast<int>(f.value.height);
  const int fymin = std::max(s.fymin, 0), fymax = std::min(s.fymax, height);
  if (ix < 0 || ix >= width || iy < fymin || iy >= fymax) return;
  const float dx = xf - static_cast<float>(ix), dy = yf - static_cast<float>(iy);
  float mask[kVignetShiftTaps * kVignetShiftTaps];
  vignet_shift_mask(dx, dy, mask);
  const int idmx = (kVignetShiftTaps - (dx > 0.0 ? 1 : 0)) / 2;
  const int idmy = (kVignetShiftTaps - (dy > 0.0 ? 1 : 0)) / 2;
  const int x0 = ix - w / 2 - idmx, y0 = iy - h / 2 - idmy;
  // The (w + 7) x (h + 7) pixels the mask reaches, as SExtractor's buffer holds them; NaN marks
  // those off the frame or the buffer, which SExtractor leaves out of the sums.
  const int pw = w + kVignetShiftTaps - 1, ph = h + kVignetShiftTaps - 1;
  std::vector<float> patch(static_cast<size_t>(pw) * ph, NAN);
  for (int py = std::max(y0, fymin); py < std::min(y0 + ph, fymax); ++py)
    for (int px = std::max(x0, 0); px < std::min(x0 + pw, width); ++px) {
      const float p = f.value(px, py);
      const bool blanked = std::isnan(p) || (f.mask_type != MaskType::None &&
                                             f.blanked(px, py, s.id, s.time, s.moment));
      patch[static_cast<size_t>(py - y0) * pw + (px - x0)] = blanked ? kVignetBlank : p;
    }
  // SExtractor adds the 64 shifted copies of the vignet one after the other, so each output
  // pixel sums its terms in float in the mask's order, which these loops keep (no contraction
  // into FMA: neither build targets more than baseline x86-64).
  for (int my = 0; my < kVignetShiftTaps; ++my)
    for (int mx = 0; mx < kVignetShiftTaps; ++mx) {
      const float m = mask[my * kVignetShiftTaps + mx];
      for (int v = 0; v < h; ++v) {
        const float* in = &patch[static_cast<size_t>(v + my) * pw + mx];
        float* row = out + static_cast<size_t>(v) * w;
        for (int u = 0; u < w; ++u)
          if (!std::isnan(in[u])) row[u] += m * in[u];
      }
    }
}

}  // namespace celeris::extract
