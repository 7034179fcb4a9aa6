#include "check_images.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace celeris::extract {

Image<float> background_image(const BackgroundMap& bkg, bool rms) {
  Image<float> out = Image<float>::uninitialized(bkg.width, bkg.height);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < bkg.height; ++y) {
    float* row = out.view().row(y);
    if (rms)
      bkg.rms_line(y, row);
    else
      bkg.back_line(y, row);
  }
  return out;
}

Image<float> mesh_image(const BackgroundMap& bkg, bool rms) {
  Image<float> out(bkg.nx, bkg.ny);
  const std::vector<float>& grid = rms ? bkg.sigma : bkg.back;
  for (int i = 0; i < bkg.nx * bkg.ny; ++i) out.data()[i] = grid[i];
  return out;
}

namespace {

struct Box {
  int xmin, xmax, ymin, ymax;  // inclusive
};

// Relabels, within box b, the pixels holding `from` to `to` (SExtractor's way of renumbering a
// segmentation: by value within a bounding box, not by pixel list).
void relabel(std::vector<int32_t>& seg, int width, const Box& b, int32_t from, int32_t to) {
  for (int y = b.ymin; y <= b.ymax; ++y) {
    int32_t* row = seg.data() + static_cast<size_t>(y) * width;
    for (int x = b.xmin; x <= b.xmax; ++x)
      if (row[x] == from) row[x] = to;
  }
}

}  // namespace

Image<float> segmentation_image(int width, int height, const std::vector<Detection>& objects,
                                const std::vector<size_t>& order,
                                const std::vector<CleanVictim>& removed) {
  // SExtractor labels each object with its detection number (its index + 1) when it is
  // analysed; a merge relabels the slave's number to the master's within the slave's box (and
  // the master's box grows); at output each object's number is replaced by its catalog NUMBER
  // within its box. Renumbering by value inside boxes can catch pixels of another object whose
  // new number equals this one's detection number: reproduced as is, so the image is SExtractor's.
  const size_t n = objects.size();
  std::vector<Box> box(n);
  for (size_t k = 0; k < n; ++k) {
    Box b{width, -1, height, -1};
    for (const Pixel& p : objects[k].pixels) {
      b.xmin = std::min(b.xmin, p.x);
      b.xmax = std::max(b.xmax, p.x);
      b.ymin = std::min(b.ymin, p.y);
      b.ymax = std::max(b.ymax, p.y);
    }
    box[k] = b;
  }
  // Merges happen while the newcomer (the later-detected of the two) is cleaned.
  std::vector<std::vector<const CleanVictim*>> merges_at(n);
  for (const CleanVictim& v : removed) merges_at[std::max(v.object, v.master)].push_back(&v);
  std::vector<int32_t> seg(static_cast<size_t>(width) * height, 0);
  auto label = [](size_t k) { return static_cast<int32_t>(k + 1); };
  for (size_t k = 0; k < n; ++k) {
    for (const Pixel& p : objects[k].pixels) seg[static_cast<size_t>(p.y) * width + p.x] = label(k);
    for (const CleanVictim* v : merges_at[k]) {
      relabel(seg, width, box[v->object], label(v->object), label(v->master));
      Box& m = box[v->master];
      const Box& sl = box[v->object];
      m = {std::min(m.xmin, sl.xmin), std::max(m.xmax, sl.xmax), std::min(m.ymin, sl.ymin),
           std::max(m.ymax, sl.ymax)};
    }
  }
  for (size_t i = 0; i < order.size(); ++i)
    relabel(seg, width, box[order[i]], label(order[i]), static_cast<int32_t>(i + 1));
  Image<float> out = Image<float>::uninitialized(width, height);
  for (size_t i = 0; i < seg.size(); ++i) out.data()[i] = static_cast<float>(seg[i]);
  return out;
}

Image<float> objects_image(ImageView<const float> value, const std::vector<Detection>& objects) {
  Image<float> out(value.width, value.height);  // zero-filled
  for (const Detection& d : objects)
    for (const Pixel& p : d.pixels) out(p.x, p.y) = value(p.x, p.y);
  return out;
}

Image<float> minus_objects_image(ImageView<const float> value, ImageView<const int32_t> owner,
                                 bool blanking) {
  Image<float> out = Image<float>::uninitialized(value.width, value.height);
  for (int64_t i = 0; i < value.size(); ++i) {
    const float v = value.data[i];
    out.data()[i] = std::isnan(v) || (blanking && owner.data[i] != 0) ? 0.0f : v;
  }
  return out;
}

}  // namespace celeris::extract
