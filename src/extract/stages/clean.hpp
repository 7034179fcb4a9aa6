// Cleaning of spurious detections (SExtractor clean.c): a faint object lying in the wings of a
// brighter one, where the bright object's extrapolated Moffat-like profile exceeds the faint
// object's own CLEAN threshold (mthresh), is merged into it. Objects are taken in detection
// order against the list of those kept so far, as SExtractor does; a merge adds the slave's
// fluxes, pixel counts and bounding box to the master, never its moments.
#pragma once

#include <vector>

#include "extract/stages/measure.hpp"
#include "extract/stages/moments.hpp"
#include "extract/objects.hpp"

namespace celeris::extract {

struct CleanParams {
  bool enabled = true;
  double clean_param = 1.0;
  float detect_thresh = 0;
  int image_height = 0;
  int clean_margin = 0;       // SExtractor's cleanmargin (from the aperture sizes)
  int strip_height = 1024;    // MEMORY_BUFSIZE (at least the filter height)
  int strip_margin = 1;       // lines kept below the scan: 1, or filter half-height + 1
  int64_t stack_size = 3000;  // MEMORY_OBJSTACK
};

// An object merged into another, and the scan line during which SExtractor gave its pixels
// back to the image (the line on which the object being cleaned at that moment was completed).
struct CleanVictim {
  size_t object = 0;
  int64_t line = 0;
  size_t master = 0;  // the object it was merged into (which may itself be merged later)
  size_t by = 0;      // the new object whose cleaning merged it (itself, or the master)
};

struct CleanResult {
  std::vector<size_t> order;         // surviving objects in SExtractor's output (NUMBER) order
  std::vector<int64_t> written_at;   // for each of them, the scan line at which it is written out
                                     // (and measured); INT64_MAX after the last line
  std::vector<CleanVictim> removed;  // objects merged into another
};

// The isophotal part of SExtractor's mergeobject (fluxes summed, peaks kept).
void merge_iso(Iso& master, const Iso& slave);

// Updates shapes/isos/flags of the masters in place. done_line[i]: the scan line on which
// object i's detection was completed (its parent's last row + 1).
CleanResult clean_objects(std::vector<Detection>& objects, std::vector<Shape>& shapes,
                          std::vector<Iso>& isos, const std::vector<int64_t>& done_line,
                          const CleanParams& params);

}  // namespace celeris::extract
