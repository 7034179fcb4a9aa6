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
  CELERIS_HD double read(bool is_bad, int x, int y, double& var) const {
    if (is_bad) return corrected(x, y, var);
    if (f.weighted()) var = f.var[f.at(x, y)];
    return f.value[f.at(x, y)];
  }
  CELERIS_HD double read(int x, int y, double& var) const { return read(bad(x, y), x, y, var); }
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

// Each measurement below is a sum over a box of pixels in raster order, written as two steps:
// `term(x, y, t)` makes one pixel's part (false: the pixel gives nothing), `add(t)` adds it to
// the sums. The CPU and the GPU's thread-per-object kernel call them pixel by pixel (sum_box);
// the GPU's warp-per-object form (gpu/measure_warp.cuh) makes 32 pixels' terms at once and adds
// them one by one in the same order. Every product is made in term(), so add() holds only the
// additions, whose order is part of a double sum's value.
template <class Sum>
CELERIS_HD inline void sum_box(Sum& sum) {
  typename Sum::Term t;
  for (int y = sum.box.ymin; y < sum.box.ymax; ++y)
    for (int x = sum.box.xmin; x < sum.box.xmax; ++x)
      if (sum.term(x, y, t)) sum.add(t);
}

// The measurements below take how a box is summed as an argument: by this thread alone
// (SumBoxOnOneThread, the default), or by a warp (gpu/measure_warp.cuh's WarpSumBox).
struct SumBoxOnOneThread {
  template <class Sum>
  CELERIS_HD void operator()(Sum& sum) const {
    sum_box(sum);
  }
};

// FLUX_APER: the flux within a circle of `diameter` pixels, boundary pixels sub-sampled 5 x 5.
class ApertureSum {
 public:
  struct Term {
    double tv, sig, gain_sig;  // tv's and sigtv's parts (gain_sig: with `gain` only)
    float area;
    bool gain;
  };
  Box box;

  CELERIS_HD ApertureSum(const View& f, const ApertureShape& s, double diameter, uint16_t& flags)
      : f_(f), s_(s), rd_{f, s, s.mx, s.my} {
    const float raper = static_cast<float>(diameter / 2);
    raper2_ = raper * raper;
    const float rintlim = raper - 0.75f;
    rintlim2_ = rintlim > 0.0f ? rintlim * rintlim : 0.0f;
    rextlim2_ = (raper + 0.75f) * (raper + 0.75f);
    box = clip_box(to_int(s.mx - raper + 0.499999), to_int(s.mx + raper + 1.499999),
                   to_int(s.my - raper + 0.499999), to_int(s.my + raper + 1.499999), f.width,
                   f.height, s, flags);
    backnoise2_ = f.backsig * f.backsig;  // in float, as SExtractor
    gainflag_ = f.weighted() && f.weight_gain;
    ngamma_ = static_cast<float>(f.ngamma);
  }

