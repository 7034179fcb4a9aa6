// SExtractor's check images (CHECKIMAGE_TYPE): intermediate products of an extraction written
// as FITS images, for inspecting the background, the filter and the segmentation.
#pragma once

#include <vector>

#include "celeris/extract.hpp"
#include "extract/objects.hpp"
#include "extract/stages/background.hpp"
#include "extract/stages/clean.hpp"
#include "extract/stages/photometry.hpp"

namespace celeris::extract {

// The full-resolution background (or RMS) map, as subtracted (or used) by the extraction;
// `threads` as Config::threads (0: chosen by size, worker_threads).
Image<float> background_image(const BackgroundMap& bkg, bool rms, int threads);

// The mesh grid itself, one pixel per mesh (MINIBACKGROUND / MINIBACK_RMS).
Image<float> mesh_image(const BackgroundMap& bkg, bool rms);

// Each pixel of a catalog object holds its NUMBER (position in `order` + 1); pixels of objects
// merged away by cleaning hold the number of the object that absorbed them; 0 elsewhere; built
// the way SExtractor builds it (see the .cpp), quirks included.
Image<float> segmentation_image(int width, int height, const ObjectList& objects,
                                const std::vector<size_t>& order,
                                const std::vector<CleanVictim>& removed);

// OBJECTS: the pixels of every analysed object (cleaned ones included, as SExtractor writes them
// when it analyses each object) with their background-subtracted values; 0 elsewhere.
Image<float> objects_image(ImageView<const float> value, const ObjectList& objects);

// -OBJECTS: the background-subtracted image as SExtractor's line buffer holds it at the end:
// 0 where the pixel is blanked (detected, when MASK_TYPE is not NONE; see
// PhotometryField::blanked) or masked (NaN), else its value.
Image<float> minus_objects_image(const PhotometryField& field);

// APERTURES: the background-subtracted image (masked pixels NaN) with, for every catalog object
// in NUMBER order, a circle per aperture `diameters`, when `kron` the Kron ellipse and, when
// measured (Objects::petro_radius), the Petrosian one (dotted when FLAGS has bit 1), drawn by
// adding `overlay` along SExtractor's 36-segment polylines.
Image<float> apertures_image(ImageView<const float> value, const Objects& objects,
                             const std::vector<double>& diameters, bool kron, float overlay);

// What the check images are made from: every stage's product, kept until the end of the run.
struct CheckImageSources {
  const BackgroundMap* background = nullptr;
  int threads = 1;
  ImageView<const float> value;     // background-subtracted
  ImageView<const float> filtered;  // detection image (-inf where the support is masked)
  const ObjectList* objects = nullptr;
  const CleanResult* cleaned = nullptr;
  const PhotometryField* field = nullptr;
  const Objects* catalog = nullptr;
  std::vector<double> aperture_diameters;  // the FLUX_APER diameters measured
  bool kron = false;                       // Kron ellipses measured
  float overlay = 0.0f;                    // value added along the drawn apertures
};

// The check images of `types`, in that order: the one place they are made.
std::vector<Image<float>> make_check_images(const std::vector<CheckImage>& types,
                                            const CheckImageSources& sources);

}  // namespace celeris::extract
