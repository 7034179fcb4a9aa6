// SExtractor 2.25's Petrosian photometry (photom.c computepetroflux), in its arithmetic: the
// ellipse factors and limits in float, the sums in double, so that catalogs agree to the last
// printed digit.
#include "extract/stages/measure_petro.hpp"

#include <cmath>
#include <vector>

#include "extract/stages/measure_aperture_pixels.hpp"

namespace celeris::extract {

namespace {

constexpr double kPetroNSig = 6.0;       // PETRO_NSIG (3 * MARGIN_SCALE, a double)
constexpr double kCrowdThreshold = 0.1;  // a double, as SExtractor's CROWD_THRESHOLD
constexpr double kAnnulusRatio = 1.2;    // the annulus [k, 1.2 k]
constexpr double kSteps = 20.0;          // k grows by klim / 20
constexpr double kPetroLevel = 0.2;      // annulus mean / inner mean at the Petrosian radius

int rint_floor(double v) {
  return static_cast<int>(std::floor(v + 0.5));
}

// cx2 dx^2 + cy2 dy^2 + cxy dx dy <= klim2, with its box half-extents: the moment ellipse
// scaled by k or, when k sqrt(A B) is not above min_diameter / 2 (PHOT_AUTOAPERS), the circle
// of that diameter. k is SExtractor's double PETRO_NSIG or its float Petrosian factor; the
// coefficients and limits are floats as it holds them.
struct Region {
  float cx2, cy2, cxy, dxlim, dylim, klim2;
  bool circle;
};

Region region(const ApertureShape& s, double k, double min_diameter) {
  Region e{};
  if (k * std::sqrt(static_cast<double>(s.a * s.b)) > min_diameter / 2.0) {
    e.cx2 = s.cxx;
    e.cy2 = s.cyy;
    e.cxy = s.cxy;
    const float dx = static_cast<float>(e.cx2 - e.cxy * e.cxy / (4.0 * e.cy2));
    e.dxlim = dx > 0.0f ? static_cast<float>(k / std::sqrt(static_cast<double>(dx))) : 0.0f;
    const float dy = static_cast<float>(e.cy2 - e.cxy * e.cxy / (4.0 * e.cx2));
    e.dylim = dy > 0.0f ? static_cast<float>(k / std::sqrt(static_cast<double>(dy))) : 0.0f;
    e.klim2 = static_cast<float>(k * k);  // exact product of floats, rounded once: as in float
    e.circle = false;
  } else {
    e.cx2 = e.cy2 = 1.0f;
    e.cxy = 0.0f;
    e.dxlim = e.dylim = static_cast<float>(min_diameter / 2.0);
    e.klim2 = e.dxlim * e.dxlim;
    e.circle = true;
  }
  return e;
}

struct Box {
  int xmin, xmax, ymin, ymax;  // half-open
};

Box region_box(const Region& e, const ApertureShape& s, int w, int h, uint16_t& flags) {
  Box b{rint_floor(s.mx - e.dxlim), rint_floor(s.mx + e.dxlim) + 1, rint_floor(s.my - e.dylim),
        rint_floor(s.my + e.dylim) + 1};
  clip_aperture_box(b.xmin, b.xmax, b.ymin, b.ymax, w, h, s, flags);
  return b;
}

// One pixel of the radius pass: its elliptical radius^2 and, when usable, its detection value.
struct RadiusPixel {
  float r2;
  float pix;
  bool good;
};

}  // namespace

PetroResult petro_flux(const PhotometryField& f, const ApertureShape& s, const PetroParams& p,
                       uint16_t& flags) {
  const int w = static_cast<int>(f.value.width), h = static_cast<int>(f.value.height);
  const AperturePixels rd(f, s, s.mx, s.my);
  const float mx = s.mx, my = s.my;
  PetroResult out;

  // Pass 1, on the detection image: grow the annulus until its mean falls below 0.2 x the mean
  // inside its middle radius. The pixels (raster order, as SExtractor sums them) are read once.
  Region e = region(s, kPetroNSig, p.min_search);
  Box b = region_box(e, s, w, h, flags);
  std::vector<RadiusPixel> pixels;
  pixels.reserve(static_cast<size_t>(std::max(0, b.xmax - b.xmin)) *
                 static_cast<size_t>(std::max(0, b.ymax - b.ymin)));
  for (int y = b.ymin; y < b.ymax; ++y)
    for (int x = b.xmin; x < b.xmax; ++x) {
      const float dx = x - mx, dy = y - my;
      const float r2 = e.cx2 * dx * dx + e.cy2 * dy * dy + e.cxy * dx * dy;
      const bool good = !rd.bad_for_radius(x, y);
      pixels.push_back({r2, good ? f.detection()(x, y) : 0.0f, good});
    }
  const float klim = static_cast<float>(std::sqrt(static_cast<double>(e.klim2)));
  const float kstep = static_cast<float>(klim / kSteps);
  int area = 0, areab = 0, areanum = 0, areaden = 0;
  double munum = 0.0, muden = 0.0;
  float kmea = 0.0f, kmax;
  for (float kmin = kstep; (kmax = static_cast<float>(kmin * kAnnulusRatio)) < klim;
       kmin += kstep) {
    kmea = static_cast<float>((kmin + kmax) / 2.0);
    const float kmea2 = kmea * kmea, kmin2 = kmin * kmin, kmax2 = kmax * kmax;
    area = areab = areanum = areaden = 0;
    munum = muden = 0.0;
    for (const RadiusPixel& q : pixels) {
      if (q.r2 > kmax2) continue;
      if (!q.good) {
        ++areab;
        continue;
      }
      ++area;
      if (q.r2 >= kmin2) munum += q.pix, ++areanum;
      if (q.r2 < kmea2) muden += q.pix, ++areaden;
    }
    if (areanum && areaden) {
      munum /= areanum;
      muden /= areaden;
      if (munum < muden * kPetroLevel) break;
    }
  }
  area += areab;  // of the last annulus tried, as SExtractor
  if (!area) return out;
  float petro = static_cast<float>(p.min_radius);
  if (areanum && areaden && munum != 0.0 && muden != 0.0) {
    petro = static_cast<float>(p.fact * kmea);
    if (petro < p.min_radius) petro = static_cast<float>(p.min_radius);
  }
  if (static_cast<float>(areab) / area > kCrowdThreshold) flags |= kFlagNeighbours;

  // Pass 2: the flux within petro x the moment ellipse (or the PHOT_AUTOAPERS circle, and then
  // a PETRO_RADIUS of 0), whole pixels, bad pixels corrected.
  e = region(s, petro, p.min_flux);
  if (e.circle) petro = 0.0f;
  b = region_box(e, s, w, h, flags);
  const double backnoise2 = f.backsig * f.backsig;  // the product in float, as SExtractor
  const bool gainflag = f.weighted() && f.weight_gain;
  double tv = 0.0, sigtv = 0.0;
  area = areab = 0;
  for (int y = b.ymin; y < b.ymax; ++y)
    for (int x = b.xmin; x < b.xmax; ++x) {
      const float dx = x - mx, dy = y - my;
      if (e.cx2 * dx * dx + e.cy2 * dy * dy + e.cxy * dx * dy > e.klim2) continue;
      ++area;
      double var = backnoise2;
      if (rd.bad(x, y)) ++areab;
      const double pix = rd.read(x, y, var);
      sigtv += var;
      tv += pix;
      if (gainflag && pix > 0.0 && f.gain > 0.0) sigtv += pix / f.gain * var / backnoise2;
    }
  if (static_cast<float>(areab) > kCrowdThreshold * area) flags |= kFlagNeighbours;
  tv -= static_cast<float>(area) * s.dbkg;  // an int times a float, in float, as SExtractor
  if (!gainflag && f.gain > 0.0 && tv > 0.0) sigtv += tv / f.gain;
  out.flux = static_cast<float>(tv);
  out.fluxerr = static_cast<float>(std::sqrt(sigtv));
  out.radius = tv > 0.0 ? petro : 0.0f;
  return out;
}

}  // namespace celeris::extract
