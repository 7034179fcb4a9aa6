#include "extract/stages/detect.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "extract/sextractor/detected_pixel.hpp"
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

// The FLAGS a component brings from the pixel stack (pixel_stack.hpp): 128 when it lost pixels,
// 8 when one it lost lay on the border.
uint16_t lutz_flags(const LutzComponent& c) {
  uint16_t flags = 0;
  if (c.flags & kLutzOverflow) flags |= kFlagExtractOverflow;
  if (c.flags & kLutzDroppedBorder) flags |= kFlagTruncated;
  return flags;
}

}  // namespace

int64_t pixel_stack_bound(ImageView<const float> value, ImageView<const float> cvalue,
                          float threshold, const ObjectList& detections, int threads) {
  const int64_t w = value.width, h = value.height;
  if (w * h == 0) return 0;
  std::vector<int64_t> lit(static_cast<size_t>(h), 0), freed(static_cast<size_t>(h) + 2, 0);
  // detect()'s test less its NaN check on `value`: counting masked pixels too keeps the bound
  // and halves the memory read.
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t y = 0; y < h; ++y) {
    const float* c = &cvalue(0, y);
    int64_t n = 0;
    for (int64_t x = 0; x < w; ++x) n += c[x] > threshold;
    lit[static_cast<size_t>(y)] = n;
  }
  for (size_t k = 0; k < detections.size(); ++k) {
    int32_t ymax = 0;
    for (int64_t i = detections.offset[k]; i < detections.offset[k + 1]; ++i)
      ymax = std::max(ymax, detections.y[static_cast<size_t>(i)]);
    freed[static_cast<size_t>(ymax) + 2] += static_cast<int64_t>(detections.count(k));
  }
  int64_t held = 0, bound = 0;
  for (int64_t y = 0; y < h; ++y) {
    held += lit[static_cast<size_t>(y)] - freed[static_cast<size_t>(y)];
    bound = std::max(bound, held);
  }
  return bound;
}

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

Thresholds detection_thresholds(const Config& config, double rms) {
  // back.c: THRESH_TYPE's first element for the detection, its second for the analysis.
  const bool drelative = config.thresh_type == ThreshType::Relative;
  const bool arelative = config.analysis_thresh_type == ThreshType::Relative;
  Thresholds t;
  t.detect = static_cast<float>(drelative ? config.detect_thresh * rms : config.detect_thresh);
  t.analysis =
      static_cast<float>(arelative ? config.analysis_thresh * rms : config.analysis_thresh);
  if (!(t.detect > 0)) throw Error("detection threshold is not positive (DETECT_THRESH)");
  if (!(t.analysis > 0)) throw Error("analysis threshold is not positive (ANALYSIS_THRESH)");
  return t;
}

ObjectList detect(ImageView<const float> value, ImageView<const float> cvalue,
                  const DetectParams& params, std::vector<PixelStackOverflow>* overflows) {
  const int w = static_cast<int>(value.width), h = static_cast<int>(value.height);
  const float threshold = params.threshold;
  ObjectList out;
  PixelStack stack;
  stack.size = params.pixstack;
  LutzScratch scratch;
  lutz_scan(
      w, h, [&](int x, int y) { return detected_pixel(value(x, y), cvalue(x, y), threshold); },
      params.minarea,
      [&](LutzComponent&& c) {
        uint16_t flags = lutz_flags(c);
        for (int64_t p : c.pixels) {
          const int x = static_cast<int>(p % w), y = static_cast<int>(p / w);
          out.push_pixel({x, y, value(x, y), cvalue(x, y)});
          if (x == 0 || y == 0 || x == w - 1 || y == h - 1) flags |= kFlagTruncated;
        }
        out.end_object(flags);
      },
      scratch, params.pixstack > 0 ? &stack : nullptr);
  if (overflows) *overflows = std::move(stack.overflows);
  return out;
}

ObjectList detect_weighted(ImageView<const float> value, ImageView<const float> cvalue,
                           ImageView<const float> thresh, ImageView<const float> var,
                           const DetectParams& params, std::vector<PixelStackOverflow>* overflows) {
  const int w = static_cast<int>(value.width), h = static_cast<int>(value.height);
  auto t = [&](int x, int y) { return thresh.data ? thresh(x, y) : params.threshold; };
  auto v = [&](int x, int y) { return var.data ? var(x, y) : 0.0f; };
  ObjectList out;
  out.pixel_weights = true;
  PixelStack stack;
  stack.size = params.pixstack;
  LutzScratch scratch;
  lutz_scan(
      w, h, [&](int x, int y) { return detected_pixel(value(x, y), cvalue(x, y), t(x, y)); },
      params.minarea,
      [&](LutzComponent&& c) {
        uint16_t flags = lutz_flags(c);
        for (int64_t p : c.pixels) {
          const int x = static_cast<int>(p % w), y = static_cast<int>(p / w);
          out.push_pixel({x, y, value(x, y), cvalue(x, y), v(x, y), t(x, y)});
          if (x == 0 || y == 0 || x == w - 1 || y == h - 1) flags |= kFlagTruncated;
        }
        out.end_object(flags);
      },
      scratch, params.pixstack > 0 ? &stack : nullptr);
  if (overflows) *overflows = std::move(stack.overflows);
  return out;
}

ObjectList detections_from_components(ImageView<const float> value, ImageView<const float> cvalue,
                                      const int32_t* pixels, const std::vector<int64_t>& offset,
                                      int threads) {
  const int64_t w = value.width, h = value.height;
  const size_t n = offset.size() - 1;
  constexpr size_t kBlock = 256;
  const size_t nblocks = (n + kBlock - 1) / kBlock;
  std::vector<ObjectList> parts(nblocks);
#pragma omp parallel num_threads(threads)
  {
    LutzScratch scratch;
    std::vector<uint8_t> box;
#pragma omp for schedule(dynamic, 1)
    for (size_t b = 0; b < nblocks; ++b)
      for (size_t c = b * kBlock; c < std::min(n, (b + 1) * kBlock); ++c) {
        const int32_t* p = pixels + offset[c];
        const int64_t count = offset[c + 1] - offset[c];
        int64_t x0 = w, x1 = -1;
        const int64_t y0 = p[0] / w, y1 = p[count - 1] / w;  // raster order
        for (int64_t i = 0; i < count; ++i) {
          const int64_t x = p[i] % w;
          x0 = std::min(x0, x);
          x1 = std::max(x1, x);
        }
        const int64_t bw = x1 - x0 + 1, bh = y1 - y0 + 1;
        box.assign(static_cast<size_t>(bw * bh), 0);
        for (int64_t i = 0; i < count; ++i)
          box[static_cast<size_t>((p[i] / w - y0) * bw + (p[i] % w - x0))] = 1;
        ObjectList& out = parts[b];
        lutz_scan(
            static_cast<int>(bw), static_cast<int>(bh),
            [&](int x, int y) { return box[static_cast<size_t>(y * bw + x)] != 0; }, 1,
            [&](LutzComponent&& comp) {
              uint16_t flags = 0;
              for (int64_t q : comp.pixels) {
                const int x = static_cast<int>(x0 + q % bw), y = static_cast<int>(y0 + q / bw);
                out.push_pixel({x, y, value(x, y), cvalue(x, y)});
                if (x == 0 || y == 0 || x == w - 1 || y == h - 1) flags |= kFlagTruncated;
              }
              out.end_object(flags);
            },
            scratch);
      }
  }
  return ObjectList::concatenate(parts, threads);
}

}  // namespace celeris::extract
