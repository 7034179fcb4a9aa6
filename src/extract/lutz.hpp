// One-pass connected-component extraction in the manner of Lutz (1980), as SExtractor's scan
// and deblending use it. Beyond the 8-connected partition (which any labelling gives), it
// reproduces two orders SExtractor's results depend on: the order in which components complete
// (the catalog order) and the order of the pixels within a component (its "chain": runs are
// appended as they are scanned, and when a run joins an object from the row above, the two
// chains are concatenated in scan order). CLEAN's mthresh and the deblending pixel draws are
// functions of the chain order.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace celeris::extract {

struct LutzComponent {
  std::vector<int64_t> pixels;  // y * width + x, in chain order
};

// Scans a width x height grid in raster order; on(x, y) tells whether a pixel is foreground.
// Calls `emit` for each 8-connected component with at least `minarea` pixels, in completion
// order.
void lutz_scan(int width, int height, const std::function<bool(int, int)>& on, int minarea,
               const std::function<void(LutzComponent&&)>& emit);

}  // namespace celeris::extract
