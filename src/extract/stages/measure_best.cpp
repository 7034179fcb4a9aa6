#include "extract/stages/measure_best.hpp"

#include <cmath>

namespace celeris::extract {

IsocorResult isocor_flux(float flux, float fluxvar, int32_t fdnpix, float dthresh) {
  // The fraction of the flux at the threshold, in float as SExtractor forms it.
  double ati = flux > 0.0f ? static_cast<float>(fdnpix * dthresh / flux) : 0.0;
  if (ati > 1.0)
    ati = 1.0;
  else if (ati < 0.0)
    ati = 0.0;
  IsocorResult r;
  r.flux = static_cast<float>(flux / (1.0 - 0.196099 * ati - 0.751208 * ati * ati));
  if (flux > 0.0f) {
    const double sigtv = static_cast<float>(fluxvar / (flux * flux));
    double dati = fdnpix ? ati * std::sqrt(sigtv + 1.0 / fdnpix) : 0.0;
    dati = 0.196099 * dati + 0.751208 * 2 * ati * dati;
    r.fluxerr = static_cast<float>(std::sqrt(sigtv + dati * dati) * flux);
  } else {
    r.fluxerr = std::sqrt(fluxvar);
  }
  return r;
}

}  // namespace celeris::extract