  CELERIS_HD bool term(int x, int y, Term& t) const {
    const float scale = 1.0f / kAperOversamp, scale2 = scale * scale;
    const float offset = 0.5f * (scale - 1.0f);
    const float dx = x - s_.mx, dy = y - s_.my;
    const float r2 = dx * dx + dy * dy;
    if (r2 >= rextlim2_) return false;
    float locarea;
    if (r2 > rintlim2_) {
      locarea = 0.0f;
      float sdy = dy + offset;
      for (int sy = kAperOversamp; sy--; sdy += scale) {
        float sdx = dx + offset;
        for (int sx = kAperOversamp; sx--; sdx += scale)
          if (sdx * sdx + sdy * sdy < raper2_) locarea += scale2;
      }
    } else {
      locarea = 1.0f;
    }
    t.area = locarea;
    double var = backnoise2_;
    double pix = rd_.read(x, y, var);
    if (f_.ngamma != 0.0) {  // photom.c: ngamma is a float there, pix a double
      pix = exp(pix / static_cast<double>(ngamma_));
      t.sig = var * locarea * pix * pix;
    } else {
      t.sig = var * locarea;
    }
    t.tv = locarea * pix;
    t.gain = gainflag_ && pix > 0.0 && f_.gain > 0.0;
    if (t.gain) t.gain_sig = pix / f_.gain * var / backnoise2_;
    return true;
  }
  CELERIS_HD void add(const Term& t) {
    area_ += t.area;
    sigtv_ += t.sig;
    tv_ += t.tv;
    if (t.gain) sigtv_ += t.gain_sig;
  }
  CELERIS_HD FluxResult result() const {
    double tv = tv_, sigtv = sigtv_;
    if (f_.ngamma != 0.0) {
      tv = ngamma_ * (tv - area_ * exp(static_cast<double>(s_.dbkg / ngamma_)));
      sigtv /= ngamma_ * ngamma_;
    } else {
      tv -= area_ * s_.dbkg;
      if (!gainflag_ && f_.gain > 0.0 && tv > 0.0) sigtv += tv / f_.gain;
    }
    return {tv, sqrt(sigtv)};
  }

 private:
  const View& f_;
  const ApertureShape& s_;
  PixelReader rd_;
  float raper2_, rintlim2_, rextlim2_, ngamma_;
  double backnoise2_;
  bool gainflag_;
  double tv_ = 0, sigtv_ = 0, area_ = 0;
};

template <class SumBox = SumBoxOnOneThread>
CELERIS_HD inline FluxResult aperture_flux(const View& f, const ApertureShape& s, double diameter,
                                           uint16_t& flags, const SumBox& sum_box_of = {}) {
  ApertureSum sum(f, s, diameter, flags);
  sum_box_of(sum);
  return sum.result();
}

// FLUX_AUTO's first pass (photom.c computeautoflux): the first moment of the light profile
// within 6 x the moment ellipse, for Kron's radius; bad pixels are left out and counted.
class KronRadiusSum {
 public:
  struct Term {
    double r1, v1;
    bool good;
  };
  Box box;

  CELERIS_HD KronRadiusSum(const View& f, const ApertureShape& s, const AutoParams& p,
                           uint16_t& flags)
      : f_(f), s_(s), p_(p), rd_{f, s, s.mx, s.my}, e_(kron_region(s, kKronNSig, p.min_search)) {
    box = clip_box(rint_floor(s.mx - e_.dxlim), rint_floor(s.mx + e_.dxlim) + 1,
                   rint_floor(s.my - e_.dylim), rint_floor(s.my + e_.dylim) + 1, f.width, f.height,
                   s, flags);
  }

  CELERIS_HD bool term(int x, int y, Term& t) const {
    const float dx = x - s_.mx, dy = y - s_.my;
    const float r2 = e_.cx2 * dx * dx + e_.cy2 * dy * dy + e_.cxy * dx * dy;
    if (r2 > e_.klim2) return false;
    t.good = !rd_.bad_for_radius(x, y);
    if (t.good) {
      const double pix = f_.detection()[f_.at(x, y)];
      t.r1 = sqrt(static_cast<double>(r2)) * pix;  // C sqrt: double
      t.v1 = pix;
    }
    return true;
  }
  CELERIS_HD void add(const Term& t) {
    if (t.good) {
      ++area_;
      r1_ += t.r1;
      v1_ += t.v1;
    } else {
      ++areab_;
    }
  }
  // Kron's factor for the second pass, and the crowding flag; false when the region held no
  // pixel (FLUX_AUTO, its error and KRON_RADIUS are then 0).
  CELERIS_HD bool kron(float& kron, uint16_t& flags) const {
    const int area = area_ + areab_;
    if (!area) return false;
    kron = (r1_ > 0.0 && v1_ > 0.0) ? static_cast<float>(p_.kron_fact * r1_ / v1_)
                                    : static_cast<float>(p_.kron_min);
    if (kron < static_cast<float>(p_.kron_min)) kron = static_cast<float>(p_.kron_min);
    if (static_cast<float>(areab_) / area > kCrowdThreshold) flags |= kNeighbours;
    return true;
  }

