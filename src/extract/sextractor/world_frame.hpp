// The world frame of an image as SExtractor 2.25 sees it (fitswcs.c read_wcs, astrom.c): the
// celestial WCS when the header has one; otherwise the linear frame read_wcs builds from
// CRVALn, CRPIXn, CDELTn and CDi_j (or PCi_j, PC00i00j, CROTA2), defaults 0, 1, 1 and the
// identity. So an image without any WCS has X_WORLD = X_IMAGE - 1, Y_WORLD = Y_IMAGE - 1, and
// its sky columns (ALPHA_*, DELTA_*, THETA_SKY, THETA_J2000, ...) are 0: SExtractor computes
// those only where a longitude and a latitude axis exist. A DSS plate solution (PLTRAH...,
// AMDXn, AMDYn), which wcslib would apply, is not part of it: SExtractor reads none of it.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>

#include "celeris/fits.hpp"
#include "celeris/wcs.hpp"

namespace celeris::extract {

class WorldFrame {
 public:
  // `wcs` is the header's celestial WCS (Wcs::from_header), nullopt when it has none; on a
  // header with DSS plate-solution cards the frame reads the WCS again without them.
  static WorldFrame from_header(const FitsHeader& header, std::optional<Wcs> wcs);

  // The celestial WCS, or nullptr for a linear frame.
  const Wcs* celestial() const { return wcs_ ? &*wcs_ : nullptr; }
  // SExtractor's lng/lat axis indices (0-based; 0 and 1 for a linear frame, as astrom.c takes
  // them when lng == lat).
  int lng() const { return wcs_ && wcs_->latitude_first() ? 1 : 0; }
  int lat() const { return 1 - lng(); }

  // World coordinates of a 1-based pixel position in the header's axis order: SExtractor's
  // X_WORLD, Y_WORLD (raw_to_wcs), so DEC first on a DEC--TAN, RA---TAN image. NaN where the
  // projection does not map.
  std::pair<double, double> world(double x, double y) const;
  // Longitude and latitude (ALPHA_SKY, DELTA_SKY); 0, 0 for a linear frame.
  std::pair<double, double> sky(double x, double y) const;
  // Equatorial J2000 (ALPHA_J2000, DELTA_J2000); 0, 0 for a linear frame.
  std::pair<double, double> j2000(double x, double y) const;
  // SExtractor's raw_to_red: the linear part only, in axis order (X_FOCAL, Y_FOCAL).
  std::pair<double, double> focal(double x, double y) const;

  // Where convert() writes world(), sky() and j2000() of each point; a null pair is skipped.
  struct Outputs {
    double *world0 = nullptr, *world1 = nullptr;
    double *sky_lon = nullptr, *sky_lat = nullptr;
    double *ra = nullptr, *dec = nullptr;
  };
  // world(), sky() and j2000() of the n 1-based pixel positions (x[i], y[i]) with one wcslib
  // call (Wcs::pixels_to_world), the same values bit for bit: a catalog of 40k objects pays
  // wcslib's per-call set-up once per batch instead of three times per object.
  void convert(size_t n, const double* x, const double* y, const Outputs& out) const;
  // A frame with a WCS of its own (Wcs::independent_copy): wcslib writes into its structure
  // while converting, so threads converting at the same time each need one.
  WorldFrame independent_copy() const;

 private:
  std::optional<Wcs> wcs_;
  // Linear frame: world_i = crval_i + sum_j cd_ij (p_j - crpix_j), SExtractor's linrev order.
  double crval_[2] = {0.0, 0.0}, crpix_[2] = {1.0, 1.0};
  double cd_[4] = {1.0, 0.0, 0.0, 1.0};
};

}  // namespace celeris::extract
