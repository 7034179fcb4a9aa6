// Synthetic data with known truth, for tests and benchmarks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "celeris/image.hpp"
#include "celeris/table.hpp"

namespace celeris::sim {

struct ImageParams {
  int width = 1024, height = 1024;
  uint64_t seed = 1;
  int n_stars = -1;      // -1: a sparse field (one star per 8000 pixels)
  int n_galaxies = -1;   // -1: half the number of stars
  double background = 1000.0;   // ADU at the centre
  double gradient = 0.05;        // fractional change of the background across the image
  double gain = 2.0;             // e-/ADU, for the Poisson noise (0 = no Poisson noise)
  double read_noise = 5.0;       // ADU
  double fwhm = 3.0;             // Moffat FWHM, pixels
  double moffat_beta = 3.0;
  double flux_min = 300.0, flux_max = 3e5;  // ADU, power-law distributed
  int n_saturated = 0;           // extra very bright stars clipped at `saturation`
  double saturation = 60000.0;
  int n_nan_patches = 0;         // rectangular NaN holes
  bool wcs = true;               // write a TAN WCS
  double ra = 150.0, dec = 2.0;  // field centre, degrees
  double pixel_scale = 0.2;      // arcsec / pixel
};

struct SimulatedImage {
  Image<float> pixels;
  Table truth;  // X_IMAGE, Y_IMAGE (1-based), FLUX, TYPE (0 star, 1 galaxy), RA, DEC, ...
  std::vector<std::string> header_cards;  // WCS, GAIN, SATURATE
};

SimulatedImage simulate_image(const ImageParams& params);

}  // namespace celeris::sim
