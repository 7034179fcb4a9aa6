#include "extract/stages/filter.hpp"
#include "extract/settings/threads.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace celeris::extract {

FilterParams FilterParams::of(const Config& config, int threads) {
  FilterParams p;
  p.threads = threads;
  if (!config.filter_kernel.empty()) {
    p.kernel = config.filter_kernel;
    p.width = config.filter_width;
    p.height = config.filter_height;
    return p;
  }
  p.kernel = {1, 2, 1, 2, 4, 2, 1, 2, 1};
  for (float& v : p.kernel) v /= 16.0f;
  p.width = p.height = 3;
  return p;
}

void convolve(ImageView<const float> in, const Config& config, ImageView<float> out) {
  convolve(in, FilterParams::of(config, worker_threads(config, in.width * in.height)), out);
}

void convolve(ImageView<const float> in, const FilterParams& params, ImageView<float> out) {
  const int kw = params.width, kh = params.height;
  const int64_t w = in.width, h = in.height;
  const float* k = params.kernel.data();
#pragma omp parallel for schedule(static) num_threads(params.threads)
  for (int64_t y = 0; y < h; ++y) {
    float* d = out.row(y);
    std::fill(d, d + w, 0.0f);
    for (int j = 0; j < kh; ++j) {
      const int64_t sy = y + j - kh / 2;
      if (sy < 0 || sy >= h) continue;
      const float* s = in.row(sy);
      for (int i = 0; i < kw; ++i) {
        const float kv = k[j * kw + i];
        const int64_t dx = i - kw / 2;
        const int64_t x0 = std::max<int64_t>(0, -dx), x1 = std::min<int64_t>(w, w - dx);
        for (int64_t x = x0; x < x1; ++x) {
          const float v = s[x + dx];
          d[x] += kv * (std::isnan(v) ? 0.0f : v);
        }
      }
    }
  }
}

Image<float> detection_image(ImageView<const float> value, const FilterParams& params) {
  const int w = static_cast<int>(value.width), h = static_cast<int>(value.height);
  Image<float> filtered = Image<float>::uninitialized(w, h);
  convolve(value, params, filtered.view());
  const int kw = params.width, kh = params.height;
#pragma omp parallel for schedule(static) num_threads(params.threads)
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (!std::isnan(value(x, y))) continue;
      for (int j = 0; j < kh; ++j)
        for (int i = 0; i < kw; ++i) {
          const int ox = x - (i - kw / 2), oy = y - (j - kh / 2);
          if (ox >= 0 && ox < w && oy >= 0 && oy < h && params.kernel[j * kw + i] != 0.0f)
            filtered(ox, oy) = -std::numeric_limits<float>::infinity();
        }
    }
  return filtered;
}

}  // namespace celeris::extract
