// SExtractor's isophotal areas ISO0..ISO7 (analyse.c examineiso) and its star/galaxy classifier
// CLASS_STAR (analyse.c, neurro.c): a small neural network whose weights come from a .nnw file
// (STARNNW_NAME; Debian ships SExtractor's default.nnw in /usr/share/source-extractor), fed with
// the isophotal areas, the peak over the analysis threshold and the seeing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "extract/objects.hpp"

namespace celeris::extract {

constexpr int kNIso = 8;  // SExtractor's NISO

// Areas above 8 thresholds spaced geometrically from `thresh` to `peak` (the object's analysis
// threshold and peak, both less its local background), counted on the pixel values; all
// thresholds 0 when peak or thresh is not positive; spaced linearly with DETECT_TYPE PHOTO
// (`photo`). As SExtractor, in float.
void iso_areas(const ObjectView& pixels, float thresh, float peak, int32_t out[kNIso],
               bool photo = false);

// A multi-layer perceptron with sigmoid units, as SExtractor's neurro.c.
class StarNetwork {
 public:
  // Parses the text of a .nnw file; throws celeris::Error naming `origin` when malformed.
  static StarNetwork parse(const std::string& text, const std::string& origin);
  // Reads STARNNW_NAME: the path as given, else (a bare name) in SExtractor's share folders.
  static StarNetwork load(const std::string& name);
  int inputs() const { return layers_.empty() ? 0 : layers_.front(); }
  double respond(const std::vector<double>& input) const;

 private:
  std::vector<int> layers_;
  std::vector<double> in_bias_, in_scale_, out_bias_, out_scale_;
  std::vector<std::vector<double>> weights_;  // per layer: [i * n_next + j]
  std::vector<std::vector<double>> biases_;   // per layer: [j]
};

// CLASS_STAR of one object: `iso` its ISO0..ISO7, `peak` its FLUX_MAX, `thresh` the analysis
// threshold (ADU), `seeing_fwhm` in arcsec, `pixel_scale` in arcsec per pixel.
float class_star(const StarNetwork& net, const int32_t iso[kNIso], float peak, float thresh,
                 double seeing_fwhm, double pixel_scale);

}  // namespace celeris::extract
