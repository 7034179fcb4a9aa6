#include "extract/output/check_images.hpp"
#include "extract/settings/threads.hpp"
#include "extract/sextractor/pi.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace celeris::extract {

Image<float> background_image(const BackgroundMap& bkg, bool rms, int threads) {
  Image<float> out = Image<float>::uninitialized(bkg.width, bkg.height);
#pragma omp parallel for schedule(static) \
    num_threads(worker_threads(threads, int64_t(bkg.width) * bkg.height))
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

Image<float> segmentation_image(int width, int height, const ObjectList& objects,
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
    for (const Pixel p : objects[k]) {
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
    for (const Pixel p : objects[k]) seg[static_cast<size_t>(p.y) * width + p.x] = label(k);
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

namespace {

// SExtractor's polyline pen (graph.c): from the last point to the next, one pixel per step
// along the longer axis, each visited pixel incremented by `val` (so crossings add up).
class Pen {
 public:
  Pen(ImageView<float> img, float val) : img_(img), val_(val) {}
  void move(double x, double y) { x1_ = x, y1_ = y; }
  void draw(double x2, double y2) {
    const double dx = x2 - x1_, dy = y2 - y1_;
    if (std::fabs(dx) > std::fabs(dy)) {
      const double slope = dy / dx;
      const int ix1 = rint_floor(x1_), ix2 = rint_floor(x2);
      if (ix2 > ix1)
        for (int ix = ix1 + 1; ix <= ix2; ++ix) plot(ix, rint_floor(y1_ + (ix - x1_) * slope));
      else
        for (int ix = ix1 - 1; ix >= ix2; --ix) plot(ix, rint_floor(y1_ + (ix - x1_) * slope));
    } else {
      const double slope = dx / (dy == 0.0 ? 1.0 : dy);
      const int iy1 = rint_floor(y1_), iy2 = rint_floor(y2);
      if (iy2 > iy1)
        for (int iy = iy1 + 1; iy <= iy2; ++iy) plot(rint_floor(x1_ + (iy - y1_) * slope), iy);
      else
        for (int iy = iy1 - 1; iy >= iy2; --iy) plot(rint_floor(x1_ + (iy - y1_) * slope), iy);
    }
    move(x2, y2);
  }

 private:
  static int rint_floor(double v) { return static_cast<int>(std::floor(v + 0.5)); }
  void plot(int x, int y) {
    if (x >= 0 && x < img_.width && y >= 0 && y < img_.height) img_(x, y) += val_;
  }
  ImageView<float> img_;
  float val_;
  double x1_ = 0, y1_ = 0;
};

// SExtractor's 10-degree cosine and sine tables (float).
struct Polygon36 {
  float c[37], s[37];
  Polygon36() {
    for (int i = 0; i < 37; ++i) {
      c[i] = static_cast<float>(std::cos(i * kSexPi / 18));
      s[i] = static_cast<float>(std::sin(i * kSexPi / 18));
    }
  }
};

}  // namespace

Image<float> apertures_image(ImageView<const float> value, const Objects& objects,
                             const std::vector<double>& diameters, bool kron, float overlay) {
  static const Polygon36 g;
  Image<float> out = Image<float>::uninitialized(value.width, value.height);
  std::copy(value.data, value.data + value.size(), out.data());
  Pen pen(out.view(), overlay);
  for (size_t i = 0; i < objects.size(); ++i) {
    const double x = objects.x[i], y = objects.y[i];
    for (double d : diameters) {  // sexcircle
      const double r = d / 2.0;
      pen.move(x + r, y);
      for (int k = 0; k < 37; ++k) pen.draw(x + r * g.c[k], y + r * g.s[k]);
    }
    // sexellips; the semi-axes are a and b times the Kron (or Petrosian) factor, multiplied in
    // float.
    auto ellipse = [&](float factor) {
      const double a = static_cast<float>(objects.a[i]) * factor;
      const double b = static_cast<float>(objects.b[i]) * factor;
      const double theta = static_cast<float>(objects.theta[i]);
      const double ct = std::cos(kSexPi * theta / 180), st = std::sin(kSexPi * theta / 180);
      const bool dotted = objects.flags[i] & 1;
      pen.move(x + a * ct, y + a * st);
      for (int k = 1; k < 37; ++k) {
        const double px = x + a * g.c[k] * ct - b * g.s[k] * st;
        const double py = y + a * g.c[k] * st + b * g.s[k] * ct;
        if (dotted && !(k & 1))
          pen.move(px, py);
        else
          pen.draw(px, py);
      }
    };
    if (kron) ellipse(static_cast<float>(objects.kron_radius[i]));
    // --- hook: the Petrosian ellipse, when measured (analyse.c draws it after Kron's)
    if (!objects.petro_radius.empty()) ellipse(objects.petro_radius[i]);
  }
  return out;
}

Image<float> objects_image(ImageView<const float> value, const ObjectList& objects) {
  Image<float> out(value.width, value.height);  // zero-filled
  for (size_t i = 0; i < objects.pixel_count(); ++i)
    out(objects.x[i], objects.y[i]) = value(objects.x[i], objects.y[i]);
  return out;
}

Image<float> minus_objects_image(const PhotometryField& f) {
  const ImageView<const float> value = f.value;
  const bool blanking = f.mask_type != MaskType::None;
  Image<float> out = Image<float>::uninitialized(value.width, value.height);
  for (int y = 0; y < value.height; ++y)
    for (int x = 0; x < value.width; ++x) {
      const float v = value(x, y);
      out(x, y) = std::isnan(v) || (blanking && f.blanked(x, y, 0, INT64_MAX)) ? 0.0f : v;
    }
  return out;
}

std::vector<Image<float>> make_check_images(const std::vector<CheckImage>& types,
                                            const CheckImageSources& src) {
  const ImageView<const float> value = src.value;
  const int w = static_cast<int>(value.width), h = static_cast<int>(value.height);
  std::vector<Image<float>> out;
  out.reserve(types.size());
  for (CheckImage type : types) {
    switch (type) {
      case CheckImage::Background:
        out.push_back(background_image(*src.background, false, src.threads));
        break;
      case CheckImage::BackgroundRms:
        out.push_back(background_image(*src.background, true, src.threads));
        break;
      case CheckImage::MiniBackground:
        out.push_back(mesh_image(*src.background, false));
        break;
      case CheckImage::MiniBackRms:
        out.push_back(mesh_image(*src.background, true));
        break;
      case CheckImage::MinusBackground: {
        Image<float> copy = Image<float>::uninitialized(w, h);
        std::copy(value.data, value.data + value.size(), copy.data());
        out.push_back(std::move(copy));
        break;
      }
      case CheckImage::Filtered: {
        // Pixels whose filter support touches a masked pixel (-inf there) are written as NaN.
        Image<float> copy = Image<float>::uninitialized(w, h);
        for (int64_t i = 0; i < src.filtered.size(); ++i)
          copy.data()[i] = std::isinf(src.filtered.data[i])
                               ? std::numeric_limits<float>::quiet_NaN()
                               : src.filtered.data[i];
        out.push_back(std::move(copy));
        break;
      }
      case CheckImage::Segmentation:
        out.push_back(
            segmentation_image(w, h, *src.objects, src.cleaned->order, src.cleaned->removed));
        break;
      case CheckImage::Objects:
        out.push_back(objects_image(value, *src.objects));
        break;
      case CheckImage::MinusObjects:
        out.push_back(minus_objects_image(*src.field));
        break;
      case CheckImage::Apertures:
        out.push_back(
            apertures_image(value, *src.catalog, src.aperture_diameters, src.kron, src.overlay));
        break;
    }
  }
  return out;
}

}  // namespace celeris::extract
