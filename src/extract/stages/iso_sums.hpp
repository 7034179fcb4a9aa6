// The per-pixel half of an object's isophotal measurements (SExtractor analyse.c:examineiso)
// and CLEAN's threshold, written once for the CPU (isophotal.cpp) and the GPU
// (gpu/shape_kernels.cu): the peaks, ISOAREA, the isophotal flux and variance sums and the
// position-error sums, in the pixels' order. Arithmetic and comparisons only (a sqrt with
// weights), so the GPU (compiled without FMA contraction) gives the CPU's sums bit for bit. The
// FWHM fit takes a log per pixel and stays on the host (isophotal.cpp). Plain C++17, no CUDA
// headers.
#pragma once

#include <math.h>

#include <cfloat>
#include <cstdint>

#include "celeris/host_device.hpp"
#include "extract/objects.hpp"

namespace celeris::extract {

// What every pixel's terms take, fixed for a frame (isophotal.cpp iso_sum_params).
struct IsoSumParams {
  double backnoise2 = 0;   // backsig^2, squared in float as SExtractor
  double dbacknoise2 = 0;  // the same of the detection image (dual-image mode), else backnoise2
  double gain = 0;
  float analysis_thresh = 0;
  double threshfac = 1;   // ANALYSIS_THRESH in sigmas (with measurement weights)
  bool weighted = false;  // measurement weights: each pixel's variance and threshold
  bool gainflag = false;  // weights with WEIGHT_GAIN Y
};

struct IsoSums {
  float peak = 0, cdpeak = 0;                     // max measured and filtered values
  int xpeak = 0, ypeak = 0;                       // the first pixel of the filtered maximum
  int area = 0;                                   // pixels above the analysis threshold (ISOAREA)
  double tv = 0, sigtv = 0;                       // flux and variance sums
  double esum = 0, emx2 = 0, emy2 = 0, emxy = 0;  // position-error sums
  float minthresh = 0;  // the analysis threshold (the smallest pixel's, with weights)
};

// What a pixel's terms read beyond its columns: the plain model (the GPU's, and the CPU's
// without dual-image mode, DETECT_TYPE PHOTO or a DGEO map) measures the pixel's own value.
struct PlainIsoModel {
  static constexpr bool kPhoto = false;  // DETECT_TYPE PHOTO: flux(pv, var, pix, var2)
  static constexpr bool kShift = false;  // a DGEO map: shift(p, x, y) moves the position
  CELERIS_HD float measured(const Pixel& p) const { return p.value; }
  CELERIS_HD void flux(float, double, float&, double&) const {}
  CELERIS_HD void shift(const Pixel&, double&, double&) const {}
};

// The sums over pixels px(0) .. px(n - 1) (each a Pixel), (mx, my) the object's barycentre.
template <class Pixels, class Model>
CELERIS_HD IsoSums iso_sums(const Pixels& px, int64_t n, double mx, double my,
                            const IsoSumParams& c, const Model& model) {
  // SExtractor's BIG, weights.hpp's kBig (that header is C++20, the kernels' C++17).
  constexpr float kBigVariance = 1e+30f;
  IsoSums r;
  double var = c.backnoise2;
  float thresh = c.analysis_thresh;
  float minthresh = c.weighted ? kBigVariance : thresh;
  float peak = -FLT_MAX, cdpeak = peak;
  int area = 0, xpeak = 0, ypeak = 0;
  double tv = 0, sigtv = 0, esum = 0, emx2 = 0, emy2 = 0, emxy = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Pixel p = px(i);
    const float pv = model.measured(p);
    if (pv > peak) peak = pv;
    if (p.cvalue > cdpeak) {
      cdpeak = p.cvalue;
      xpeak = p.x;
      ypeak = p.y;
    }
    if (c.weighted) {
      var = p.var;
      thresh = static_cast<float>(c.threshfac * sqrt(var));
      if (thresh < minthresh) minthresh = thresh;
    }
    float pix = pv;
    double var2 = var;
    if constexpr (Model::kPhoto) model.flux(pv, var, pix, var2);
    if (c.gainflag && pix > 0.0f && c.gain > 0.0) var2 += pix / c.gain * var / c.backnoise2;
    sigtv += var2;
    if (pix > thresh) ++area;
    tv += pix;
    double err = c.dbacknoise2;
    if (c.gain > 0.0 && p.cvalue > 0.0f) err += p.cvalue / c.gain;
    double x = p.x - mx, y = p.y - my;
    if constexpr (Model::kShift) model.shift(p, x, y);  // the true position
    esum += err;
    emx2 += err * x * x;
    emy2 += err * y * y;
    emxy += err * x * y;
  }
  r.peak = peak;
  r.cdpeak = cdpeak;
  r.xpeak = xpeak;
  r.ypeak = ypeak;
  r.area = area;
  r.tv = tv, r.sigtv = sigtv;
  r.esum = esum, r.emx2 = emx2, r.emy2 = emy2, r.emxy = emxy;
  r.minthresh = minthresh;
  return r;
}

// The CLEAN threshold of an object (SExtractor's mthresh): meant as the DETECT_MINAREA-th
// highest filtered value above the detection threshold, computed with SExtractor's heap
// exactly, quirks included (the pixel that triggers the sort is dropped; a sift step moves one
// index too far), because cleaning decisions depend on it. `heap` has room for `minarea`
// floats. The first sort is an insertion sort: any sort leaves the same values in the same
// places (equal floats are the same float here: the values are thresholded, never NaN).
template <class Pixels>
CELERIS_HD float clean_threshold(const Pixels& px, int64_t n, float dthresh, bool pixel_thresholds,
                                 int minarea, float* heap) {
  if (n < minarea) return 0.0f;
  for (int k = 0; k < minarea; ++k) heap[k] = 0.0f;
  int h = minarea;
  for (int64_t i = 0; i < n; ++i) {
    const Pixel p = px(i);
    const float tpix = p.cvalue - (pixel_thresholds ? p.dthresh : dthresh);
    if (h > 0) {
      heap[minarea - h] = tpix;
    } else if (h == 0) {
      for (int a = 1; a < minarea; ++a) {
        const float v = heap[a];
        int b = a;
        for (; b > 0 && v < heap[b - 1]; --b) heap[b] = heap[b - 1];
        heap[b] = v;
      }
    } else if (tpix > heap[0]) {
      heap[0] = tpix;
      for (int j = 0, k; (k = (j + 1) << 1) <= minarea; j = k) {
        if (k != minarea && heap[k - 1] > heap[k]) ++k;
        if (heap[j] <= heap[k - 1]) break;
        const float t = heap[k - 1];
        heap[k - 1] = heap[j];
        heap[j] = t;
      }
    }
    --h;
  }
  return heap[0];
}

}  // namespace celeris::extract
