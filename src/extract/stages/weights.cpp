// Weight maps: conversion to variance, the map's background scale, bad-pixel interpolation
// (SExtractor 2.25 weight.c, back.c, interpolate.c behaviour, own implementation).
#include "extract/stages/weights.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "extract/sextractor/pi.hpp"
#include "extract/stages/background_mode.hpp"

namespace celeris::extract {

namespace {

constexpr double kMinGoodFrac = 0.5;  // BACK_MINGOODFRAC

// The pixel and mesh loops' threads: the caller's count, 0 for the calling thread's OpenMP
// default (weights.hpp); and the fewest pixels worth a team (below, the calling thread).
int team(int threads) {
  return threads > 0 ? threads : omp_get_max_threads();
}
constexpr int64_t kParallelPixels = int64_t{1} << 16;
constexpr double kQuantNSigma = 5.0;
constexpr int kQuantMaxLevels = 4096;
constexpr double kQuantAMin = 4.0;

struct Histogram {
  int nlevels = 0;
  float qscale = 1, qzero = 0;
  double mean = 0;
  std::vector<int> counts;
};

Histogram histogram_of(double sum, double sum2, long n) {
  Histogram h;
  h.mean = sum / n;
  const double var = sum2 / n - h.mean * h.mean;
  const double sigma = var > 0.0 ? std::sqrt(var) : 0.0;
  const double step = std::sqrt(2.0 / kSexPi) * kQuantNSigma / kQuantAMin;
  h.nlevels = std::min(static_cast<int>(step * n + 1), kQuantMaxLevels);
  h.qscale = static_cast<float>(sigma > 0.0 ? 2 * kQuantNSigma * sigma / h.nlevels : 1.0);
  h.qzero = static_cast<float>(h.mean - kQuantNSigma * sigma);
  h.counts.assign(std::max(h.nlevels, 0), 0);
  return h;
}

// The mode of the variances of one mesh (backstat, backhisto and backguess on the weight map):
// the variances of the pixels that are good and whose image value passes the image mesh's own
// clipping and histogram range. kBadMesh when the mesh has too few good pixels.
// `var(x, y)`: the pixel's variance.
template <class Var>
float variance_mode(ImageView<const float> image, const Var& var, float wthresh, int x0, int y0,
                    int bw, int bh) {
  double sum = 0, sum2 = 0, wsum = 0, wsum2 = 0;
  long n = 0;
  for (int y = y0; y < y0 + bh; ++y)
    for (int x = x0; x < x0 + bw; ++x) {
      const double pix = image(x, y), wpix = var(x, y);
      if (!(wpix < wthresh) || std::isnan(pix)) continue;
      wsum += wpix;
      wsum2 += wpix * wpix;
      sum += pix;
      sum2 += pix * pix;
      ++n;
    }
  if (static_cast<float>(n) < static_cast<float>(bw * bh * kMinGoodFrac)) return kBadMesh;
  const double wmean = wsum / n, wsv = wsum2 / n - wmean * wmean;
  const double wsigma = wsv > 0.0 ? std::sqrt(wsv) : 0.0;
  const float wlcut = static_cast<float>(wmean - 2.0 * wsigma),
              whcut = static_cast<float>(wmean + 2.0 * wsigma);
  const double mean = sum / n, sv = sum2 / n - mean * mean;
  const double sigma = sv > 0.0 ? std::sqrt(sv) : 0.0;
  const float lcut = static_cast<float>(mean - 2.0 * sigma),
              hcut = static_cast<float>(mean + 2.0 * sigma);
  sum = sum2 = wsum = wsum2 = 0;
  n = 0;
  long wn = 0;
  for (int y = y0; y < y0 + bh; ++y)
    for (int x = x0; x < x0 + bw; ++x) {
      const float pix = image(x, y), wpix = var(x, y);
      if (!(wpix < wthresh && pix <= hcut && pix >= lcut)) continue;
      sum += pix;
      sum2 += static_cast<double>(pix) * pix;
      ++n;
      if (wpix <= whcut && wpix >= wlcut) {
        wsum += wpix;
        wsum2 += static_cast<double>(wpix) * wpix;
        ++wn;
      }
    }
  Histogram ih = histogram_of(sum, sum2, n), wh = histogram_of(wsum, wsum2, wn);
  const float cste = static_cast<float>(0.499999 - ih.qzero / ih.qscale);
  const float wcste = static_cast<float>(0.499999 - wh.qzero / wh.qscale);
  for (int y = y0; y < y0 + bh; ++y)
    for (int x = x0; x < x0 + bw; ++x) {
      const float pix = image(x, y), wpix = var(x, y);
      if (std::isnan(pix)) continue;
      const int bin = static_cast<int>(pix / ih.qscale + cste);
      if (!(wpix < wthresh && bin < ih.nlevels && bin >= 0)) continue;
      const int wbin = static_cast<int>(wpix / wh.qscale + wcste);
      if (wbin >= 0 && wbin < wh.nlevels) ++wh.counts[wbin];
    }
  const int nl = wh.nlevels;
  std::vector<int64_t> c0(nl + 1, 0), c1(nl + 1, 0), c2(nl + 1, 0);
  for (int i = 0; i < nl; ++i) {
    const int64_t hv = wh.counts[i];
    c0[i + 1] = c0[i] + hv;
    c1[i + 1] = c1[i] + hv * i;
    c2[i + 1] = c2[i] + hv * i * i;
  }
  const mode::Mode m = mode::histogram_mode(wh.counts.data(), c0.data(), c1.data(), c2.data(), nl,
                                            wh.mean, wh.qzero, wh.qscale);
  return m.back;
}

}  // namespace

const char* weight_type_name(WeightType type) {
  switch (type) {
    case WeightType::Background:
      return "BACKGROUND";
    case WeightType::MapRms:
      return "MAP_RMS";
    case WeightType::MapVar:
      return "MAP_VAR";
    case WeightType::MapWeight:
      return "MAP_WEIGHT";
    case WeightType::None:
      break;
  }
  return "NONE";
}

float variance_threshold(const WeightParams& weight) {
  // The defaults (0 for MAP_WEIGHT, kBig otherwise) are both the variance kBig.
  if (std::isnan(weight.thresh)) return kBig;
  float t = static_cast<float>(weight.thresh);
  to_variance(weight.type, 1.0f, &t, 1);
  return t;
}

void require_map_size(ImageView<const float> map, ImageView<const float> image) {
  if (map.width != image.width || map.height != image.height)
    throw Error("WEIGHT_IMAGE is " + std::to_string(map.width) + "x" + std::to_string(map.height) +
                ", the image " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                ": they must have the same size");
}

MapKind map_kind(WeightType type) {
  switch (type) {
    case WeightType::MapVar:
      return MapKind::Var;
    case WeightType::MapWeight:
      return MapKind::Weight;
    default:
      return MapKind::Rms;
  }
}

void to_variance(WeightType type, float sigfac, float* data, int64_t n, int threads) {
  if (type == WeightType::None) return;
  const float sigfac2 = sigfac * sigfac;
  const MapKind kind = map_kind(type);
  // Pixel by pixel on `threads` threads (a frame's map: 16.8 million pixels at 4096^2); a few
  // values (a threshold) on the calling thread.
  const int nt = n >= kParallelPixels ? team(threads) : 1;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t i = 0; i < n; ++i) data[i] = map_variance(kind, sigfac2, data[i]);
}