 private:
  const View& f_;
  const ApertureShape& s_;
  const AutoParams& p_;
  PixelReader rd_;
  KronRegion e_;
  double r1_ = 0, v1_ = 0;
  int area_ = 0, areab_ = 0;
};

// FLUX_AUTO's second pass: the flux within kron x the moment ellipse (or the PHOT_AUTOAPERS
// circle, and then a KRON_RADIUS of 0, as SExtractor), whole pixels, bad pixels corrected.
class KronFluxSum {
 public:
  struct Term {
    double tv, sig, gain_sig;  // gain_sig: with `gain` only
    bool bad, gain;
  };
  Box box;

  CELERIS_HD KronFluxSum(const View& f, const ApertureShape& s, const AutoParams& p, float kron,
                         uint16_t& flags)
      : f_(f), s_(s), rd_{f, s, s.mx, s.my}, e_(kron_region(s, kron, p.min_flux)), kron_(kron) {
    if (e_.circle) kron_ = 0.0f;
    box = clip_box(rint_floor(s.mx - e_.dxlim), rint_floor(s.mx + e_.dxlim) + 1,
                   rint_floor(s.my - e_.dylim), rint_floor(s.my + e_.dylim) + 1, f.width, f.height,
                   s, flags);
    backnoise2_ = f.backsig * f.backsig;  // in float, as SExtractor
    gainflag_ = f.weighted() && f.weight_gain;
    ngamma_ = static_cast<float>(f.ngamma);
  }

  CELERIS_HD bool term(int x, int y, Term& t) const {
    const float dx = x - s_.mx, dy = y - s_.my;
    if (e_.cx2 * dx * dx + e_.cy2 * dy * dy + e_.cxy * dx * dy > e_.klim2) return false;
    double var = backnoise2_;
    t.bad = rd_.bad(x, y);
    double pix = rd_.read(t.bad, x, y, var);
    if (f_.ngamma != 0.0) {  // photom.c: pix and ngamma are floats there
      pix = static_cast<float>(exp(static_cast<double>(static_cast<float>(pix) / ngamma_)));
      t.sig = var * pix * pix;
    } else {
      t.sig = var;
    }
    t.tv = pix;
    t.gain = gainflag_ && pix > 0.0 && f_.gain > 0.0;
    if (t.gain) t.gain_sig = pix / f_.gain * var / backnoise2_;
    return true;
  }
  CELERIS_HD void add(const Term& t) {
    ++area_;
    if (t.bad) ++areab_;
    sigtv_ += t.sig;
    tv_ += t.tv;
    if (t.gain) sigtv_ += t.gain_sig;
  }
  CELERIS_HD AutoResult result(uint16_t& flags) const {
    if (static_cast<float>(areab_) > kCrowdThreshold * area_) flags |= kNeighbours;
    double tv = tv_, sigtv = sigtv_;
    if (f_.ngamma != 0.0) {
      tv = ngamma_ * (tv - area_ * exp(static_cast<double>(s_.dbkg / ngamma_)));
      sigtv /= ngamma_ * ngamma_;
    } else {
      tv -= static_cast<float>(area_) * s_.dbkg;  // an int times a float, in float, as SExtractor
      if (!gainflag_ && f_.gain > 0.0 && tv > 0.0) sigtv += tv / f_.gain;
    }
    AutoResult out;
    out.flux = tv;
    out.fluxerr = sqrt(sigtv);
    out.kron_radius = tv > 0 ? kron_ : 0.0f;
    return out;
  }

 private:
  const View& f_;
  const ApertureShape& s_;
  PixelReader rd_;
  KronRegion e_;
  float kron_, ngamma_;
  double backnoise2_;
  bool gainflag_;
  double tv_ = 0, sigtv_ = 0;
  int area_ = 0, areab_ = 0;
};

