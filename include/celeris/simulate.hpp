// Synthetic data with known truth, for tests and benchmarks: sky images (src/sim/image_sim.cpp),
// sky catalogs (src/sim/catalog_sim.cpp) and hyperspectral cubes (src/sim/cube_sim.cpp), all
// behind `celeris simulate image|catalog|cube`. Every simulator is deterministic: the same
// parameters and seed give the same bytes on every platform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "celeris/hyperspectral.hpp"
#include "celeris/image.hpp"
#include "celeris/table.hpp"

namespace celeris::sim {

// ---- sky images (celeris simulate image; extraction tests and benchmarks) ----------------------

struct ImageParams {
  int width = 1024, height = 1024;
  uint64_t seed = 1;
  int n_stars = -1;            // -1: a sparse field (one star per 8000 pixels)
  int n_galaxies = -1;         // -1: half the number of stars
  double background = 1000.0;  // ADU at the centre
  double gradient = 0.05;      // fractional change of the background across the image
  double gain = 2.0;           // e-/ADU, for the Poisson noise (0 = no Poisson noise)
  double read_noise = 5.0;     // ADU
  double fwhm = 3.0;           // Moffat FWHM, pixels
  double moffat_beta = 3.0;
  double flux_min = 300.0, flux_max = 3e5;  // ADU, power-law distributed
  int n_saturated = 0;                      // extra very bright stars clipped at `saturation`
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

// The fields of `celeris simulate image --density`, stars scaled with the area from 4096^2:
// sparse is ImageParams' own default; crowded 100,000 stars (~42k catalog rows on 4096^2, most
// sources blended); dense 500,000 stars of FWHM 1.2 (~149k rows on 4096^2: the GPU-SExtractor
// paper's 167k-object workload, issue 17's target). Sets n_stars and n_galaxies (half the stars)
// where they are unset (-1), and dense's FWHM.
enum class Density { Sparse, Crowded, Dense };
void apply_density(ImageParams& params, Density density);

// ---- catalogs (celeris simulate catalog; cross-match tests and benchmarks) -------------------

// Random sky catalog: sources uniform on the sphere within the declination band, each detected
// 1 + Poisson(repeats - 1) times with a Gaussian scatter of `scatter_arcsec` per axis, until
// `rows` detections. Columns ID, SOURCE_ID, RA, DEC (deg), MAG.
struct CatalogParams {
  size_t rows = 100000;
  uint64_t seed = 1;
  double dec_min = -90, dec_max = 90;
  double repeats = 3.0;  // mean detections per source, >= 1
  double scatter_arcsec = 0.5;
};
Table simulate_catalog(const CatalogParams& params);

// Mean detections per source (CatalogParams::repeats) for which a self-match of the simulated
// catalog at `radius_arcsec` gives on average `matches` matches per row, counting the row itself
// (the paper's Table III convention: a self-match of every row against the whole catalog), i.e.
// 1 + 2 P / N for P pairs of distinct rows. Model: a row's repeat group (size-biased mean of
// 1 + Poisson(repeats - 1), all within the radius when the scatter is much smaller) plus the
// other rows of uniform density in the disc. Throws when the density alone exceeds `matches`.
double repeats_for_matches(size_t rows, double dec_min, double dec_max, double radius_arcsec,
                           double matches);
// The expected matches per row (counting the row itself) of that model; the inverse of the above.
double expected_matches(size_t rows, double dec_min, double dec_max, double radius_arcsec,
                        double repeats);

// The paper's Table III data sets d1, d5, d25 (1M, 5M, 25M rows; RA 0-360 in its declination
// bands; 4.65, 5.45, 15.8 matches per row in a self-match at 0.0056 deg), as simulation
// parameters; throws for other names.
CatalogParams table3_params(const std::string& name);
inline constexpr double table3_radius_arcsec = 0.0056 * 3600.0;

// ---- hyperspectral cubes (celeris simulate cube; spp tests and benchmarks) --------------------

struct CubeSimParams {
  int lines = 64;
  int samples = 64;
  int bands = 100;
  int endmembers = 4;
  uint64_t seed = 1;
  double noise = 0.01;           // Gaussian noise sigma, reflectance units
  double smoothness = 8.0;       // abundance blob size, pixels
  double wavelength_min = 400;   // nm
  double wavelength_max = 2500;  // nm
};

struct SimulatedCube {
  hyperspectral::Cube cube;        // reflectance, ENVI source metadata, wavelengths in nm
  std::vector<double> endmembers;  // bands x endmembers, column e = spectrum of endmember e
  hyperspectral::Cube abundances;  // endmembers x lines x samples, sum to one per pixel
};

// Linear mixing model y = M a + n with spatially smooth abundances (softmax of sums of Gaussian
// blobs) and smooth positive endmember spectra. Same parameters, same cube, on every platform.
SimulatedCube simulate_cube(const CubeSimParams& params);

}  // namespace celeris::sim