namespace {

template <class Var>
float scale_of(ImageView<const float> image, const Var& var, float wthresh,
               const BackgroundMap& image_map, const Config& config, int threads) {
  Config automatic = config;
  automatic.back_manual = false;
  BackgroundMap wm = mesh_layout(image.width, image.height, automatic);
  // Each mesh its own mode (the meshes on the calling thread's OpenMP team).
#pragma omp parallel for schedule(dynamic, 1) num_threads(team(threads))
  for (int py = 0; py < wm.ny; ++py)
    for (int px = 0; px < wm.nx; ++px) {
      const int x0 = px * wm.mesh_w, y0 = py * wm.mesh_h;
      const int bw = std::min(wm.mesh_w, wm.width - x0), bh = std::min(wm.mesh_h, wm.height - y0);
      const float mode = variance_mode(image, var, wthresh, x0, y0, bw, bh);
      wm.back[py * wm.nx + px] = mode;
      wm.sigma[py * wm.nx + px] = mode == kBadMesh ? kBadMesh : 0.0f;
    }
  finish_background(wm, automatic);  // bad meshes filled, median filter (filterback)
  std::vector<float> ratio;
  for (size_t i = 0; i < wm.back.size(); ++i) {
    const float w = wm.back[i];
    if (!(w > 0.0f)) continue;
    const float r = static_cast<float>(image_map.sigma[i] / std::sqrt(static_cast<double>(w)));
    if (r > 0.0f) ratio.push_back(r);
  }
  if (ratio.empty()) {
    std::fprintf(stderr,
                 "celeris extract: warning: null or negative global weighting factor: "
                 "defaulted to 1\n");
    return 1.0f;
  }
  return median_of(ratio);
}

}  // namespace

