// The per-object arithmetic of aperture photometry (SExtractor photom.c and growth.c), written
// once for the CPU (photometry.cpp) and the GPU (gpu/measure_kernels.cu): FLUX_APER, Kron's
// FLUX_AUTO / KRON_RADIUS and the FLUX_RADIUS growth curve. Plain C++17 over raw pointers, with
// no heap, no exceptions and no library calls whose results differ between glibc and CUDA: only
// IEEE + - * /, sqrt (correctly rounded on both), floor, ceil, fabs and fmod (exact on both). The
// sums run in the same order on both, and neither compiler contracts a * b + c into an FMA
// (photometry.cpp is built with -ffp-contract=off, the .cu with --fmad=false), so the GPU gives
// the CPU's results bit for bit.
#pragma once

#include <math.h>

#include <cstdint>

#include "celeris/host_device.hpp"
#include "extract/sextractor/blanking_view.hpp"

namespace celeris::extract {

// The measurement position and ellipse of one object (single precision, as SExtractor).
struct ApertureShape {
  int32_t id = 0;           // owner id of the object (k + 1)
  float mx = 0, my = 0;     // the centre as SExtractor's aperture and Kron code hold it (float)
  double dmx = 0, dmy = 0;  // the same in double, as its growth curve (FLUX_RADIUS) holds it
  float a = 0, b = 0, cxx = 0, cyy = 0, cxy = 0;
  int64_t time = INT64_MAX;          // scan line at which SExtractor measures it (writes it out)
  int64_t moment = -1;               // and the moment on that line (blanking_view.hpp; -1: time)
  int fymin = 0, fymax = INT32_MAX;  // rows in SExtractor's line buffer at that time
  float dbkg = 0;                    // local background, subtracted per pixel of an aperture
};

struct FluxResult {
  double flux = 0, fluxerr = 0;
};

struct AutoResult {
  double flux = 0, fluxerr = 0;
  float kron_radius = 0;
};

// PHOT_AUTOPARAMS and PHOT_AUTOAPERS.
struct AutoParams {
  double kron_fact = 2.5, kron_min = 3.5;
  double min_search = 0.0, min_flux = 0.0;  // minimum diameters of the search and the aperture
};

namespace phot {

// The FLAGS bits photometry sets (celeris/extract.hpp's kFlagNeighbours, kFlagAperIncomplete;
// photometry.cpp checks that they agree).
constexpr uint16_t kNeighbours = 1, kAperIncomplete = 16;

constexpr int kAperOversamp = 5;         // sub-pixels per axis on aperture boundaries
constexpr float kKronNSig = 6.0f;        // Kron radius integrated within 6 x the moment ellipse
constexpr double kCrowdThreshold = 0.1;  // double, as SExtractor: (float)12/120 > 0.1 holds
constexpr int kGrowthNStep = 64;
constexpr double kGrowthNSig = 6.0;

// What photometry reads, as raw pointers to width x height images in host or device memory
// (PhotometryField, photometry.hpp, is the CPU's form of it).
struct View {
  const float* value = nullptr;  // the background-subtracted measurement image
  int width = 0, height = 0;
  BlankingView blanking;      // which detected pixels are blanked when; code == nullptr: none
  bool mask_detected = true;  // MASK_TYPE BLANK or CORRECT: blanked pixels are bad
  bool correct = true;        // MASK_TYPE CORRECT: bad pixels replaced by their mirror
  float backsig = 1.0f;
  double gain = 0.0;
  // With weights: the measurement variance (null without), bad at or beyond wthresh, WEIGHT_GAIN.
  const float* var = nullptr;
  float wthresh = 0.0f;
  bool weight_gain = true;
  // With detection weights: the detection variance, whose bad pixels Kron's radius pass skips.
  const float* dvar = nullptr;
  float dwthresh = 0.0f;
  // Dual-image mode: the detection image less its background, which Kron's radius pass reads,
  // and its blanking, which lags behind the measurement image's (code == nullptr: `blanking`).
  const float* dvalue = nullptr;
  BlankingView dblanking;
  // DETECT_TYPE PHOTO: Config::photo_ngamma() (0 for CCD); the fluxes sum exp(pixel / ngamma).
  // The host's only: with PHOTO, --device cuda measures on the CPU (pipeline.cpp), since the
  // device's exp is not glibc's.
  double ngamma = 0;

