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
  // Rows in the buffer at the scan line: the first strip_rows at first, then a window sliding
  // strip_margin rows ahead of the scan.
  int64_t fymin = 0, fymax = h;
  if (p.strip_rows > 0) {
    fymin = std::max<int64_t>(0, done_line - (p.strip_rows - p.strip_margin));
    fymax = std::min<int64_t>(h, std::max<int64_t>(p.strip_rows, done_line + p.strip_margin));
  }
  if (!(bymin >= fymin && bymax < fymax && bxmin >= 0 && bxmax < w)) return 0.0f;

  const bool blanking = f.mask_type != MaskType::None;
  // PhotometryField::blanked at done_line, where a pixel given back on that very line counts as
  // given back when the object that gave it back was processed first.
  auto blanked = [&](int x, int y) {
    if (f.restore.data != nullptr && f.restore(x, y) == done_line)
      return !(p.restored_by(x, y) < static_cast<int64_t>(index));
    return f.blanked(x, y, 0, done_line);
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
