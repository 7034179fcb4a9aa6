// The CPU's entry points to aperture photometry: the arithmetic is photometry_math.hpp's, shared
// with the GPU's measurement, so that both give the same bits.
#include "extract/stages/photometry.hpp"

namespace celeris::extract {

static_assert(phot::kNeighbours == kFlagNeighbours && phot::kAperIncomplete == kFlagAperIncomplete,
              "photometry_math.hpp's FLAGS bits are celeris/extract.hpp's");

phot::View photometry_view(const PhotometryField& f, bool host_codes) {
  phot::View v;
  v.value = f.value.data;
  v.width = static_cast<int>(f.value.width);
  v.height = static_cast<int>(f.value.height);
  v.mask_detected = f.mask_type != MaskType::None;
  // MASK_TYPE NONE reads no codes (phot::View::masked): codes made on the GPU are not copied.
  if (f.blanking && v.mask_detected)
    v.blanking = host_codes ? f.blanking->view() : f.blanking->device_view();
  v.correct = f.mask_type == MaskType::Correct;
  v.backsig = f.backsig;
  v.gain = f.gain;
  v.var = f.var.data;
  v.wthresh = f.wthresh;
  v.weight_gain = f.weight_gain;
  v.dvar = f.dvar.data;
  v.dwthresh = f.dwthresh;
  v.dvalue = f.dvalue.data;
  if (f.dblanking && v.mask_detected)
    v.dblanking = host_codes ? f.dblanking->view() : f.dblanking->device_view();
  v.ngamma = f.ngamma;  // DETECT_TYPE PHOTO
  return v;
}

FluxResult aperture_flux(const PhotometryField& f, const ApertureShape& s, double diameter,
                         uint16_t& flags) {
  return phot::aperture_flux(photometry_view(f), s, diameter, flags);
}

AutoResult auto_flux(const PhotometryField& f, const ApertureShape& s, const AutoParams& p,
                     uint16_t& flags) {
  return phot::auto_flux(photometry_view(f), s, p, flags);
}

void flux_radius(const PhotometryField& f, const ApertureShape& s, float flux_auto,
                 const std::vector<double>& fractions, int count, double min_rlim, float* out,
                 uint16_t& flags, float* hl_radius) {
  phot::flux_radius(photometry_view(f), s, flux_auto, fractions.data(), count, min_rlim, out, flags,
                    hl_radius);
}

}  // namespace celeris::extract
