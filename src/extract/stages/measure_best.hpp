// SExtractor's corrected isophotal flux (photom.c computeisocorflux: the isophotal flux
// corrected for the wings below the threshold, assuming a Gaussian profile) and the "best" flux
// (FLUX_AUTO, or FLUX_ISOCOR when the object is crowded, FLAGS bit 1).
#pragma once

#include <cstdint>

namespace celeris::extract {

struct IsocorResult {
  float flux = 0, fluxerr = 0;  // FLUX_ISOCOR, FLUXERR_ISOCOR
};

// `flux` and `fluxvar`: FLUX_ISO and its variance (float, merged by cleaning), `fdnpix`: the
// object's pixel count (ISOAREAF_IMAGE), `dthresh`: the detection threshold (ADU).
IsocorResult isocor_flux(float flux, float fluxvar, int32_t fdnpix, float dthresh);

}  // namespace celeris::extract
