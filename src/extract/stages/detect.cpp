#include "extract/stages/detect.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "celeris/extract.hpp"
#include "extract/sextractor/lutz.hpp"

namespace celeris::extract {

namespace {

int32_t find_root(std::vector<int32_t>& parent, int32_t a) {
  while (parent[a] != a) {
    parent[a] = parent[parent[a]];  // path halving
    a = parent[a];
  }
  return a;
}

void unite(std::vector<int32_t>& parent, int32_t a, int32_t b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a == b) return;
  if (a < b) std::swap(a, b);
  parent[a] = b;  // the smaller provisional label (earlier in raster order) is the root
}

}  // namespace

std::vector<int32_t> label_components(const std::vector<uint8_t>& mask, int width, int height,
                                      int32_t& count) {
  std::vector<int32_t> labels(mask.size(), 0);
  std::vector<int32_t> parent = {0};
  for (int y = 0; y < height; ++y) {
    const uint8_t* m = mask.data() + static_cast<size_t>(y) * width;
    int32_t* l = labels.data() + static_cast<size_t>(y) * width;
    const int32_t* up = y > 0 ? l - width : nullptr;
    for (int x = 0; x < width; ++x) {
      if (!m[x]) continue;
      int32_t lab = 0;
      auto take = [&](int32_t n) {
        if (!n) return;
        if (!lab)
          lab = n;
        else if (n != lab)
          unite(parent, lab, n);
      };
      if (x > 0) take(l[x - 1]);
      if (up) {
        if (x > 0) take(up[x - 1]);
        take(up[x]);
        if (x + 1 < width) take(up[x + 1]);
      }
      if (!lab) {
        lab = static_cast<int32_t>(parent.size());
        parent.push_back(lab);
      }
      l[x] = lab;
    }
  }
  // Final dense labels in order of each component's first pixel.
  std::vector<int32_t> dense(parent.size(), 0);
  count = 0;
  for (size_t i = 1; i < parent.size(); ++i) {
    const int32_t r = find_root(parent, static_cast<int32_t>(i));
    if (r == static_cast<int32_t>(i)) dense[i] = ++count;
  }
  for (auto& v : labels)
    if (v) v = dense[find_root(parent, v)];
  return labels;
}

ObjectList detect(ImageView<const float> value, ImageView<const float> cvalue,
                  const DetectParams& params) {
  const int w = static_cast<int>(value.width), h = static_cast<int>(value.height);
  const float threshold = params.threshold;
  ObjectList out;
  lutz_scan(
      w, h, [&](int x, int y) { return !std::isnan(value(x, y)) && cvalue(x, y) > threshold; },
      params.minarea,
      [&](LutzComponent&& c) {
        uint16_t flags = 0;
        for (int64_t p : c.pixels) {
          const int x = static_cast<int>(p % w), y = static_cast<int>(p / w);
          out.push_pixel({x, y, value(x, y), cvalue(x, y)});
          if (x == 0 || y == 0 || x == w - 1 || y == h - 1) flags |= kFlagTruncated;
        }
        out.end_object(flags);
      });
  return out;
}

}  // namespace celeris::extract
