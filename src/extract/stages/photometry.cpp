#include "extract/stages/photometry.hpp"

#include <algorithm>
#include <cmath>

namespace celeris::extract {

namespace {

constexpr int kAperOversamp = 5;         // sub-pixels per axis on aperture boundaries
constexpr float kKronNSig = 6.0f;        // Kron radius integrated within 6 x the moment ellipse
constexpr double kCrowdThreshold = 0.1;  // double, as SExtractor: (float)12/120 > 0.1 holds
constexpr int kGrowthNStep = 64;
constexpr double kGrowthNSig = 6.0;

int rint_floor(double v) {
  return static_cast<int>(std::floor(v + 0.5));
}

// A pixel is bad when masked (NaN) or, with MASK_TYPE != NONE, detected as part of another
// object. Returns its usable value: the pixel itself, its mirror through the object centre
// (MASK_TYPE CORRECT) or 0.
struct PixelReader {
  const PhotometryField& f;
  const ApertureShape& s;
  int w, h;
  double cx, cy;  // centre of the mirror correction (float or double, as the caller's code)

  bool bad(int x, int y) const { return f.bad_weight(x, y) || masked(f.value, x, y); }
  // Kron's first pass reads the detection image and its weights instead (photom.c
  // computeautoflux).
  bool bad_for_radius(int x, int y) const {
    return f.bad_detect_weight(x, y) || masked(f.detection(), x, y);
  }
  bool masked(ImageView<const float> image, int x, int y) const {
    if (std::isnan(image(x, y))) return true;
    if (f.mask_type == MaskType::None) return false;
    return f.blanked(x, y, s.id, s.time);
  }

