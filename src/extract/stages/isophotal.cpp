#include "extract/stages/isophotal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "extract/stages/weights.hpp"

namespace celeris::extract {

namespace {

// The CLEAN threshold of an object (SExtractor's mthresh): meant as the DETECT_MINAREA-th
// highest filtered value above the detection threshold, computed with SExtractor's heap
// exactly, quirks included (the pixel that triggers the sort is dropped; a sift step moves one
// index too far), because cleaning decisions depend on it.
float clean_threshold(const ObjectView& d, float dthresh, bool pixel_thresholds, int minarea) {
  if (static_cast<int>(d.size()) < minarea) return 0.0f;
  // On the stack for the usual DETECT_MINAREA: no allocation per object in the threaded loop.
  float small[64] = {};
  std::vector<float> large;
  if (minarea > 64) large.resize(minarea);
  float* heap = minarea > 64 ? large.data() : small;
  int h = minarea;
  for (const Pixel p : d) {
    const float tpix = p.cvalue - (pixel_thresholds ? p.dthresh : dthresh);
    if (h > 0) {
      heap[minarea - h] = tpix;
    } else if (h == 0) {
      std::sort(heap, heap + minarea);
    } else if (tpix > heap[0]) {
      heap[0] = tpix;
      for (int j = 0, k; (k = (j + 1) << 1) <= minarea; j = k) {
        if (k != minarea && heap[k - 1] > heap[k]) ++k;
        if (heap[j] <= heap[k - 1]) break;
        std::swap(heap[k - 1], heap[j]);
      }
    }
    --h;
  }
  return heap[0];
}

// Isophotal flux and area, peak, position errors (examineiso) and the FWHM of a Gaussian
// core fitted to ln(pixel) against r^2.
Iso isophotal_at(const ObjectView& d, const Shape& s, const IsoParams& ctx, float bkg, float dbkg) {
  Iso r;
  // backsig^2 in float, as SExtractor (field->backsig * field->backsig, both float).
  const double backnoise2 = ctx.backsig * ctx.backsig, gain = ctx.gain;
  double var = backnoise2;
  float thresh = ctx.analysis_thresh;
  // With weights, examineiso's per-pixel threshold: field->thresh / field->backsig (floats)
  // sigma of the pixel's own variance; the object keeps the smallest.
  float minthresh = ctx.weighted ? kBig : thresh;
  const double threshfac = ctx.backsig > 0.0f ? ctx.analysis_thresh / ctx.backsig : 1.0f;
  // Dual-image mode: the fluxes from the measurement image, the position errors with the
  // detection image's RMS (examineiso's dbacknoise2).
  const bool dual = ctx.measure.data != nullptr;
  auto measured = [&](const Pixel& p) { return dual ? ctx.measure(p.x, p.y) : p.value; };
  const double dbacknoise2 = dual ? ctx.dbacksig * ctx.dbacksig : backnoise2;
  const bool gainflag = ctx.weighted && ctx.weight_gain;
  const bool photo = ctx.ngamma != 0.0;
  float peak = -std::numeric_limits<float>::max(), cdpeak = peak;
  double tv = 0, sigtv = 0, esum = 0, emx2 = 0, emy2 = 0, emxy = 0;
  for (const Pixel p : d) {
    const float pv = measured(p);
    if (pv > peak) peak = pv;
    if (p.cvalue > cdpeak) {
      cdpeak = p.cvalue;
      r.xpeak = p.x;
      r.ypeak = p.y;
    }
    if (ctx.weighted) {
      var = p.var;
      thresh = static_cast<float>(threshfac * std::sqrt(var));
      if (thresh < minthresh) minthresh = thresh;
    }
    // DETECT_TYPE PHOTO: the pixel's flux, a float as examineiso's PIXTYPE; ISOAREA counts
    // those above the threshold, as SExtractor does.
    float pix = pv;
    double var2 = var;
    if (photo) {
      pix = static_cast<float>(std::exp(pv / ctx.ngamma));
      var2 = pix * pix * var;
    }
    if (gainflag && pix > 0.0f && gain > 0.0) var2 += pix / gain * var / backnoise2;
    sigtv += var2;
    if (pix > thresh) ++r.area;
    tv += pix;
    double err = dbacknoise2;
    if (gain > 0.0 && p.cvalue > 0.0f) err += p.cvalue / gain;
    double x = p.x - s.mx, y = p.y - s.my;
    if (ctx.dgeo) x -= ctx.dgeo->dx(p.x, p.y), y -= ctx.dgeo->dy(p.x, p.y);  // the true position
    esum += err;
    emx2 += err * x * x;
    emy2 += err * y * y;
    emxy += err * x * y;
  }
  // SExtractor's fdflux is a float, squared in float.
  const float fdflux = static_cast<float>(s.flux);
  const double flux2 = fdflux * fdflux;
  emx2 /= flux2;
  emy2 /= flux2;
  emxy /= flux2;
  esum *= 0.08333 / flux2;
  guard_singular_errors(s.singular, esum, emx2, emy2, emxy);
  r.errx2 = emx2;
  r.erry2 = emy2;
  r.errxy = emxy;
  if (photo) {
    tv = ctx.ngamma * (tv - s.npix * std::exp(dbkg / ctx.ngamma));
    sigtv /= ctx.ngamma * ctx.ngamma;
  } else {
    // fdnpix * dbkg: an int times a float, in float.
    tv -= static_cast<float>(s.npix) * dbkg;
    if (!gainflag && gain > 0.0 && tv > 0.0) sigtv += tv / gain;
  }
  r.flux = static_cast<float>(tv);
  r.fluxvar = static_cast<float>(sigtv);
  peak -= dbkg;
  r.peak = peak;
  r.cpeak = cdpeak;
  r.background = bkg;
  r.dbkg = dbkg;
  r.dthresh = object_dthresh(d, ctx.detect_thresh, ctx.pixel_thresholds);
  r.thresh = minthresh;
  r.mthresh =
      ctx.clean ? clean_threshold(d, ctx.detect_thresh, ctx.pixel_thresholds, ctx.minarea) : 0.0f;

  // FWHM, on pixels less the local background, below the saturation level less the background.
  float thresh0 = static_cast<float>(peak / 5.0);  // PIXTYPE = obj->peak / 5.0, in double
  const float obj_thresh = minthresh - dbkg;       // SExtractor obj->thresh
  if (thresh0 < obj_thresh) thresh0 = obj_thresh;
  if (thresh0 > 0.0f) {
    // In double, as SExtractor (field->satur_level is a double, obj->bkg a float): in float the
    // limit moves by about 0.002 ADU, enough to change which saturated pixels fall below it.
    const double sat = ctx.satur_level - static_cast<double>(bkg);
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const Pixel p : d) {
      const double pix = static_cast<double>(measured(p)) - dbkg;
      if (!(pix > thresh0 && pix < sat)) continue;
      double dx = p.x - s.mx, dy = p.y - s.my;
      if (ctx.dgeo) dx -= ctx.dgeo->dx(p.x, p.y), dy -= ctx.dgeo->dy(p.x, p.y);
      const double lpix = std::log(pix), inverr2 = pix * pix, d2 = dx * dx + dy * dy;
      sw += inverr2;
      sx += d2 * inverr2;
      sxx += d2 * d2 * inverr2;
      sy += lpix * inverr2;
      sxy += lpix * d2 * inverr2;
    }
    const double det = sw * sxx - sx * sx;
    if (std::fabs(det) > 0.0) {
      double bcoef = -(sw * sxy - sx * sy) / det;
      const double bmax = 1 / (13 * static_cast<float>(s.a) * static_cast<float>(s.b));
      if (bcoef < bmax) bcoef = bmax;
      r.fwhm = static_cast<float>(1.6651 / std::sqrt(bcoef));
      if (r.fwhm > 0.0f) r.fwhm -= 1 / (4 * r.fwhm);
    }
  }
  return r;
}

}  // namespace

Iso isophotal(const ObjectView& d, const Shape& s, const IsoParams& ctx, float dbkg) {
  const float bkg =
      ctx.background->back_bilinear(static_cast<int>(s.mx + 0.5), static_cast<int>(s.my + 0.5)) +
      dbkg;
  return isophotal_at(d, s, ctx, bkg, dbkg);
}

void merge_iso(Iso& master, const Iso& slave) {
  master.flux += slave.flux;
  master.fluxvar += slave.fluxvar;
  if (slave.cpeak > master.cpeak) {
    master.cpeak = slave.cpeak;
    master.xpeak = slave.xpeak;
    master.ypeak = slave.ypeak;
  }
  if (slave.peak > master.peak) master.peak = slave.peak;
}

}  // namespace celeris::extract
