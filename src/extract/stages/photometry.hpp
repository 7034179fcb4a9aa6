// Aperture photometry (SExtractor photom.c and growth.c): fixed circular apertures (FLUX_APER),
// Kron's adaptive elliptical aperture (FLUX_AUTO, KRON_RADIUS) and fraction-of-light radii
// (FLUX_RADIUS) from the growth curve. The arithmetic lives in photometry_math.hpp, shared with
// the GPU's measurement (gpu/measure_gpu.hpp); these are its CPU entry points.
#pragma once

#include <cstdint>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/photometry_math.hpp"

namespace celeris::extract {

// What photometry reads: the background-subtracted image and, for MASK_TYPE, which detected
// pixels are blanked when an object is measured (sextractor/scan_order.hpp; none when null).
struct PhotometryField {
  ImageView<const float> value;
  const Blanking* blanking = nullptr;
  float backsig = 1.0f;
  double gain = 0.0;
  MaskType mask_type = MaskType::Correct;
  // With weights (weights.hpp): the measurement variance map (empty without), pixels at or
  // beyond `wthresh` taken as bad, and WEIGHT_GAIN.
  ImageView<const float> var;
  float wthresh = 0.0f;
  bool weight_gain = true;
  // With detection weights: the detection variance, whose bad pixels Kron's first pass (the
  // radius, on the detection image) leaves out.
  ImageView<const float> dvar;
  float dwthresh = 0.0f;
  // Dual-image mode: the detection image less its background, which Kron's radius pass reads,
  // and its blanking, which lags behind the measurement image's (null: `blanking`).
  ImageView<const float> dvalue;
  const Blanking* dblanking = nullptr;
  ImageView<const float> detection() const { return dvalue.data ? dvalue : value; }
  // DETECT_TYPE PHOTO: Config::photo_ngamma() (0 for CCD); the fluxes sum exp(pixel / ngamma).
  double ngamma = 0;
  // `value`'s pixels already on the GPU (the GPU front end's), which its photometry then reads
  // instead of uploading them; null: none.
  const float* value_on_device = nullptr;
  // `var`'s on the GPU likewise (the GPU's weighted front end's); null: none.
  const float* var_on_device = nullptr;

  bool weighted() const { return var.data != nullptr; }
  // A bad weight: the pixel is treated as a masked one.
  bool bad_weight(int x, int y) const { return weighted() && var(x, y) >= wthresh; }
  bool bad_detect_weight(int x, int y) const { return dvar.data && dvar(x, y) >= dwthresh; }

  // Whether (x, y) is blanked for the object `id` measured at scan line `time`, moment
  // `moment` (blanking_view.hpp).
  bool blanked(int x, int y, int32_t id, int64_t time, int64_t moment = -1) const {
    return blanking != nullptr && blanking->blanked(x, y, id, time, moment);
  }
  bool blanked_in_detection(int x, int y, int32_t id, int64_t time, int64_t moment = -1) const {
    return dblanking ? dblanking->blanked(x, y, id, time, moment) : blanked(x, y, id, time, moment);
  }
};

// The same as the shared arithmetic (photometry_math.hpp, CPU and GPU) reads it. `host_codes`
// false: the blanking views hold the codes' device addresses (Blanking::device_view; null where
// the codes were made on the host), for the GPU's photometry.
phot::View photometry_view(const PhotometryField& f, bool host_codes = true);

FluxResult aperture_flux(const PhotometryField& f, const ApertureShape& s, double diameter,
                         uint16_t& flags);

AutoResult auto_flux(const PhotometryField& f, const ApertureShape& s, const AutoParams& p,
                     uint16_t& flags);

// FLUX_RADIUS for each fraction of `flux_auto`. The growth curve reaches 6 A_IMAGE, or
// `min_rlim` when larger (SExtractor compares that radius with the PHOT_AUTOAPERS diameter).
// `hl_radius`, when given, receives SExtractor's internal half-light radius (at least 0.5 px),
// which sizes the windowed measurements' window (measure_windowed.hpp).
void flux_radius(const PhotometryField& f, const ApertureShape& s, float flux_auto,
                 const std::vector<double>& fractions, int count, double min_rlim, float* out,
                 uint16_t& flags, float* hl_radius = nullptr);

}  // namespace celeris::extract