// FLUX_AUTO, FLUXERR_AUTO and KRON_RADIUS (photom.c computeautoflux).
template <class SumBox = SumBoxOnOneThread>
CELERIS_HD inline AutoResult auto_flux(const View& f, const ApertureShape& s, const AutoParams& p,
                                       uint16_t& flags, const SumBox& sum_box_of = {}) {
  KronRadiusSum radius(f, s, p, flags);
  sum_box_of(radius);
  float kron;
  if (!radius.kron(kron, flags)) return AutoResult{};
  KronFluxSum flux(f, s, p, kron, flags);
  sum_box_of(flux);
  return flux.result(flags);
}

// The FLUX_RADIUS growth curve (growth.c): the flux in kGrowthNStep bins of radius out to
// 6 A_IMAGE, or `min_rlim` when larger (SExtractor compares that radius with the PHOT_AUTOAPERS
// diameter); pixels near a bin boundary are sub-sampled 5 x 5. The bins are filled outward, and
// only as far as the radii asked for need (fill_outward); the radii are read from the
// cumulative curve (radii).
class GrowthCurve {
 public:
  static constexpr int kSub = kAperOversamp * kAperOversamp;
  static constexpr int kBinsRead = kGrowthNStep - 1;  // the radii are read from bins 0 .. 62
  // The pixels that can give the bins [jlo, jhi) something.
  struct Window {
    double rout2, rin2;
    Box box;
  };
  double rlim, step;

  CELERIS_HD GrowthCurve(const View& f, const ApertureShape& s, double min_rlim, uint16_t& flags)
      : f_(f), rd_{f, s, s.dmx, s.dmy} {  // SExtractor's growth: double centre
    mx_ = s.dmx;
    my_ = s.dmy;
    rlim = max_of(kGrowthNSig * s.a, min_rlim);
    const double raper = rlim + 1.5;
    rextlim2_ = raper * raper;
    stepdens_ = kGrowthNStep / rlim;
    step = 1 / stepdens_;
    nextbinmargin_ = step - 0.75;
    // DETECT_TYPE PHOTO: growth.c takes exp(pixel / ngamma) less exp(dbkg / ngamma) (a float).
    pdbkg_ = f.ngamma != 0.0 ? static_cast<float>(exp(s.dbkg / f.ngamma)) : 0.0f;
    // fmod(r, step) is below prevbinmargin or above nextbinmargin for every r when the margins
    // overlap (step <= 1.5 px, i.e. rlim <= 96 px), which is the common case.
    always_oversample_ = !(kPrevBinMargin <= nextbinmargin_);
    box_ = clip_box(to_int(mx_ - raper + 0.499999), to_int(mx_ + raper + 1.499999),
                    to_int(my_ - raper + 0.499999), to_int(my_ + raper + 1.499999), f.width,
                    f.height, s, flags);
  }

  CELERIS_HD Window window(int jlo, int jhi) const {
    // A sub-sample lies within 0.566 px of its pixel's centre: pixels farther than that from
    // every radius of [jlo * step, jhi * step) give those bins nothing.
    constexpr double kReach = 0.75;
    const double rout = jhi * step + kReach, rin = jlo * step - kReach;
    Window w;
    w.rout2 = min_of(rout * rout, rextlim2_);
    w.rin2 = rin > 0 ? rin * rin : -1.0;
    w.box = {max_of(box_.xmin, to_int(floor(mx_ - rout))),
             min_of(box_.xmax, to_int(ceil(mx_ + rout)) + 1),
             max_of(box_.ymin, to_int(floor(my_ - rout))),
             min_of(box_.ymax, to_int(ceil(my_ + rout)) + 1)};
    return w;
  }