  CELERIS_HD int64_t at(int x, int y) const { return int64_t(y) * width + x; }
  CELERIS_HD const float* detection() const { return dvalue ? dvalue : value; }
  CELERIS_HD bool weighted() const { return var != nullptr; }
};

CELERIS_HD inline bool is_nan(float v) {
  return v != v;
}
// std::min / std::max's results (the first argument on ties and NaN), on either compiler.
template <class T>
CELERIS_HD inline T min_of(T a, T b) {
  return b < a ? b : a;
}
template <class T>
CELERIS_HD inline T max_of(T a, T b) {
  return a < b ? b : a;
}

// A double truncated to int as the CPU build does it (x86-64's cvttsd2si): beyond int's range,
// and for NaN, INT_MIN ("integer indefinite"). CUDA's conversion saturates instead (NaN to 0),
// so the device reproduces the CPU's value explicitly: degenerate shapes (an infinite Kron box,
// a zero-radius growth curve) then skip the same pixels on both.
CELERIS_HD inline int to_int(double v) {
#ifdef __CUDA_ARCH__
  return v > -2147483649.0 && v < 2147483648.0 ? static_cast<int>(v) : INT32_MIN;
#else
  return static_cast<int>(v);
#endif
}

CELERIS_HD inline int rint_floor(double v) {
  return to_int(floor(v + 0.5));
}

// A pixel is bad when masked (NaN), beyond the weight threshold or, with MASK_TYPE != NONE,
// detected as part of another object. Returns its usable value: the pixel itself, its mirror
// through the object centre (MASK_TYPE CORRECT) or 0.
struct PixelReader {
  const View& f;
  const ApertureShape& s;
  double cx, cy;  // centre of the mirror correction (float or double, as the caller's code)

  CELERIS_HD bool masked(const float* image, const BlankingView& blanking, int x, int y) const {
    if (is_nan(image[f.at(x, y)])) return true;
    if (!f.mask_detected || !blanking.code) return false;
    return blanking.blanked(x, y, s.id, s.time, s.moment);
  }
  CELERIS_HD bool bad(int x, int y) const {
    return (f.var && f.var[f.at(x, y)] >= f.wthresh) || masked(f.value, f.blanking, x, y);
  }
  // Kron's first pass reads the detection image and its weights instead (photom.c
  // computeautoflux).
  CELERIS_HD bool bad_for_radius(int x, int y) const {
    return (f.dvar && f.dvar[f.at(x, y)] >= f.dwthresh) ||
           masked(f.detection(), f.dblanking.code ? f.dblanking : f.blanking, x, y);
  }

