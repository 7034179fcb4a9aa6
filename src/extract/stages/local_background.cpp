#include "extract/stages/local_background.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "extract/stages/background.hpp"

namespace celeris::extract {

float local_background(size_t index, const Shape& s, int64_t done_line, const PhotometryField& f,
                       const LocalBackgroundParams& p, LocalBackgroundScratch& scratch) {
  const int w = static_cast<int>(f.value.width), h = static_cast<int>(f.value.height);
  const int pbs = p.thick;
  // The inner box: the object's box widened by a quarter of its size (of what is left of the
  // image when the object spans more than half of it); the annulus: pbs pixels around that.
  const int oxsize = s.xmax - s.xmin + 1, oysize = s.ymax - s.ymin + 1;
  const int bxnml = oxsize < w / 2 ? oxsize / 4 : (w - oxsize) / 4;
  const int bynml = oysize < h / 2 ? oysize / 4 : (h - oysize) / 4;
  const int ixmin = s.xmin - bxnml, ixmax = s.xmax + 1 + bxnml;
  const int iymin = s.ymin - bynml, iymax = s.ymax + 1 + bynml;
  const int bxmin = ixmin - pbs, bxmax = ixmax + pbs, bymin = iymin - pbs, bymax = iymax + pbs;
  // Rows in the buffer at the scan line (sextractor/scan_order.hpp).
  const LineBuffer::Rows rows = p.buffer.rows_at_detection(done_line);
  const int64_t fymin = rows.first, fymax = rows.last;
  if (!(bymin >= fymin && bymax < fymax && bxmin >= 0 && bxmax < w)) return 0.0f;

  const bool blanking = f.mask_type != MaskType::None && f.blanking != nullptr;
  auto blanked = [&](int x, int y) {
    return f.blanking->blanked_at_detection(x, y, index, done_line);
  };
  std::vector<float>& pixels = scratch.pixels;
  pixels.clear();
  auto take = [&](int x0, int x1, int y) {
    const float* v = f.value.row(y);
    for (int x = x0; x < x1; ++x)
      if (!std::isnan(v[x]) && !(blanking && blanked(x, y))) pixels.push_back(v[x]);
  };
  // SExtractor's order: per row the left and right bands, then the bands above and below.
  for (int y = bymin; y < bymax; ++y) {
    take(bxmin, ixmin, y);
    take(ixmax, bxmax, y);
  }
  for (int y = bymin; y < iymin; ++y) take(ixmin, ixmax, y);
  for (int y = iymax; y < bymax; ++y) take(ixmin, ixmax, y);
  if (pixels.empty()) return 0.0f;
  return list_background(pixels, scratch.mesh).back;
}

}  // namespace celeris::extract
