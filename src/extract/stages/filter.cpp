#include "extract/stages/filter.hpp"
#include "extract/settings/threads.hpp"

#include <algorithm>
#include <cmath>

namespace celeris::extract {

void convolve(ImageView<const float> in, const Config& config, ImageView<float> out) {
  const int kw = config.filter_width, kh = config.filter_height;
  const int64_t w = in.width, h = in.height;
  const float* k = config.filter_kernel.data();
  const int nt = worker_threads(config, w * h);
#pragma omp parallel for schedule(static) num_threads(nt)
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

}  // namespace celeris::extract