  // The mirror through the centre, in double arithmetic, with its variance (with weights): the
  // mirror's, or 0 with the value 0.
  CELERIS_HD double corrected(int x, int y, double& var) const {
    if (f.correct) {
      const int x2 = to_int(2 * cx + 0.49999 - x);
      const int y2 = to_int(2 * cy + 0.49999 - y);
      if (x2 >= 0 && x2 < f.width && y2 >= s.fymin && y2 < min_of(s.fymax, f.height) &&
          !bad(x2, y2)) {
        if (f.weighted()) var = f.var[f.at(x2, y2)];
        return f.value[f.at(x2, y2)];
      }
    }
    if (f.weighted()) var = 0.0;
    return 0.0;
  }
  CELERIS_HD double corrected(int x, int y) const {
    double var;
    return corrected(x, y, var);
  }
  // A pixel's value and variance as photom.c sums them: `var` is left as given (the global
  // variance) without weights.
  CELERIS_HD double read(int x, int y, double& var) const {
    if (bad(x, y)) return corrected(x, y, var);
    if (f.weighted()) var = f.var[f.at(x, y)];
    return f.value[f.at(x, y)];
  }
};

// Elliptical box half-extents for the ellipse cxx dx^2 + cyy dy^2 + cxy dx dy <= k^2.
// As SExtractor: cxy * cxy in float, the rest in double (its 4.0 and sqrt are double), each
// limit stored as a float.
CELERIS_HD inline void ellipse_limits(const ApertureShape& s, float k, float& dxlim, float& dylim) {
  const float cxy2 = s.cxy * s.cxy;
  dxlim = static_cast<float>(s.cxx - cxy2 / (4.0 * s.cyy));
  dxlim = dxlim > 0.0f ? static_cast<float>(k / sqrt(static_cast<double>(dxlim))) : 0.0f;
  dylim = static_cast<float>(s.cyy - cxy2 / (4.0 * s.cxx));
  dylim = dylim > 0.0f ? static_cast<float>(k / sqrt(static_cast<double>(dylim))) : 0.0f;
}

struct Box {
  int xmin, xmax, ymin, ymax;  // half-open
};

// The region of a Kron pass, cx2 dx^2 + cy2 dy^2 + cxy dx dy <= klim2, and its box half-extents:
// the moment ellipse scaled by k or, when k sqrt(A B) is not above min_diameter / 2, the circle
// of that diameter (PHOT_AUTOAPERS), as SExtractor decides it.
struct KronRegion {
  float cx2, cy2, cxy, dxlim, dylim, klim2;
  bool circle;
};

CELERIS_HD inline KronRegion kron_region(const ApertureShape& s, float k, double min_diameter) {
  KronRegion e;
  if (k * sqrt(static_cast<double>(s.a * s.b)) > min_diameter / 2.0) {
    e = {s.cxx, s.cyy, s.cxy, 0.0f, 0.0f, k * k, false};
    ellipse_limits(s, k, e.dxlim, e.dylim);
  } else {
    const float r = static_cast<float>(min_diameter / 2.0);
    e = {1.0f, 1.0f, 0.0f, r, r, r * r, true};
  }
  return e;
}

// Clipped to the image columns and the rows in the line buffer (s.fymin, s.fymax, at most h),
// flagging any clip, as SExtractor.
CELERIS_HD inline Box clip_box(int xmin, int xmax, int ymin, int ymax, int w, int h,
                               const ApertureShape& s, uint16_t& flags) {
  const int fymin = max_of(s.fymin, 0), fymax = min_of(s.fymax, h);
  if (xmin < 0) xmin = 0, flags |= kAperIncomplete;
  if (xmax > w) xmax = w, flags |= kAperIncomplete;
  if (ymin < fymin) ymin = fymin, flags |= kAperIncomplete;
  if (ymax > fymax) ymax = fymax, flags |= kAperIncomplete;
  return {xmin, xmax, ymin, ymax};
}

// FLUX_APER: the flux within a circle of `diameter` pixels, boundary pixels sub-sampled 5 x 5.
CELERIS_HD inline FluxResult aperture_flux(const View& f, const ApertureShape& s, double diameter,
                                           uint16_t& flags) {
  const int w = f.width, h = f.height;
  const PixelReader rd{f, s, s.mx, s.my};
  const float raper = static_cast<float>(diameter / 2);
  const float raper2 = raper * raper;
  const float rintlim = raper - 0.75f;
  const float rintlim2 = rintlim > 0.0f ? rintlim * rintlim : 0.0f;
  const float rextlim2 = (raper + 0.75f) * (raper + 0.75f);
  const float scale = 1.0f / kAperOversamp, scale2 = scale * scale;
  const float offset = 0.5f * (scale - 1.0f);
  const Box b =
      clip_box(to_int(s.mx - raper + 0.499999), to_int(s.mx + raper + 1.499999),
               to_int(s.my - raper + 0.499999), to_int(s.my + raper + 1.499999), w, h, s, flags);
  const double backnoise2 = f.backsig * f.backsig;  // in float, as SExtractor
  const bool gainflag = f.weighted() && f.weight_gain;
  const bool photo = f.ngamma != 0.0;
  const float ngamma = static_cast<float>(f.ngamma);
  double tv = 0, sigtv = 0, area = 0;
  for (int y = b.ymin; y < b.ymax; ++y)
    for (int x = b.xmin; x < b.xmax; ++x) {
      const float dx = x - s.mx, dy = y - s.my;
      const float r2 = dx * dx + dy * dy;
      if (r2 >= rextlim2) continue;
      float locarea;
      if (r2 > rintlim2) {
        locarea = 0.0f;
        float sdy = dy + offset;
        for (int sy = kAperOversamp; sy--; sdy += scale) {
          float sdx = dx + offset;
          for (int sx = kAperOversamp; sx--; sdx += scale)
            if (sdx * sdx + sdy * sdy < raper2) locarea += scale2;
        }
      } else {
        locarea = 1.0f;
      }
      area += locarea;
      double var = backnoise2;
      double pix = rd.read(x, y, var);
      if (photo) {  // photom.c: ngamma is a float there, pix a double
        pix = exp(pix / static_cast<double>(ngamma));
        sigtv += var * locarea * pix * pix;
      } else {
        sigtv += var * locarea;
      }
      tv += locarea * pix;
      if (gainflag && pix > 0.0 && f.gain > 0.0) sigtv += pix / f.gain * var / backnoise2;
    }
  if (photo) {
    tv = ngamma * (tv - area * exp(static_cast<double>(s.dbkg / ngamma)));
    sigtv /= ngamma * ngamma;
  } else {
    tv -= area * s.dbkg;
    if (!gainflag && f.gain > 0.0 && tv > 0.0) sigtv += tv / f.gain;
  }
  return {tv, sqrt(sigtv)};
}

// FLUX_AUTO, FLUXERR_AUTO and KRON_RADIUS (photom.c computeautoflux).
CELERIS_HD inline AutoResult auto_flux(const View& f, const ApertureShape& s, const AutoParams& p,
                                       uint16_t& flags) {
  const double kron_fact = p.kron_fact, kron_min = p.kron_min;
  const int w = f.width, h = f.height;
  const PixelReader rd{f, s, s.mx, s.my};
  const float* detection = f.detection();
  AutoResult out;
  // Pass 1: first moment of the light profile within 6 x the moment ellipse (Kron radius);
  // bad pixels are left out and counted.
  KronRegion e = kron_region(s, kKronNSig, p.min_search);
  Box b = clip_box(rint_floor(s.mx - e.dxlim), rint_floor(s.mx + e.dxlim) + 1,
                   rint_floor(s.my - e.dylim), rint_floor(s.my + e.dylim) + 1, w, h, s, flags);
  double r1 = 0, v1 = 0;
  int area = 0, areab = 0;
  for (int y = b.ymin; y < b.ymax; ++y)
    for (int x = b.xmin; x < b.xmax; ++x) {
      const float dx = x - s.mx, dy = y - s.my;
      const float r2 = e.cx2 * dx * dx + e.cy2 * dy * dy + e.cxy * dx * dy;
      if (r2 > e.klim2) continue;
      if (!rd.bad_for_radius(x, y)) {
        const double pix = detection[f.at(x, y)];
        ++area;
        r1 += sqrt(static_cast<double>(r2)) * pix;  // C sqrt: double
        v1 += pix;
      } else {
        ++areab;
      }
    }
  area += areab;
  if (!area) return out;
  float kron = (r1 > 0.0 && v1 > 0.0) ? static_cast<float>(kron_fact * r1 / v1)
                                      : static_cast<float>(kron_min);
  if (kron < static_cast<float>(kron_min)) kron = static_cast<float>(kron_min);
  if (static_cast<float>(areab) / area > kCrowdThreshold) flags |= kNeighbours;

  // Pass 2: flux within kron x the moment ellipse (or the PHOT_AUTOAPERS circle, and then a
  // KRON_RADIUS of 0, as SExtractor), whole pixels, bad pixels corrected.
  e = kron_region(s, kron, p.min_flux);
  if (e.circle) kron = 0.0f;
  b = clip_box(rint_floor(s.mx - e.dxlim), rint_floor(s.mx + e.dxlim) + 1,
               rint_floor(s.my - e.dylim), rint_floor(s.my + e.dylim) + 1, w, h, s, flags);
  const double backnoise2 = f.backsig * f.backsig;  // in float, as SExtractor
  const bool gainflag = f.weighted() && f.weight_gain;
  const bool photo = f.ngamma != 0.0;
  const float ngamma = static_cast<float>(f.ngamma);
  double tv = 0, sigtv = 0;
  area = areab = 0;
  for (int y = b.ymin; y < b.ymax; ++y)
    for (int x = b.xmin; x < b.xmax; ++x) {
      const float dx = x - s.mx, dy = y - s.my;
      if (e.cx2 * dx * dx + e.cy2 * dy * dy + e.cxy * dx * dy > e.klim2) continue;
      ++area;
      double var = backnoise2;
      if (rd.bad(x, y)) ++areab;
      double pix = rd.read(x, y, var);
      if (photo) {  // photom.c: pix and ngamma are floats there
        pix = static_cast<float>(exp(static_cast<double>(static_cast<float>(pix) / ngamma)));
        sigtv += var * pix * pix;
      } else {
        sigtv += var;
      }
      tv += pix;
      if (gainflag && pix > 0.0 && f.gain > 0.0) sigtv += pix / f.gain * var / backnoise2;
    }
  if (static_cast<float>(areab) > kCrowdThreshold * area) flags |= kNeighbours;
  if (photo) {
    tv = ngamma * (tv - area * exp(static_cast<double>(s.dbkg / ngamma)));
    sigtv /= ngamma * ngamma;
  } else {
    tv -= static_cast<float>(area) * s.dbkg;  // an int times a float, in float, as SExtractor
    if (!gainflag && f.gain > 0.0 && tv > 0.0) sigtv += tv / f.gain;
  }
  out.flux = tv;
  out.fluxerr = sqrt(sigtv);
  out.kron_radius = tv > 0 ? kron : 0.0f;
  return out;
}

// FLUX_RADIUS for each of the `count` fractions of `flux_auto`. The growth curve reaches
// 6 A_IMAGE, or `min_rlim` when larger (SExtractor compares that radius with the PHOT_AUTOAPERS
// diameter). `hl_radius`, when not null, receives SExtractor's internal half-light radius (at
// least 0.5 px), which sizes the windowed measurements' window.
CELERIS_HD inline void flux_radius(const View& f, const ApertureShape& s, float flux_auto,
                                   const double* fractions, int count, double min_rlim, float* out,
                                   uint16_t& flags, float* hl_radius) {
  const int w = f.width, h = f.height;
  const PixelReader rd{f, s, s.dmx, s.dmy};  // SExtractor's growth: double centre
  const double mx = s.dmx, my = s.dmy;
  const double rlim = max_of(kGrowthNSig * s.a, min_rlim);
  const double raper = rlim + 1.5, rextlim2 = raper * raper;
  const double stepdens = kGrowthNStep / rlim, step = 1 / stepdens;
  const double prevbinmargin = 0.75, nextbinmargin = step - 0.75;
  const double scale = 1.0 / kAperOversamp, scale2 = scale * scale, offset = 0.5 * (scale - 1.0);
  double growth[kGrowthNStep] = {0};
  // DETECT_TYPE PHOTO: growth.c takes exp(pixel / ngamma) less exp(dbkg / ngamma) (a float).
  const bool photo = f.ngamma != 0.0;
  const float pdbkg = photo ? static_cast<float>(exp(s.dbkg / f.ngamma)) : 0.0f;
  // fmod(r, step) is below prevbinmargin or above nextbinmargin for every r when the margins
  // overlap (step <= 1.5 px, i.e. rlim <= 96 px), which is the common case.
  const bool always_oversample = !(prevbinmargin <= nextbinmargin);
  // fmod(r, step) against the margins. r - floor(r * stepdens) * step is within a few ulps of
  // fmod's exact value (when the floor is one off, both are near 0 or step, on the same side of
  // the margins), so fmod, a slow libm call, is needed only that close to a margin.
  auto near_boundary = [&](double r) {
    double d = r - floor(r * stepdens) * step;
    if (fabs(d - prevbinmargin) < 1e-9 || fabs(d - nextbinmargin) < 1e-9) d = fmod(r, step);
    return d < prevbinmargin || d > nextbinmargin;
  };
  const Box b =
      clip_box(to_int(mx - raper + 0.499999), to_int(mx + raper + 1.499999),
               to_int(my - raper + 0.499999), to_int(my + raper + 1.499999), w, h, s, flags);
  // Adds to growth[jlo, jhi) what the pixels give those bins. Each bin receives its additions in
  // the same order as when every bin is filled in one pass (pixels in raster order, a pixel's
  // sub-samples in order), so the bins can be filled a range at a time.
  auto fill_bins = [&](int jlo, int jhi) {
    // A sub-sample lies within 0.566 px of its pixel's centre: pixels farther than that from
    // every radius of [jlo * step, jhi * step) give those bins nothing.
    constexpr double kReach = 0.75;
    const double rout = jhi * step + kReach, rin = jlo * step - kReach;
    const double rout2 = min_of(rout * rout, rextlim2), rin2 = rin > 0 ? rin * rin : -1.0;
    const int ylo = max_of(b.ymin, to_int(floor(my - rout))),
              yhi = min_of(b.ymax, to_int(ceil(my + rout)) + 1),
              xlo = max_of(b.xmin, to_int(floor(mx - rout))),
              xhi = min_of(b.xmax, to_int(ceil(mx + rout)) + 1);
    for (int y = ylo; y < yhi; ++y)
      for (int x = xlo; x < xhi; ++x) {
        double dx = x - mx, dy = y - my;
        const double r2 = dx * dx + dy * dy;
        if (r2 >= rout2 || r2 < rin2) continue;
        double pix = rd.bad(x, y) ? rd.corrected(x, y) : f.value[f.at(x, y)];
        if (photo) pix = exp(pix / f.ngamma) - pdbkg;  // growth.c: ngamma a double
        const double r = sqrt(r2);
        // Sub-sampled near a bin boundary. When a bin is narrower than the margins every pixel
        // is, and fmod (a slow libm call) is not needed to know it.
        if (always_oversample || near_boundary(r)) {
          dx += offset;
          dy += offset;
          // The 25 squared sub-pixel distances (the same additions as SExtractor), then their
          // bins (independent square roots, vectorised on the CPU), then the additions in
          // SExtractor's order, so every bin receives the same sequence of additions.
          double d2[kAperOversamp * kAperOversamp];
          int bins[kAperOversamp * kAperOversamp];
          int nb = 0;
          for (int sy = kAperOversamp; sy--; dy += scale) {
            double dx1 = dx;
            const double dy2 = dy * dy;
            for (int sx = kAperOversamp; sx--; dx1 += scale) d2[nb++] = dx1 * dx1 + dy2;
          }
          for (int k = 0; k < nb; ++k) bins[k] = to_int(sqrt(d2[k]) * stepdens);
          const double v = scale2 * pix;
          for (int k = 0; k < nb; ++k)
            if (bins[k] >= jlo && bins[k] < jhi) growth[bins[k]] += v;
        } else {
          const int j = to_int(r * stepdens);
          if (j >= jlo && j < jhi) growth[j] += pix;
        }
      }
  };
  const int n = kGrowthNStep - 1;  // the bins the radii are read from: 0 .. n - 1
  // The growth curve (cumulative) over the bins filled so far.
  double cumul[kGrowthNStep] = {0};
  int filled = 0;
  auto fill_to = [&](int jhi) {
    fill_bins(filled, jhi);
    for (int j = filled; j < jhi; ++j) cumul[j] = growth[j] + (j ? cumul[j - 1] : 0.0);
    filled = jhi;
  };
  // Whether the radius where the curve reaches tv is known from the bins filled: the first bin
  // reaching it is among them, or all of 0 .. n - 1 are filled.
  auto known = [&](double tv) {
    if (filled >= n) return true;
    for (int i = 0; i < filled; ++i)
      if (!(cumul[i] < tv)) return true;
    return false;
  };
  auto all_known = [&]() {
    for (int j = 0; j < count; ++j)
      if (!known(fractions[j] * flux_auto)) return false;
    return !hl_radius || known(0.5 * flux_auto);
  };
  // Fraction-of-light radii are mostly well inside the growth curve's 6 A_IMAGE: the bins are
  // filled outward, and only as far as the radii asked for need.
  for (int jhi = kGrowthNStep / 4; filled < n; jhi = min_of(n, 2 * jhi)) {
    fill_to(jhi);
    if (all_known()) break;
  }
  // The radius where the growth curve reaches tv.
  auto radius_at = [&](double tv) {
    const double* g = cumul;
    // First bin reaching tv; when none does, SExtractor interpolates between bins n-2 and n-1.
    int i = 0;
    while (i < n && g[i] < tv) ++i;
    const int cur = i < n ? i : n - 1;
    if (i) {
      const double dg = g[cur] - g[cur - 1];
      return step * (dg != 0.0 ? i + (tv - g[cur - 1]) / dg : i);
    }
    return step * (g[0] != 0.0 ? tv / g[0] : 0.0);
  };
  for (int j = 0; j < count; ++j) {
    float fr = static_cast<float>(radius_at(fractions[j] * flux_auto));
    if (fr > rlim) fr = static_cast<float>(rlim);
    out[j] = fr;
  }
  // The half-light radius for the windowed measurements (growth.c hl_radius).
  if (hl_radius) {
    float hl = static_cast<float>(fabs(radius_at(0.5 * flux_auto)));
    if (hl > rlim) hl = static_cast<float>(rlim);
    if (hl < 0.5f) hl = 0.5f;  // GROWTH_MINHLRAD
    *hl_radius = hl;
  }
}

}  // namespace phot
}  // namespace celeris::extract
