// Internal object representation between detection and measurement: an object is its list of
// pixels, each carrying the background-subtracted value and the filtered detection value.
#pragma once

#include <cstdint>
#include <vector>

namespace celeris::extract {

struct Pixel {
  int32_t x = 0, y = 0;
  float value = 0.0f;   // background-subtracted measurement pixel
  float cvalue = 0.0f;  // filtered detection pixel (== value when FILTER N)
};

struct Detection {
  std::vector<Pixel> pixels;
  uint16_t flags = 0;
  // Deblended children keep the barycentre found during deblending (SExtractor's ANALYSE_ROBUST
  // for merged objects): moments are then taken about this point.
  bool fixed_centre = false;
  double cx = 0.0, cy = 0.0;
};

}  // namespace celeris::extract
