// How many rand() numbers SExtractor 2.25 draws while it reads an image's WCS, before any
// deblending. Its deblender takes pixel assignments from the same unseeded rand() stream, so a
// catalog identical to SExtractor's starts the deblending draws after these.
//
// The draws come from range_wcs() (fitswcs.c): when the image centre does not map to the sky it
// moves the point by random steps, naxis draws a step, until it maps (at most 100 steps). With
// SExtractor's own WCS library this happens when celset() (wcs/cel.c) finds the celestial pole
// ill-conditioned: it returns an error on the first transformation but marks itself set, so
// the first call fails and the next succeeds (naxis draws); when it cannot place the pole at
// all, every call fails (100 * naxis draws). The header is read as SExtractor reads it,
// including its prefix matching of keywords: "LONPOLE" matches a LONPOLEA card.
#pragma once

#include "celeris/fits.hpp"

namespace celeris::extract {

// Assumes the first random step lands on a point the projection maps, as it does for any
// image of sensible size; 0 when the header has no celestial axis pair SExtractor recognises.
int sextractor_wcs_rand_draws(const FitsHeader& header);

}  // namespace celeris::extract
