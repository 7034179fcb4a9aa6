#include "measure.hpp"
#include "measure_best.hpp"
#include "measure_class_star.hpp"
#include "measure_windowed.hpp"
#include "sextractor_pi.hpp"
#include "threads.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace celeris::extract {

void Objects::resize(size_t n, size_t n_aper, size_t n_frac) {
  for (auto* v : {&x,         &y,
                  &x2,        &y2,
                  &xy,        &errx2,
                  &erry2,     &errxy,
                  &a,         &b,
                  &theta,     &cxx,
                  &cyy,       &cxy,
                  &flux_iso,  &fluxerr_iso,
                  &flux_max,  &background,
                  &threshold, &kron_radius,
                  &flux_auto, &fluxerr_auto,
                  &fwhm})
    v->assign(n, 0.0);
  for (auto* v : {&xpeak, &ypeak, &xmin, &xmax, &ymin, &ymax, &isoarea, &isoareaf}) v->assign(n, 0);
  flux_aper.assign(n * n_aper, 0.0);
  fluxerr_aper.assign(n * n_aper, 0.0);
  flux_radius.assign(n * n_frac, 0.0);
  flags.assign(n, 0);
}

// The CLEAN threshold of an object (SExtractor's mthresh): meant as the DETECT_MINAREA-th
// highest filtered value above the detection threshold, computed with SExtractor's heap
// exactly, quirks included (the pixel that triggers the sort is dropped; a sift step moves one
// index too far), because cleaning decisions depend on it.
static float clean_threshold(const Detection& d, float dthresh, int minarea) {
  if (static_cast<int>(d.pixels.size()) < minarea) return 0.0f;
  std::vector<float> heap(minarea);
  int h = minarea;
  for (const Pixel& p : d.pixels) {
    const float tpix = p.cvalue - dthresh;
    if (h > 0) {
      heap[minarea - h] = tpix;
    } else if (h == 0) {
      std::sort(heap.begin(), heap.end());
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
static Iso isophotal(const Detection& d, const Shape& s, const MeasureContext& ctx, float bkg,
                     float dbkg) {
  Iso r;
  // backsig^2 in float, as SExtractor (field->backsig * field->backsig, both float).
  const double var = ctx.field.backsig * ctx.field.backsig, gain = ctx.field.gain;
  const float thresh = ctx.analysis_thresh;
  float peak = -std::numeric_limits<float>::max(), cdpeak = peak;
  double tv = 0, sigtv = 0, esum = 0, emx2 = 0, emy2 = 0, emxy = 0;
  for (const Pixel& p : d.pixels) {
    if (p.value > peak) peak = p.value;
    if (p.cvalue > cdpeak) {
      cdpeak = p.cvalue;
      r.xpeak = p.x;
      r.ypeak = p.y;
    }
    sigtv += var;
    if (p.value > thresh) ++r.area;
    tv += p.value;
    double err = var;
    if (gain > 0.0 && p.cvalue > 0.0f) err += p.cvalue / gain;
    const double x = p.x - s.mx, y = p.y - s.my;
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
  if (s.singular && (emx2 * emy2 - emxy * emxy) < esum * esum) {
    emx2 += esum;
    emy2 += esum;
  }
  r.errx2 = emx2;
  r.erry2 = emy2;
  r.errxy = emxy;
  // fdnpix * dbkg: an int times a float, in float.
  tv -= static_cast<float>(s.npix) * dbkg;
  if (gain > 0.0 && tv > 0.0) sigtv += tv / gain;
  r.flux = static_cast<float>(tv);
  r.fluxvar = static_cast<float>(sigtv);
  peak -= dbkg;
  r.peak = peak;
  r.cpeak = cdpeak;
  r.background = bkg;
  r.dbkg = dbkg;
  r.mthresh =
      ctx.config.clean ? clean_threshold(d, ctx.detect_thresh, ctx.config.detect_minarea) : 0.0f;

  // FWHM, on pixels less the local background, below the saturation level less the background.
  float thresh0 = static_cast<float>(peak / 5.0);  // PIXTYPE = obj->peak / 5.0, in double
  const float obj_thresh = thresh - dbkg;          // SExtractor obj->thresh
  if (thresh0 < obj_thresh) thresh0 = obj_thresh;
  if (thresh0 > 0.0f) {
    // In double, as SExtractor (field->satur_level is a double, obj->bkg a float): in float the
    // limit moves by about 0.002 ADU, enough to change which saturated pixels fall below it.
    const double sat = ctx.satur_level - static_cast<double>(bkg);
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const Pixel& p : d.pixels) {
      const double pix = static_cast<double>(p.value) - dbkg;
      if (!(pix > thresh0 && pix < sat)) continue;
      const double dx = p.x - s.mx, dy = p.y - s.my;
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

Iso isophotal(const Detection& d, const Shape& s, const MeasureContext& ctx, float dbkg) {
  const float bkg =
      ctx.background.back_bilinear(static_cast<int>(s.mx + 0.5), static_cast<int>(s.my + 0.5)) +
      dbkg;
  return isophotal(d, s, ctx, bkg, dbkg);
}

Objects measure_objects(const std::vector<Detection>& objects, const std::vector<Shape>& shapes,
                        const std::vector<Iso>& isos, const std::vector<size_t>& order,
                        const std::vector<int64_t>& written_at, const MeasureContext& ctx) {
  const size_t n = order.size();
  const int naper = static_cast<int>(ctx.config.phot_apertures.size());
  const int nfrac = static_cast<int>(ctx.config.phot_fluxfrac.size());
  Objects o;
  o.resize(n, naper, nfrac);
  if (ctx.compute_win) resize_windowed(o, n);
  if (ctx.compute_iso) o.iso.assign(n * kNIso, 0), o.iso_thresh.assign(n, 0.0f);
  if (ctx.compute_isocor) o.flux_isocor.assign(n, 0.0f), o.fluxerr_isocor.assign(n, 0.0f);
  const int nt = worker_threads(ctx.config, ctx.field.value.width * ctx.field.value.height);
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt)
  for (size_t i = 0; i < n; ++i) {
    const size_t src = order[i];
    const Shape& s = shapes[src];
    const Iso& iso = isos[src];
    uint16_t flags = objects[src].flags;
    const float bkg = iso.background;
    o.x[i] = s.mx;
    o.y[i] = s.my;
    o.xpeak[i] = iso.xpeak;
    o.ypeak[i] = iso.ypeak;
    o.xmin[i] = s.xmin;
    o.xmax[i] = s.xmax;
    o.ymin[i] = s.ymin;
    o.ymax[i] = s.ymax;
    o.x2[i] = s.x2;
    o.y2[i] = s.y2;
    o.xy[i] = s.xy;
    o.errx2[i] = iso.errx2;
    o.erry2[i] = iso.erry2;
    o.errxy[i] = iso.errxy;
    o.a[i] = static_cast<float>(s.a);
    o.b[i] = static_cast<float>(s.b);
    o.theta[i] = static_cast<float>(s.theta * 180.0 / kSexPi);
    o.cxx[i] = s.cxx;
    o.cyy[i] = s.cyy;
    o.cxy[i] = s.cxy;
    o.isoarea[i] = iso.area;
    o.isoareaf[i] = s.npix;
    o.flux_iso[i] = iso.flux;
    o.fluxerr_iso[i] = std::sqrt(iso.fluxvar);
    o.flux_max[i] = iso.peak;
    o.background[i] = bkg;
    o.threshold[i] = ctx.detect_thresh;  // SExtractor prints dthresh: no local background
    o.fwhm[i] = iso.fwhm;

    ApertureShape ap{static_cast<int32_t>(src + 1),
                     static_cast<float>(s.mx),
                     static_cast<float>(s.my),
                     s.mx,
                     s.my,
                     static_cast<float>(s.a),
                     static_cast<float>(s.b),
                     static_cast<float>(s.cxx),
                     static_cast<float>(s.cyy),
                     static_cast<float>(s.cxy),
                     written_at[i]};
    ap.dbkg = iso.dbkg;
    if (ctx.strip_rows > 0) {
      // The buffer holds rows [E - (strip_rows - strip_margin), E + strip_margin) at scan line
      // E; an object written after the scan sees the buffer's last state, E = h - strip_margin.
      const int64_t e =
          written_at[i] != INT64_MAX ? written_at[i] : ctx.field.value.height - ctx.strip_margin;
      ap.fymin = int(std::max<int64_t>(0, e - (ctx.strip_rows - ctx.strip_margin)));
      ap.fymax = int(std::min<int64_t>(INT32_MAX, e + ctx.strip_margin));
    }
    for (int k = 0; k < ctx.n_apertures; ++k) {
      const FluxResult f = aperture_flux(ctx.field, ap, ctx.config.phot_apertures[k], flags);
      o.flux_aper[i * naper + k] = f.flux;
      o.fluxerr_aper[i * naper + k] = f.fluxerr;
    }
    AutoResult au;
    if (ctx.compute_auto)
      au = auto_flux(ctx.field, ap,
                     {ctx.config.kron_fact, ctx.config.kron_minradius, ctx.config.autoaper_search,
                      ctx.config.autoaper_flux},
                     flags);
    o.flux_auto[i] = static_cast<float>(au.flux);
    o.fluxerr_auto[i] = static_cast<float>(au.fluxerr);
    o.kron_radius[i] = au.kron_radius;
    float hl_radius = 0.5f;
    if (ctx.n_fluxfrac > 0 || ctx.compute_win) {  // SExtractor's growth_flag
      float radii[32];
      flux_radius(ctx.field, ap, static_cast<float>(au.flux), ctx.config.phot_fluxfrac,
                  ctx.n_fluxfrac, ctx.config.autoaper_search, radii, flags,
                  ctx.compute_win ? &hl_radius : nullptr);
      for (int k = 0; k < ctx.n_fluxfrac; ++k) o.flux_radius[i * nfrac + k] = radii[k];
    }
    if (ctx.compute_isocor) {  // --- hook: FLUX_ISOCOR
      const IsocorResult c = isocor_flux(iso.flux, iso.fluxvar, s.npix, ctx.detect_thresh);
      o.flux_isocor[i] = c.flux;
      o.fluxerr_isocor[i] = c.fluxerr;
    }
    // --- hook: ISO0..ISO7, on the object's own pixels with its own (unmerged) peak, as
    // SExtractor's examineiso computes them before cleaning
    if (ctx.compute_iso) {
      float own_peak = -std::numeric_limits<float>::max();
      for (const Pixel& p : objects[src].pixels) own_peak = std::max(own_peak, p.value);
      const float thresh = ctx.analysis_thresh - iso.dbkg;
      iso_areas(objects[src].pixels, thresh, own_peak - iso.dbkg, &o.iso[i * kNIso]);
      o.iso_thresh[i] = thresh;
    }
    // --- hook: windowed measurements, after the growth curve as in SExtractor's analyse.c
    if (ctx.compute_win) {
      const WindowedStart start{s.mx,         s.my,         s.x2,         s.y2,
                                s.xy,         float(s.a),   float(s.b),   float(o.theta[i]),
                                float(s.cxx), float(s.cyy), float(s.cxy), iso.errx2,
                                iso.erry2,    iso.errxy,    s.singular,   hl_radius};
      store_windowed(o, i, windowed(ctx.field, ap, start, flags));
    }
    if (iso.peak + bkg >= ctx.satur_level) flags |= kFlagSaturated;
    o.flags[i] = flags;
  }
  return o;
}

}  // namespace celeris::extract
