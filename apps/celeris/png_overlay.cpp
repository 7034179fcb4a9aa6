#include "png_overlay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "celeris/error.hpp"
#include "celeris/table.hpp"

#ifdef CELERIS_HAVE_STB
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb/stb_image_write.h>
#endif

namespace celeris::cli {

bool png_supported() {
#ifdef CELERIS_HAVE_STB
  return true;
#else
  return false;
#endif
}

void write_png_overlay(const std::string& path, ImageView<const float> image,
                       const std::vector<OverlayRegion>& regions) {
  if (!png_supported())
    throw Error("--png: this build has no PNG writer (install libstb-dev and rebuild)");
  const int w = static_cast<int>(image.width), h = static_cast<int>(image.height);
  // Grey levels between the 0.5th and 99.5th percentiles of the finite pixels.
  std::vector<float> finite;
  finite.reserve(image.size());
  for (int64_t i = 0; i < image.size(); ++i)
    if (std::isfinite(image.data[i])) finite.push_back(image.data[i]);
  float lo = 0, hi = 1;
  if (!finite.empty()) {
    auto at = [&](double q) {
      const size_t k = static_cast<size_t>(q * (finite.size() - 1));
      std::nth_element(finite.begin(), finite.begin() + k, finite.end());
      return finite[k];
    };
    lo = at(0.005);
    hi = at(0.995);
    if (!(hi > lo)) hi = lo + 1;
  }
  std::vector<uint8_t> rgb(size_t(w) * h * 3);
  // PNG row 0 is the top of the picture: FITS row h (the last) goes there.
  auto px = [&](int x, int y) { return rgb.data() + (size_t(h - 1 - y) * w + x) * 3; };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float v = image(x, y);
      const float t = std::isfinite(v) ? std::clamp((v - lo) / (hi - lo), 0.0f, 1.0f) : 0.0f;
      uint8_t* p = px(x, y);
      p[0] = p[1] = p[2] = static_cast<uint8_t>(std::lround(t * 255.0f));
    }
  // Outlines: a region pixel with a 4-neighbour outside the region.
  static const uint8_t kColours[][3] = {{255, 40, 40}, {40, 220, 40},  {60, 120, 255},
                                        {255, 200, 0}, {255, 0, 255},  {0, 230, 230},
                                        {255, 128, 0}, {160, 90, 255}, {255, 255, 255}};
  for (size_t r = 0; r < regions.size(); ++r) {
    const OverlayRegion& g = regions[r];
    const int n = static_cast<int>(g.top.size());
    auto inside = [&](int x, int y) {
      const int i = x - g.left;
      return i >= 0 && i < n && y >= g.top[i] && y <= g.bottom[i];
    };
    const uint8_t* c = kColours[r % (sizeof kColours / sizeof kColours[0])];
    for (int i = 0; i < n; ++i)
      for (int y = g.top[i]; y <= g.bottom[i]; ++y) {
        const int x = g.left + i;
        if (inside(x - 1, y) && inside(x + 1, y) && inside(x, y - 1) && inside(x, y + 1)) continue;
        if (x < 0 || x >= w || y < 0 || y >= h) continue;
        std::copy(c, c + 3, px(x, y));
      }
  }
#ifdef CELERIS_HAVE_STB
  write_atomically(path, [&](const std::string& tmp) {
    if (!stbi_write_png(tmp.c_str(), w, h, 3, rgb.data(), w * 3))
      throw Error("cannot write " + path);
  });
#else
  (void)path;  // unreachable: png_supported() is false
#endif
}

}  // namespace celeris::cli