  // Pixel (x, y) of window w: the bins its kSub sub-samples fall in, in SExtractor's order, each
  // to receive v (returns kSub), or its one bin to receive v (returns 1), or 0 when the pixel
  // gives the window's bins nothing. Bins outside [jlo, jhi) are for the caller to skip.
  CELERIS_HD int pixel(const Window& w, int x, int y, double& v, int* bins) const {
    double dx = x - mx_, dy = y - my_;
    const double r2 = dx * dx + dy * dy;
    if (r2 >= w.rout2 || r2 < w.rin2) return 0;
    double pix = rd_.bad(x, y) ? rd_.corrected(x, y) : f_.value[f_.at(x, y)];
    if (f_.ngamma != 0.0) pix = exp(pix / f_.ngamma) - pdbkg_;  // growth.c: ngamma a double
    const double r = sqrt(r2);
    // Sub-sampled near a bin boundary. When a bin is narrower than the margins every pixel is,
    // and fmod (a slow libm call) is not needed to know it.
    if (!always_oversample_ && !near_boundary(r)) {
      bins[0] = to_int(r * stepdens_);
      v = pix;
      return 1;
    }
    const double scale = 1.0 / kAperOversamp, offset = 0.5 * (scale - 1.0);
    dx += offset;
    dy += offset;
    // The 25 squared sub-pixel distances (the same additions as SExtractor), then their bins
    // (independent square roots, vectorised on the CPU); every bin then receives the same
    // sequence of additions as in SExtractor's loop.
    double d2[kSub];
    int nb = 0;
    for (int sy = kAperOversamp; sy--; dy += scale) {
      double dx1 = dx;
      const double dy2 = dy * dy;
      for (int sx = kAperOversamp; sx--; dx1 += scale) d2[nb++] = dx1 * dx1 + dy2;
    }
    for (int k = 0; k < kSub; ++k) bins[k] = to_int(sqrt(d2[k]) * stepdens_);
    v = scale * scale * pix;
    return kSub;
  }

  // The bins the first fill makes: a quarter of them, whatever the radii asked for (the first
  // fill needs no flux, so the GPU makes it beside the kernel that measures FLUX_AUTO).
  static constexpr int kFirstFill = kGrowthNStep / 4;

  // Fills the bins outward (kFirstFill of them, then twice as many each time) until the radii
  // asked for are known: fill(jlo, jhi) adds the pixels' parts to bins [jlo, jhi) and sets
  // cumul[jlo .. jhi) (cumul[j]: the flux of bins 0 .. j). `filled`: kFirstFill when the
  // first fill was made already (cumul[0 .. kFirstFill) set), the same sequence from there.
  template <class Fill>
  CELERIS_HD void fill_outward(Fill&& fill, const double* cumul, const double* fractions, int count,
                               float flux_auto, bool hl, int filled = 0) const {
    auto all_known = [&] {
      bool all = true;
      for (int j = 0; all && j < count; ++j) all = known(cumul, filled, fractions[j] * flux_auto);
      return all && (!hl || known(cumul, filled, 0.5 * flux_auto));
    };
    if (filled > 0 && all_known()) return;
    for (int jhi = filled > 0 ? min_of(kBinsRead, 2 * filled) : kFirstFill; filled < kBinsRead;
         jhi = min_of(kBinsRead, 2 * jhi)) {
      fill(filled, jhi);
      filled = jhi;
      if (all_known()) break;
    }
  }

  // FLUX_RADIUS for each fraction of flux_auto into out; `hl_radius`, when not null, receives
  // SExtractor's internal half-light radius (at least 0.5 px), which sizes the windowed
  // measurements' window.
  CELERIS_HD void radii(const double* cumul, const double* fractions, int count, float flux_auto,
                        float* out, float* hl_radius) const {
    for (int j = 0; j < count; ++j) {
      float fr = static_cast<float>(radius_at(cumul, fractions[j] * flux_auto));
      if (fr > rlim) fr = static_cast<float>(rlim);
      out[j] = fr;
    }
    if (hl_radius) {  // growth.c hl_radius
      float hl = static_cast<float>(fabs(radius_at(cumul, 0.5 * flux_auto)));
      if (hl > rlim) hl = static_cast<float>(rlim);
      if (hl < 0.5f) hl = 0.5f;  // GROWTH_MINHLRAD
      *hl_radius = hl;
    }
  }

