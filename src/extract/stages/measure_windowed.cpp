// SExtractor 2.25's windowed centroid (winpos.c compute_winpos), reproduced in its arithmetic:
// the loop variables float or double as SExtractor declares them, so that catalogs agree to the
// last printed digit.
#include "extract/stages/measure_windowed.hpp"
#include "extract/stages/moments.hpp"

#include <algorithm>
#include <cmath>

#include "extract/sextractor/pi.hpp"

namespace celeris::extract {

namespace {

constexpr int kNIterMax = 16;        // WINPOS_NITERMAX
constexpr int kNSig = 4;             // WINPOS_NSIG: window radius in sigmas
constexpr int kOversamp = 11;        // WINPOS_OVERSAMP: sub-pixels per axis near the edge
constexpr double kStepMin = 0.0001;  // WINPOS_STEPMIN: convergence, pixels
constexpr double kFac = 2.0;         // WINPOS_FAC: centroid step factor (2 for a Gaussian)

// A pixel is bad when masked (NaN) or, with MASK_TYPE != NONE, blanked as another object's at
// the object's measurement time: SExtractor's "<= -BIG" test, as the apertures make it; or,
// with weights, when its variance is at or beyond WEIGHT_THRESH.
bool bad(const PhotometryField& f, const ApertureShape& s, int x, int y) {
  if (f.bad_weight(x, y) || std::isnan(f.value(x, y))) return true;
  return f.mask_type != MaskType::None && f.blanked(x, y, s.id, s.time, s.moment);
}

}  // namespace

void error_ellipse(double mx2, double my2, double mxy, float& a, float& b, float& theta) {
  double temp = mx2 - my2;
  const double t = std::fabs(temp) > 0.0 ? std::atan2(2.0 * mxy, temp) / 2.0 : kSexPi / 4.0;
  temp = std::sqrt(0.25 * temp * temp + mxy * mxy);
  const double pm = 0.5 * (mx2 + my2);
  a = static_cast<float>(std::sqrt(pm + temp));
  b = static_cast<float>(std::sqrt(pm - temp));
  theta = static_cast<float>(t * 180.0 / kSexPi);
}

WindowedResult windowed(const PhotometryField& f, const ApertureShape& s,
                        const WindowedStart& start, uint16_t& flags) {
  const int w = static_cast<int>(f.value.width), h = static_cast<int>(f.value.height);
  const int fymin = s.fymin, fymax = std::min(s.fymax, h);
  const bool correct = f.mask_type == MaskType::Correct;
  const double backnoise2 = f.backsig * f.backsig;  // the product in float, as SExtractor
  const double invgain = f.gain > 0.0 ? 1.0 / f.gain : 0.0;
  // With weights each pixel's variance enters the errors, and WEIGHT_GAIN scales the Poisson
  // term by variance / global variance (winpos.c gainflag).
  const bool gainflag = f.weighted() && f.weight_gain;
  // DETECT_TYPE PHOTO (winpos.c): the pixel's flux expf(pixel x 1/ngamma), 1/ngamma a float; no
  // background term; the error var x locpix x flux / ngamma^2 without the gain term.
  const bool photo = f.ngamma != 0.0;
  const float invngamma = photo ? static_cast<float>(1.0 / f.ngamma) : 0.0f;
  // Window sigma from the half-light radius ("from half-FWHM to sigma"); float, as SExtractor.
  const float sig = static_cast<float>(start.hl_radius * 2.0 / 2.35);
  const float invtwosig2 = static_cast<float>(1.0 / (2.0 * sig * sig));
  const float raper = kNSig * sig, raper2 = raper * raper;
  // Pixels between these radii straddle the window edge and are sub-sampled.
  const float rintlim = static_cast<float>(raper - 0.75);
  const float rintlim2 = rintlim > 0.0f ? rintlim * rintlim : 0.0f;
  const float rextlim2 = static_cast<float>((raper + 0.75) * (raper + 0.75));
  const float scale = static_cast<float>(1.0 / kOversamp), scale2 = scale * scale;
  const float offset = static_cast<float>(0.5 * (scale - 1.0));

  double mx = start.mx, my = start.my;
  double tv = 0, esum = 0, emx2 = 0, emy2 = 0, emxy = 0, mx2 = 0, my2 = 0, mxy = 0;
  double dxpos = 0, dypos = 0, ddxpos = 0, ddypos = 0;
  const DgeoMap* dgeo = start.dgeo;
  // winpos.c takes the isophotal mean shift into double.
  const double dmx = start.dgeox, dmy = start.dgeoy;
  int iter;
  for (iter = 0; iter < kNIterMax; ++iter) {
    int xmin = static_cast<int>(mx - raper + 0.499999);
    int xmax = static_cast<int>(mx + raper + 1.499999);
    int ymin = static_cast<int>(my - raper + 0.499999);
    int ymax = static_cast<int>(my + raper + 1.499999);
    // Mirror centre, at the pixel position of the barycentre.
    const double mx2ph = (mx + dmx) * 2.0 + 0.49999, my2ph = (my + dmy) * 2.0 + 0.49999;
    if (xmin < 0) xmin = 0, flags |= kFlagAperIncomplete;
    if (xmax > w) xmax = w, flags |= kFlagAperIncomplete;
    if (ymin < fymin) ymin = fymin, flags |= kFlagAperIncomplete;
    if (ymax > fymax) ymax = fymax, flags |= kFlagAperIncomplete;
    tv = esum = emxy = emx2 = emy2 = mx2 = my2 = mxy = 0.0;
    dxpos = dypos = ddxpos = ddypos = 0.0;
    for (int y = ymin; y < ymax; ++y)
      for (int x = xmin; x < xmax; ++x) {
        float dx = static_cast<float>(x - mx), dy = static_cast<float>(y - my);
        float ddx = 0, ddy = 0;
        if (dgeo) {
          ddx = dgeo->dx(x, y);
          ddy = dgeo->dy(x, y);
          dx -= ddx;
          dy -= ddy;
        }
        const float r2 = dx * dx + dy * dy;
        if (!(r2 < rextlim2)) continue;
        float locarea = 1.0f;
        if (r2 > rintlim2) {
          dx += offset;
          dy += offset;
          locarea = 0.0f;
          for (int sy = kOversamp; sy--; dy += scale) {
            float dx1 = dx;
            const float dy2 = dy * dy;
            for (int sx = kOversamp; sx--; dx1 += scale)
              if (dx1 * dx1 + dy2 < raper2) locarea += scale2;
          }
        }
        locarea *= std::exp(-r2 * invtwosig2);  // expf
        double pix = f.value(x, y);
        double var = f.weighted() ? f.var(x, y) : backnoise2;
        if (bad(f, s, x, y)) {
          // The mirror (MASK_TYPE CORRECT) with its variance, else 0 and (weights) 0.
          pix = 0.0;
          if (f.weighted()) var = 0.0;
          if (correct) {
            const int x2 = static_cast<int>(mx2ph - x), y2 = static_cast<int>(my2ph - y);
            if (x2 >= 0 && x2 < w && y2 >= fymin && y2 < fymax && !bad(f, s, x2, y2)) {
              pix = f.value(x2, y2);
              if (f.weighted()) var = f.var(x2, y2);
            }
          }
        }
        if (photo) pix = std::exp(static_cast<float>(pix * invngamma));  // expf
        const double locpix = locarea * pix;
        tv += locpix;
        dx = static_cast<float>(x - mx);
        dy = static_cast<float>(y - my);
        if (dgeo) {
          dx -= ddx;
          dy -= ddy;
          ddxpos += locpix * ddx;
          ddypos += locpix * ddy;
        }
        dxpos += locpix * dx;
        dypos += locpix * dy;
        double err = var;
        if (photo)
          err *= locpix * pix * invngamma * invngamma;
        else if (invgain > 0.0 && pix > 0.0)
          err += gainflag ? pix * invgain * var / backnoise2 : pix * invgain;
        const double err2 = locarea * locarea * err;
        esum += err2;
        emx2 += err2 * (dx * dx + 0.0833);  // finite pixel size
        emy2 += err2 * (dy * dy + 0.0833);
        emxy += err2 * dx * dy;
        mx2 += locpix * dx * dx;
        my2 += locpix * dy * dy;
        mxy += locpix * dx * dy;
      }
    if (!(tv > 0.0)) break;
    mx += (dxpos /= tv) * kFac;
    my += (dypos /= tv) * kFac;
    if (dxpos * dxpos + dypos * dypos < kStepMin * kStepMin) break;
  }
  // Moments about the last window centre (before its final step).
  mx2 = mx2 / tv - dxpos * dxpos;
  my2 = my2 / tv - dypos * dypos;
  mxy = mxy / tv - dxpos * dypos;

  WindowedResult r;
  r.niter = static_cast<int16_t>(iter + 1);
  r.flux = static_cast<float>(tv);
  r.fluxerr = static_cast<float>(std::sqrt(esum));
  if (dgeo) {
    r.dgeox = static_cast<float>((ddxpos / tv) * kFac);
    r.dgeoy = static_cast<float>((ddypos / tv) * kFac);
  }
  double temp2 = mx2 * my2 - mxy * mxy;
  // Off the 1-sigma footprint ellipse: the difference of the 1-based positions, in float.
  const float ddx = static_cast<float>((mx + 1.0) - (start.mx + 1.0));
  const float ddy = static_cast<float>((my + 1.0) - (start.my + 1.0));
  const double cx2 = start.cxx, cy2 = start.cyy, cxy = start.cxy;
  r.flags = static_cast<int16_t>(8 * (ddx * ddx > 1.0 && ddy * ddy > 1.0 &&
                                      (cx2 * ddx * ddx + cy2 * ddy * ddy + cxy * ddx * ddy) > 1.0) |
                                 4 * (tv <= 0.0) | 2 * (mx2 < 0.0 || my2 < 0.0) | (temp2 < 0.0));
  if (r.flags) {
    // SExtractor falls back on the isophotal values.
    r.x = start.mx;
    r.y = start.my;
    r.errx2 = start.errx2;
    r.erry2 = start.erry2;
    r.errxy = start.errxy;
    error_ellipse(start.errx2, start.erry2, start.errxy, r.erra, r.errb, r.errtheta);
    r.x2 = start.x2;
    r.y2 = start.y2;
    r.xy = start.xy;
    r.cxx = start.cxx;
    r.cyy = start.cyy;
    r.cxy = start.cxy;
    r.a = start.a;
    r.b = start.b;
    r.theta = start.theta;
    return r;
  }
  r.x = mx;
  r.y = my;
  const double norm = kFac * kFac / (tv * tv);
  emx2 *= norm;
  emy2 *= norm;
  emxy *= norm;
  // Fully correlated profiles (a singularity): as for the isophotal errors.
  esum *= 0.08333 * norm;
  guard_singular_errors(start.singular, esum, emx2, emy2, emxy);
  r.errx2 = emx2;
  r.erry2 = emy2;
  r.errxy = emxy;
  error_ellipse(emx2, emy2, emxy, r.erra, r.errb, r.errtheta);
  if (temp2 < 0.00694) {  // the 1/12 guard of the isophotal moments
    mx2 += 0.0833333;
    my2 += 0.0833333;
    temp2 = mx2 * my2 - mxy * mxy;
  }
  r.x2 = mx2;
  r.y2 = my2;
  r.xy = mxy;
  r.cxx = static_cast<float>(my2 / temp2);
  r.cyy = static_cast<float>(mx2 / temp2);
  r.cxy = static_cast<float>(-2 * mxy / temp2);
  error_ellipse(mx2, my2, mxy, r.a, r.b, r.theta);
  return r;
}

void resize_windowed(Objects& o, size_t n) {
  for (auto* v :
       {&o.xwin, &o.ywin, &o.errx2win, &o.erry2win, &o.errxywin, &o.x2win, &o.y2win, &o.xywin})
    v->assign(n, 0.0);
  for (auto* v : {&o.errawin, &o.errbwin, &o.errthetawin, &o.awin, &o.bwin, &o.thetawin, &o.cxxwin,
                  &o.cyywin, &o.cxywin, &o.flux_win, &o.fluxerr_win})
    v->assign(n, 0.0f);
  o.flags_win.assign(n, 0);
  o.niter_win.assign(n, 0);
}

void store_windowed(Objects& o, size_t i, const WindowedResult& r) {
  o.xwin[i] = r.x;
  o.ywin[i] = r.y;
  o.errx2win[i] = r.errx2;
  o.erry2win[i] = r.erry2;
  o.errxywin[i] = r.errxy;
  o.x2win[i] = r.x2;
  o.y2win[i] = r.y2;
  o.xywin[i] = r.xy;
  o.errawin[i] = r.erra;
  o.errbwin[i] = r.errb;
  o.errthetawin[i] = r.errtheta;
  o.awin[i] = r.a;
  o.bwin[i] = r.b;
  o.thetawin[i] = r.theta;
  o.cxxwin[i] = r.cxx;
  o.cyywin[i] = r.cyy;
  o.cxywin[i] = r.cxy;
  o.flux_win[i] = r.flux;
  o.fluxerr_win[i] = r.fluxerr;
  o.flags_win[i] = r.flags;
  o.niter_win[i] = r.niter;
}

}  // namespace celeris::extract