  // The mirror through the centre, in double arithmetic.
  double corrected(int x, int y) const {
    double var;
    return corrected(x, y, var);
  }
  // The same with its variance (with weights): the mirror's, or 0 with the value 0.
  double corrected(int x, int y, double& var) const {
    if (f.mask_type == MaskType::Correct) {
      const int x2 = static_cast<int>(2 * cx + 0.49999 - x);
      const int y2 = static_cast<int>(2 * cy + 0.49999 - y);
      if (x2 >= 0 && x2 < w && y2 >= s.fymin && y2 < std::min(s.fymax, h) && !bad(x2, y2)) {
        if (f.weighted()) var = f.var(x2, y2);
        return f.value(x2, y2);
      }
    }
    if (f.weighted()) var = 0.0;
    return 0.0;
  }
  // A pixel's value and variance as photom.c sums them: `var` is left as given (the global
  // variance) without weights.
  double read(int x, int y, double& var) const {
    if (bad(x, y)) return corrected(x, y, var);
    if (f.weighted()) var = f.var(x, y);
    return f.value(x, y);
  }
};

// Elliptical box half-extents for the ellipse cxx dx^2 + cyy dy^2 + cxy dx dy <= k^2.
// As SExtractor: cxy * cxy in float, the rest in double (its 4.0 and sqrt are double), each
// limit stored as a float.
void ellipse_limits(const ApertureShape& s, float k, float& dxlim, float& dylim) {
  const float cxy2 = s.cxy * s.cxy;
  dxlim = static_cast<float>(s.cxx - cxy2 / (4.0 * s.cyy));
  dxlim = dxlim > 0.0f ? static_cast<float>(k / std::sqrt(static_cast<double>(dxlim))) : 0.0f;
  dylim = static_cast<float>(s.cyy - cxy2 / (4.0 * s.cxx));
  dylim = dylim > 0.0f ? static_cast<float>(k / std::sqrt(static_cast<double>(dylim))) : 0.0f;
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

KronRegion kron_region(const ApertureShape& s, float k, double min_diameter) {
  KronRegion e;
  if (k * std::sqrt(static_cast<double>(s.a * s.b)) > min_diameter / 2.0) {
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
Box clip_box(int xmin, int xmax, int ymin, int ymax, int w, int h, const ApertureShape& s,
             uint16_t& flags) {
  const int fymin = std::max(s.fymin, 0), fymax = std::min(s.fymax, h);
  if (xmin < 0) xmin = 0, flags |= kFlagAperIncomplete;
  if (xmax > w) xmax = w, flags |= kFlagAperIncomplete;
  if (ymin < fymin) ymin = fymin, flags |= kFlagAperIncomplete;
  if (ymax > fymax) ymax = fymax, flags |= kFlagAperIncomplete;
  return {xmin, xmax, ymin, ymax};
}

}  // namespace

FluxResult aperture_flux(const PhotometryField& f, const ApertureShape& s, double diameter,
                         uint16_t& flags) {
  const int w = static_cast<int>(f.value.width), h = static_cast<int>(f.value.height);
  const PixelReader rd{f, s, w, h, s.mx, s.my};
  const float raper = static_cast<float>(diameter / 2);
  const float raper2 = raper * raper;
  const float rintlim = raper - 0.75f;
  const float rintlim2 = rintlim > 0.0f ? rintlim * rintlim : 0.0f;
  const float rextlim2 = (raper + 0.75f) * (raper + 0.75f);
  const float scale = 1.0f / kAperOversamp, scale2 = scale * scale;
  const float offset = 0.5f * (scale - 1.0f);
  const Box b =
      clip_box(static_cast<int>(s.mx - raper + 0.499999), static_cast<int>(s.mx + raper + 1.499999),
               static_cast<int>(s.my - raper + 0.499999), static_cast<int>(s.my + raper + 1.499999),
               w, h, s, flags);
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
        pix = std::exp(pix / ngamma);
        sigtv += var * locarea * pix * pix;
      } else {
        sigtv += var * locarea;
      }
      tv += locarea * pix;
      if (gainflag && pix > 0.0 && f.gain > 0.0) sigtv += pix / f.gain * var / backnoise2;
    }
  if (photo) {
    tv = ngamma * (tv - area * std::exp(static_cast<double>(s.dbkg / ngamma)));  // C exp
    sigtv /= ngamma * ngamma;
  } else {
    tv -= area * s.dbkg;
    if (!gainflag && f.gain > 0.0 && tv > 0.0) sigtv += tv / f.gain;
  }
  return {tv, std::sqrt(sigtv)};
}

AutoResult auto_flux(const PhotometryField& f, const ApertureShape& s, const AutoParams& p,
                     uint16_t& flags) {
  const double kron_fact = p.kron_fact, kron_min = p.kron_min;
  const int w = static_cast<int>(f.value.width), h = static_cast<int>(f.value.height);
  const PixelReader rd{f, s, w, h, s.mx, s.my};
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
        const double pix = f.detection()(x, y);
        ++area;
        r1 += std::sqrt(static_cast<double>(r2)) * pix;  // C sqrt: double
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
  if (static_cast<float>(areab) / area > kCrowdThreshold) flags |= kFlagNeighbours;

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
        pix = static_cast<float>(std::exp(static_cast<double>(static_cast<float>(pix) / ngamma)));
        sigtv += var * pix * pix;
      } else {
        sigtv += var;
      }
      tv += pix;
      if (gainflag && pix > 0.0 && f.gain > 0.0) sigtv += pix / f.gain * var / backnoise2;
    }
  if (static_cast<float>(areab) > kCrowdThreshold * area) flags |= kFlagNeighbours;
  if (photo) {
    tv = ngamma * (tv - area * std::exp(static_cast<double>(s.dbkg / ngamma)));  // C exp
    sigtv /= ngamma * ngamma;
  } else {
    tv -= static_cast<float>(area) * s.dbkg;  // an int times a float, in float, as SExtractor
    if (!gainflag && f.gain > 0.0 && tv > 0.0) sigtv += tv / f.gain;
  }
  out.flux = tv;
  out.fluxerr = std::sqrt(sigtv);
  out.kron_radius = tv > 0 ? kron : 0.0f;
  return out;
}

