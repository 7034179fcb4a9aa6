// Float64 reference of SPP, straight from eqs. (1)-(5), single-threaded, for the tests.
#include <cmath>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "spp_math.hpp"

namespace celeris::hyperspectral {

std::vector<double> spp_reference(const std::vector<double>& bsq, int bands, int lines, int samples,
                                  int window, std::vector<double>* alpha_out) {
  check_window(window);
  const size_t np = static_cast<size_t>(lines) * samples;
  if (bands <= 0 || np == 0) throw Error("spp: empty cube");
  if (bsq.size() != np * bands) throw Error("spp_reference: data size mismatch");
  auto y = [&](int b, size_t p) { return bsq[b * np + p]; };

  std::vector<double> c(bands, 0.0), norm(np, 0.0);
  for (int b = 0; b < bands; ++b) {
    for (size_t p = 0; p < np; ++p) c[b] += y(b, p);
    c[b] /= static_cast<double>(np);
  }
  for (size_t p = 0; p < np; ++p) {
    for (int b = 0; b < bands; ++b) norm[p] += y(b, p) * y(b, p);
    norm[p] = std::sqrt(norm[p]);
  }
  const int d = window / 2;
  std::vector<double> out(bsq.size());
  if (alpha_out) alpha_out->assign(np, 0.0);
  for (int i = 0; i < lines; ++i) {
    for (int j = 0; j < samples; ++j) {
      const size_t p = static_cast<size_t>(i) * samples + j;
      double sum_bg = 0, sum_b = 0;
      for (int r = i - d; r <= i + d; ++r) {
        for (int s = j - d; s <= j + d; ++s) {
          if (r < 0 || r >= lines || s < 0 || s >= samples || (r == i && s == j)) continue;
          const size_t q = static_cast<size_t>(r) * samples + s;
          double gamma;
          if (norm[p] == 0 || norm[q] == 0) {
            gamma = sppmath::zero_norm_angle<double>(norm[p] == 0, norm[q] == 0);
          } else {
            double d2 = 0;
            for (int b = 0; b < bands; ++b) {
              const double diff = y(b, p) / norm[p] - y(b, q) / norm[q];
              d2 += diff * diff;
            }
            gamma = sppmath::angle_from_unit_d2(d2);
          }
          const double beta = sppmath::beta_raw<double>(r - i, s - j);
          sum_bg += beta * gamma;
          sum_b += beta;
        }
      }
      const double alpha = sum_b > 0 ? sum_bg / sum_b : 0.0;  // beta renormalised (eq. 3)
      if (alpha_out) (*alpha_out)[p] = alpha;
      const double inv_rho = 1.0 / sppmath::rho(alpha);
      for (int b = 0; b < bands; ++b) out[b * np + p] = sppmath::displace(y(b, p), c[b], inv_rho);
    }
  }
  return out;
}

}  // namespace celeris::hyperspectral