float weight_scale(ImageView<const float> image, ImageView<const float> var, float wthresh,
                   const BackgroundMap& image_map, const Config& config, int threads) {
  return scale_of(image, var, wthresh, image_map, config, threads);
}

float weight_scale_of_map(ImageView<const float> image, ImageView<const float> map, MapKind kind,
                          float wthresh, const BackgroundMap& image_map, const Config& config,
                          int threads) {
  // A pixel bad in the map fails every test of variance_mode that the masked image's NaN fails
  // (`wpix < wthresh` is among each loop's): the image needs no mask.
  const auto var = [&](int x, int y) { return map_variance(kind, 1.0f, map(x, y)); };
  return scale_of(image, var, wthresh, image_map, config, threads);
}

void interpolate_bad_pixels(ImageView<float> value, ImageView<float> var, float wthresh, int xlag,
                            int ylag, int threads) {
  const int64_t w = var.width, h = var.height;
  const bool all = value.data != nullptr;
  // The rows holding a bad pixel, found on all threads: a row without one changes nothing but
  // the columns' timeouts, all set to ylag (most rows of most maps).
  std::vector<uint8_t> row_bad(static_cast<size_t>(h));
#pragma omp parallel for schedule(static) num_threads(team(threads))
  for (int64_t y = 0; y < h; ++y) {
    const float* wd = var.row(y);
    bool bad = false;
    for (int64_t x = 0; x < w; ++x) bad |= wd[x] >= wthresh;
    row_bad[static_cast<size_t>(y)] = bad;
  }
  // Each column's timeout, valid from row set_at[x] on unless a row without a bad pixel came
  // after it (the last one: good_row), which set it to ylag.
  std::vector<int> ytimeout(static_cast<size_t>(w), 0);
  std::vector<int64_t> set_at(static_cast<size_t>(w), -1);
  int64_t good_row = -1;
  // SExtractor keeps each column's last values (backup, wbackup): those of the row before, as
  // interpolated, read here from the images themselves (zero before the first row, where no
  // column's timeout is set yet).
  const std::vector<float> zero(static_cast<size_t>(w), 0.0f);
  for (int64_t y = 0; y < h; ++y) {
    if (!row_bad[static_cast<size_t>(y)]) {
      good_row = y;
      continue;
    }
    float* wd = var.row(y);
    float* d = all ? value.row(y) : nullptr;
    const float* wbackup = y ? var.row(y - 1) : zero.data();
    const float* backup = all && y ? value.row(y - 1) : zero.data();
    int xtimeout = 0;  // as if the previous pixel were already interpolated
    for (int64_t x = 0; x < w; ++x) {
      int& yt = ytimeout[static_cast<size_t>(x)];
      int64_t& at = set_at[static_cast<size_t>(x)];
      if (good_row > at) yt = ylag;
      at = y;
      if (wd[x] >= wthresh) {  // a variance: the bigger the worse
        if (!xtimeout) {
          if (yt) {
            --yt;
            wd[x] = wbackup[x];
            if (all) d[x] = backup[x];
          }
        } else {
          --xtimeout;
          wd[x] = wd[x - 1];
          if (all) d[x] = d[x - 1];
        }
      } else {
        xtimeout = xlag;
        yt = ylag;
      }
    }
  }
}

float object_dthresh(const ObjectView& object, float global, bool weighted) {
  if (!weighted) return global;
  float m = kBig;
  for (size_t i = 0; i < object.size(); ++i) m = std::min(m, object.dthresh[i]);
  return m;
}

}  // namespace celeris::extract