void flux_radius(const PhotometryField& f, const ApertureShape& s, float flux_auto,
                 const std::vector<double>& fractions, int count, double min_rlim, float* out,
                 uint16_t& flags, float* hl_radius) {
  const int w = static_cast<int>(f.value.width), h = static_cast<int>(f.value.height);
  const PixelReader rd{f, s, w, h, s.dmx, s.dmy};  // SExtractor's growth: double centre
  const double mx = s.dmx, my = s.dmy;
  const double rlim = std::max(kGrowthNSig * s.a, min_rlim);
  const double raper = rlim + 1.5, rextlim2 = raper * raper;
  const double stepdens = kGrowthNStep / rlim, step = 1 / stepdens;
  const double prevbinmargin = 0.75, nextbinmargin = step - 0.75;
  const double scale = 1.0 / kAperOversamp, scale2 = scale * scale, offset = 0.5 * (scale - 1.0);
  double growth[kGrowthNStep] = {0};
  // DETECT_TYPE PHOTO: growth.c takes exp(pixel / ngamma) less exp(dbkg / ngamma) (a float).
  const bool photo = f.ngamma != 0.0;
  const float pdbkg = photo ? static_cast<float>(std::exp(s.dbkg / f.ngamma)) : 0.0f;
  // fmod(r, step) is below prevbinmargin or above nextbinmargin for every r when the margins
  // overlap (step <= 1.5 px, i.e. rlim <= 96 px), which is the common case.
  const bool always_oversample = !(prevbinmargin <= nextbinmargin);
  // fmod(r, step) against the margins. r - floor(r * stepdens) * step is within a few ulps of
  // fmod's exact value (when the floor is one off, both are near 0 or step, on the same side of
  // the margins), so fmod, a slow libm call, is needed only that close to a margin.
  auto near_boundary = [&](double r) {
    double d = r - std::floor(r * stepdens) * step;
    if (std::fabs(d - prevbinmargin) < 1e-9 || std::fabs(d - nextbinmargin) < 1e-9)
      d = std::fmod(r, step);
    return d < prevbinmargin || d > nextbinmargin;
  };
  const Box b =
      clip_box(static_cast<int>(mx - raper + 0.499999), static_cast<int>(mx + raper + 1.499999),
               static_cast<int>(my - raper + 0.499999), static_cast<int>(my + raper + 1.499999), w,
               h, s, flags);
  // Adds to growth[jlo, jhi) what the pixels give those bins. Each bin receives its additions in
  // the same order as when every bin is filled in one pass (pixels in raster order, a pixel's
  // sub-samples in order), so the bins can be filled a range at a time.
  auto fill_bins = [&](int jlo, int jhi) {
    // A sub-sample lies within 0.566 px of its pixel's centre: pixels farther than that from
    // every radius of [jlo * step, jhi * step) give those bins nothing.
    constexpr double kReach = 0.75;
    const double rout = jhi * step + kReach, rin = jlo * step - kReach;
    const double rout2 = std::min(rout * rout, rextlim2), rin2 = rin > 0 ? rin * rin : -1.0;
    const int ylo = std::max(b.ymin, static_cast<int>(std::floor(my - rout))),
              yhi = std::min(b.ymax, static_cast<int>(std::ceil(my + rout)) + 1),
              xlo = std::max(b.xmin, static_cast<int>(std::floor(mx - rout))),
              xhi = std::min(b.xmax, static_cast<int>(std::ceil(mx + rout)) + 1);
    for (int y = ylo; y < yhi; ++y)
      for (int x = xlo; x < xhi; ++x) {
        double dx = x - mx, dy = y - my;
        const double r2 = dx * dx + dy * dy;
        if (r2 >= rout2 || r2 < rin2) continue;
        double pix = rd.bad(x, y) ? rd.corrected(x, y) : f.value(x, y);
        if (photo) pix = std::exp(pix / f.ngamma) - pdbkg;  // growth.c: ngamma a double
        const double r = std::sqrt(r2);
        // Sub-sampled near a bin boundary. When a bin is narrower than the margins every pixel
        // is, and fmod (a slow libm call) is not needed to know it.
        if (always_oversample || near_boundary(r)) {
          dx += offset;
          dy += offset;
          // The 25 squared sub-pixel distances (the same additions as SExtractor), then their
          // bins (independent square roots, vectorised), then the additions in SExtractor's
          // order, so every bin receives the same sequence of additions.
          double d2[kAperOversamp * kAperOversamp];
          int bins[kAperOversamp * kAperOversamp];
          int nb = 0;
          for (int sy = kAperOversamp; sy--; dy += scale) {
            double dx1 = dx;
            const double dy2 = dy * dy;
            for (int sx = kAperOversamp; sx--; dx1 += scale) d2[nb++] = dx1 * dx1 + dy2;
          }
          for (int k = 0; k < nb; ++k) bins[k] = static_cast<int>(std::sqrt(d2[k]) * stepdens);
          const double v = scale2 * pix;
          for (int k = 0; k < nb; ++k)
            if (bins[k] >= jlo && bins[k] < jhi) growth[bins[k]] += v;
        } else {
          const int j = static_cast<int>(r * stepdens);
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
  for (int jhi = kGrowthNStep / 4; filled < n; jhi = std::min(n, 2 * jhi)) {
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
  // --- hook: half-light radius for the windowed measurements (growth.c hl_radius) ---
  if (hl_radius) {
    float hl = static_cast<float>(std::fabs(radius_at(0.5 * flux_auto)));
    if (hl > rlim) hl = static_cast<float>(rlim);
    if (hl < 0.5f) hl = 0.5f;  // GROWTH_MINHLRAD
    *hl_radius = hl;
  }
}

}  // namespace celeris::extract
