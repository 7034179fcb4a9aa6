#include "extract/stages/measure.hpp"
#include "extract/sextractor/pi.hpp"
#include "extract/stages/measure_best.hpp"
#include "extract/stages/measure_class_star.hpp"
#include "extract/stages/measure_windowed.hpp"

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

Objects measure_objects(const ObjectList& objects, const std::vector<Shape>& shapes,
                        const std::vector<Iso>& isos, const std::vector<size_t>& order,
                        const std::vector<int64_t>& written_at, const PhotometryField& field,
                        const MeasureParams& ctx) {
  const size_t n = order.size();
  const int naper = static_cast<int>(ctx.apertures.size());
  const int nfrac = static_cast<int>(ctx.fluxfrac.size());
  Objects o;
  o.resize(n, naper, nfrac);
  if (ctx.compute_win) resize_windowed(o, n);
  if (ctx.compute_iso) o.iso.assign(n * kNIso, 0), o.iso_thresh.assign(n, 0.0f);
  if (ctx.compute_isocor) o.flux_isocor.assign(n, 0.0f), o.fluxerr_isocor.assign(n, 0.0f);
#pragma omp parallel for schedule(dynamic, 16) num_threads(ctx.threads)
  for (size_t i = 0; i < n; ++i) {
    const size_t src = order[i];
    const Shape& s = shapes[src];
    const Iso& iso = isos[src];
    uint16_t flags = objects.flags[src];
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
    o.threshold[i] = iso.dthresh;  // SExtractor prints dthresh: no local background
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
    const LineBuffer::Rows rows = ctx.buffer.rows_at_write_out(written_at[i]);
    ap.fymin = rows.first;
    ap.fymax = rows.last;
    for (int k = 0; k < ctx.n_apertures; ++k) {
      const FluxResult f = aperture_flux(field, ap, ctx.apertures[k], flags);
      o.flux_aper[i * naper + k] = f.flux;
      o.fluxerr_aper[i * naper + k] = f.fluxerr;
    }
    AutoResult au;
    if (ctx.compute_auto) au = auto_flux(field, ap, ctx.autoparams, flags);
    o.flux_auto[i] = static_cast<float>(au.flux);
    o.fluxerr_auto[i] = static_cast<float>(au.fluxerr);
    o.kron_radius[i] = au.kron_radius;
    float hl_radius = 0.5f;
    if (ctx.n_fluxfrac > 0 || ctx.compute_win) {  // SExtractor's growth_flag
      float radii[32];
      flux_radius(field, ap, static_cast<float>(au.flux), ctx.fluxfrac, ctx.n_fluxfrac,
                  ctx.autoparams.min_search, radii, flags, ctx.compute_win ? &hl_radius : nullptr);
      for (int k = 0; k < ctx.n_fluxfrac; ++k) o.flux_radius[i * nfrac + k] = radii[k];
    }
    if (ctx.compute_isocor) {
      const IsocorResult c = isocor_flux(iso.flux, iso.fluxvar, s.npix, iso.dthresh);
      o.flux_isocor[i] = c.flux;
      o.fluxerr_isocor[i] = c.fluxerr;
    }
    // ISO0..ISO7, on the object's own pixels with its own (unmerged) peak, as SExtractor's
    // examineiso computes them before cleaning.
    if (ctx.compute_iso) {
      ObjectView own = objects[src];
      std::vector<float> measured;  // dual-image mode: the measurement image's pixels
      if (ctx.measure.data) {
        for (const Pixel p : own) measured.push_back(ctx.measure(p.x, p.y));
        own.value = measured.data();
      }
      float own_peak = -std::numeric_limits<float>::max();
      for (const Pixel p : own) own_peak = std::max(own_peak, p.value);
      const float thresh = iso.thresh - iso.dbkg;
      iso_areas(own, thresh, own_peak - iso.dbkg, &o.iso[i * kNIso], ctx.photo);
      o.iso_thresh[i] = thresh;
    }
    // Windowed measurements, after the growth curve as in SExtractor's analyse.c.
    if (ctx.compute_win) {
      const WindowedStart start{s.mx,         s.my,         s.x2,         s.y2,
                                s.xy,         float(s.a),   float(s.b),   float(o.theta[i]),
                                float(s.cxx), float(s.cyy), float(s.cxy), iso.errx2,
                                iso.erry2,    iso.errxy,    s.singular,   hl_radius};
      store_windowed(o, i, windowed(field, ap, start, flags));
    }
    if (iso.peak + bkg >= ctx.satur_level) flags |= kFlagSaturated;
    o.flags[i] = flags;
  }
  return o;
}

}  // namespace celeris::extract
