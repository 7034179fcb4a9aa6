// World coordinates through wcslib. Pixel coordinates here are FITS 1-based.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>

#include "celeris/fits.hpp"

struct wcsprm;

namespace celeris {

class Wcs {
 public:
  // The celestial WCS of a header, or nullopt when the header has none (no CTYPE pair with a
  // celestial projection). Throws celeris::Error when a WCS is present but invalid.
  static std::optional<Wcs> from_header(const FitsHeader& header);

  // Native world coordinates (X_WORLD, Y_WORLD) in degrees.
  std::pair<double, double> pixel_to_world(double x, double y) const;
  // Equatorial FK5 J2000 (ALPHA_J2000, DELTA_J2000) in degrees, converted from galactic or
  // ecliptic systems when the header uses those.
  std::pair<double, double> pixel_to_j2000(double x, double y) const;
  std::pair<double, double> world_to_pixel(double lon, double lat) const;
  // The J2000 conversion pixel_to_j2000 applies to native world coordinates (lon, lat).
  std::pair<double, double> world_to_j2000(double lon, double lat) const;
  // pixel_to_world of n points in one wcslib call, the same values as one at a time (NaN where a
  // point does not map); the per-call set-up is what costs on a catalog of 40k objects.
  void pixels_to_world(size_t n, const double* x, const double* y, double* lon, double* lat) const;
  // A copy with wcslib structures of its own. wcsp2s writes into its wcsprm (error records,
  // the distortions' scratch memory), so threads converting at the same time each need one.
  Wcs independent_copy() const;
  // Intermediate ("focal-plane") coordinates of the first two axes, in axis order: the linear
  // part only, CDELT_i PC_ij (p_j - CRPIX_j) summed over j in order, as SExtractor's raw_to_red
  // (X_FOCAL, Y_FOCAL), without the distortions wcslib would apply.
  std::pair<double, double> pixel_to_focal(double x, double y) const;

  enum class System { Equatorial, Galactic, Ecliptic, Other };
  System system() const { return system_; }
  // True when the latitude is the first world axis (CTYPE1 DEC--TAN, CTYPE2 RA---TAN).
  bool latitude_first() const { return lat_ < lng_; }

 private:
  std::shared_ptr<wcsprm> wcs_;
  int lng_ = 0, lat_ = 1;
  System system_ = System::Equatorial;
};

}  // namespace celeris