 private:
  static constexpr double kPrevBinMargin = 0.75;

  // fmod(r, step) against the margins. r - floor(r * stepdens) * step is within a few ulps of
  // fmod's exact value (when the floor is one off, both are near 0 or step, on the same side of
  // the margins), so fmod, a slow libm call, is needed only that close to a margin.
  CELERIS_HD bool near_boundary(double r) const {
    double d = r - floor(r * stepdens_) * step;
    if (fabs(d - kPrevBinMargin) < 1e-9 || fabs(d - nextbinmargin_) < 1e-9) d = fmod(r, step);
    return d < kPrevBinMargin || d > nextbinmargin_;
  }
  // Whether the radius where the curve reaches tv is known from the bins filled: the first bin
  // reaching it is among them, or all of those read are filled.
  CELERIS_HD static bool known(const double* cumul, int filled, double tv) {
    if (filled >= kBinsRead) return true;
    for (int i = 0; i < filled; ++i)
      if (!(cumul[i] < tv)) return true;
    return false;
  }
  // The radius where the growth curve reaches tv: the first bin reaching it or, when none does,
  // SExtractor's interpolation between bins n-2 and n-1.
  CELERIS_HD double radius_at(const double* g, double tv) const {
    constexpr int n = kBinsRead;
    int i = 0;
    while (i < n && g[i] < tv) ++i;
    const int cur = i < n ? i : n - 1;
    if (i) {
      const double dg = g[cur] - g[cur - 1];
      return step * (dg != 0.0 ? i + (tv - g[cur - 1]) / dg : i);
    }
    return step * (g[0] != 0.0 ? tv / g[0] : 0.0);
  }

  const View& f_;
  PixelReader rd_;
  double mx_, my_, rextlim2_, stepdens_, nextbinmargin_;
  float pdbkg_;
  bool always_oversample_;
  Box box_;
};

// FLUX_RADIUS for each of the `count` fractions of `flux_auto` (GrowthCurve).
CELERIS_HD inline void flux_radius(const View& f, const ApertureShape& s, float flux_auto,
                                   const double* fractions, int count, double min_rlim, float* out,
                                   uint16_t& flags, float* hl_radius) {
  const GrowthCurve g(f, s, min_rlim, flags);
  double growth[kGrowthNStep] = {0};
  double cumul[kGrowthNStep] = {0};
  auto fill = [&](int jlo, int jhi) {
    const GrowthCurve::Window w = g.window(jlo, jhi);
    double v;
    int bins[GrowthCurve::kSub];
    for (int y = w.box.ymin; y < w.box.ymax; ++y)
      for (int x = w.box.xmin; x < w.box.xmax; ++x) {
        const int nb = g.pixel(w, x, y, v, bins);
        for (int k = 0; k < nb; ++k)
          if (bins[k] >= jlo && bins[k] < jhi) growth[bins[k]] += v;
      }
    for (int j = jlo; j < jhi; ++j) cumul[j] = growth[j] + (j ? cumul[j - 1] : 0.0);
  };
  g.fill_outward(fill, cumul, fractions, count, flux_auto, hl_radius != nullptr);
  g.radii(cumul, fractions, count, flux_auto, out, hl_radius);
}

// flux_radius as an argument (gpu/measure_object.hpp), beside a warp's (gpu/measure_warp.cuh).
struct FluxRadiusOnOneThread {
  CELERIS_HD void operator()(const View& f, const ApertureShape& s, float flux_auto,
                             const double* fractions, int count, double min_rlim, float* out,
                             uint16_t& flags, float* hl_radius) const {
    flux_radius(f, s, flux_auto, fractions, count, min_rlim, out, flags, hl_radius);
  }
};

}  // namespace phot
}  // namespace celeris::extract
