// Petrosian photometry (SExtractor 2.25 photom.c computepetroflux): FLUX_PETRO, FLUXERR_PETRO
// (MAG_PETRO, MAGERR_PETRO from them) and PETRO_RADIUS.
//
// SExtractor's Petrosian radius is not the textbook one: on the detection image, within the
// moment ellipse scaled by 6, it grows an elliptical annulus [k, 1.2 k] in steps of 6/20 and
// stops at the first k where the annulus's mean surface brightness falls below 0.2 times the
// mean inside (k + 1.2 k) / 2. PETRO_RADIUS is PHOT_PETROPARAMS[0] times that midpoint, at least
// PHOT_PETROPARAMS[1]; FLUX_PETRO is the flux within PETRO_RADIUS x the moment ellipse, bad
// pixels handled as for FLUX_AUTO (MASK_TYPE, weights).
#pragma once

#include <cstdint>

#include "extract/stages/photometry.hpp"

namespace celeris::extract {

struct PetroParams {
  double fact = 2.0, min_radius = 3.5;      // PHOT_PETROPARAMS
  double min_search = 0.0, min_flux = 0.0;  // PHOT_AUTOAPERS (diameters), as for FLUX_AUTO
};

struct PetroResult {
  float flux = 0, fluxerr = 0;  // FLUX_PETRO, FLUXERR_PETRO (float, as SExtractor keeps them)
  float radius = 0;             // PETRO_RADIUS; 0 for a non-positive flux or the minimum circle
};

// The Petrosian flux of object `s` (its line-buffer rows, blanking time, local background).
// `flags` receives FLAGS bit 16 when an ellipse is clipped and bit 1 when more than 10% of its
// pixels are bad.
PetroResult petro_flux(const PhotometryField& f, const ApertureShape& s, const PetroParams& p,
                       uint16_t& flags);

}  // namespace celeris::extract
