// FLUX_ISOCOR (measure_best.hpp) against its formula worked by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "extract/stages/measure_best.hpp"

namespace celeris::extract {
namespace {

TEST(Isocor, CorrectsTheIsophotalFluxForItsWings) {
  // 100 pixels at a threshold of 2 ADU holding 1000 ADU: a = 0.2 of the flux is at the threshold;
  // the Gaussian correction divides by 1 - 0.196099 a - 0.751208 a^2.
  const double a = 0.2, var = 400.0, flux = 1000.0;
  const IsocorResult r = isocor_flux(1000.0f, 400.0f, 100, 2.0f);
  EXPECT_NEAR(r.flux, flux / (1 - 0.196099 * a - 0.751208 * a * a), 1e-3);
  const double sig = var / (flux * flux);
  double da = a * std::sqrt(sig + 1.0 / 100);
  da = 0.196099 * da + 0.751208 * 2 * a * da;
  EXPECT_NEAR(r.fluxerr, std::sqrt(sig + da * da) * flux, 1e-3);
  // The fraction is capped at 1; a non-positive flux is left uncorrected, its error sqrt(var).
  EXPECT_NEAR(isocor_flux(10.0f, 4.0f, 100, 2.0f).flux, 10.0 / (1 - 0.196099 - 0.751208), 1e-3);
  const IsocorResult neg = isocor_flux(-5.0f, 9.0f, 10, 2.0f);
  EXPECT_FLOAT_EQ(neg.flux, -5.0f);
  EXPECT_FLOAT_EQ(neg.fluxerr, 3.0f);
}

}  // namespace
}  // namespace celeris::extract
