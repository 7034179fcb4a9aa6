#include "extract/stages/isophotal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "extract/stages/iso_sums.hpp"
#include "extract/stages/weights.hpp"

namespace celeris::extract {

namespace {

// The host's view of a pixel's terms (iso_sums.hpp's model): dual-image mode's measurement image,
// DETECT_TYPE PHOTO's flux, a DGEO map's shift; `Photo`/`Shift` leave out what is not there.
template <bool Photo, bool Shift>
struct HostIsoModel {
  static constexpr bool kPhoto = Photo;
  static constexpr bool kShift = Shift;
  const IsoParams* ctx;
  float measured(const Pixel& p) const {
    return ctx->measure.data ? ctx->measure(p.x, p.y) : p.value;
  }
  void flux(float pv, double var, float& pix, double& var2) const {
    pix = static_cast<float>(std::exp(pv / ctx->ngamma));
    var2 = pix * pix * var;
  }
  void shift(const Pixel& p, double& x, double& y) const {
    x -= ctx->dgeo->dx(p.x, p.y), y -= ctx->dgeo->dy(p.x, p.y);
  }
};

// Isophotal flux and area, peak, position errors (examineiso) and the FWHM of a Gaussian
// core fitted to ln(pixel) against r^2.
}  // namespace

IsoSumParams iso_sum_params(const IsoParams& ctx) {
  IsoSumParams c;
  // backsig^2 in float, as SExtractor (field->backsig * field->backsig, both float).
  c.backnoise2 = ctx.backsig * ctx.backsig;
  c.gain = ctx.gain;
  c.analysis_thresh = ctx.analysis_thresh;
  c.threshfac = ctx.backsig > 0.0f ? ctx.analysis_thresh / ctx.backsig : 1.0f;
  // Dual-image mode: the fluxes from the measurement image, the position errors with the
  // detection image's RMS (examineiso's dbacknoise2).
  c.dbacknoise2 = ctx.measure.data != nullptr ? ctx.dbacksig * ctx.dbacksig : c.backnoise2;
  c.weighted = ctx.weighted;
  c.gainflag = ctx.weighted && ctx.weight_gain;
  return c;
}

Iso finish_iso(const ObjectView& d, const Shape& s, const IsoParams& ctx, const IsoSums& sums,
               float mthresh, float bkg, float dbkg, const FwhmSums* fwhm) {
  Iso r;
  const bool gainflag = ctx.weighted && ctx.weight_gain;
  const bool photo = ctx.ngamma != 0.0;
  const double gain = ctx.gain;
  const bool dual = ctx.measure.data != nullptr;
  auto measured = [&](const Pixel& p) { return dual ? ctx.measure(p.x, p.y) : p.value; };
  r.xpeak = sums.xpeak;
  r.ypeak = sums.ypeak;
  r.area = sums.area;
  double tv = sums.tv, sigtv = sums.sigtv;
  double esum = sums.esum, emx2 = sums.emx2, emy2 = sums.emy2, emxy = sums.emxy;
  float peak = sums.peak;
  const float cdpeak = sums.cdpeak, minthresh = sums.minthresh;
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
  r.mthresh = mthresh;

  // FWHM, on pixels less the local background, below the saturation level less the background.
  const FwhmCut cut = fwhm_cut(peak, minthresh, dbkg, ctx.satur_level, bkg);
  if (cut.thresh0 > 0.0f) {
    FwhmSums f;
    if (fwhm) {
      f = *fwhm;
    } else {
      for (const Pixel p : d) {
        const double pix = static_cast<double>(measured(p)) - dbkg;
        if (!(pix > cut.thresh0 && pix < cut.sat)) continue;
        double dx = p.x - s.mx, dy = p.y - s.my;
        if (ctx.dgeo) dx -= ctx.dgeo->dx(p.x, p.y), dy -= ctx.dgeo->dy(p.x, p.y);
        fwhm_add(f, pix, dx, dy, std::log(pix));
      }
    }
    const double sw = f.sw, sx = f.sx, sxx = f.sxx, sy = f.sy, sxy = f.sxy;
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

namespace {

Iso isophotal_at(const ObjectView& d, const Shape& s, const IsoParams& ctx, float bkg, float dbkg) {
  const auto px = [&](int64_t i) { return d[static_cast<size_t>(i)]; };
  const int64_t n = static_cast<int64_t>(d.size());
  const IsoSumParams c = iso_sum_params(ctx);
  const bool photo = ctx.ngamma != 0.0;
  IsoSums sums;
  if (photo && ctx.dgeo)
    sums = iso_sums(px, n, s.mx, s.my, c, HostIsoModel<true, true>{&ctx});
  else if (photo)
    sums = iso_sums(px, n, s.mx, s.my, c, HostIsoModel<true, false>{&ctx});
  else if (ctx.dgeo)
    sums = iso_sums(px, n, s.mx, s.my, c, HostIsoModel<false, true>{&ctx});
  else if (ctx.measure.data)
    sums = iso_sums(px, n, s.mx, s.my, c, HostIsoModel<false, false>{&ctx});
  else
    sums = iso_sums(px, n, s.mx, s.my, c, PlainIsoModel{});  // the GPU's
  float heap[64];
  std::vector<float> large;
  if (ctx.minarea > 64) large.resize(static_cast<size_t>(ctx.minarea));
  const float mthresh = ctx.clean
                            ? clean_threshold(px, n, ctx.detect_thresh, ctx.pixel_thresholds,
                                              ctx.minarea, ctx.minarea > 64 ? large.data() : heap)
                            : 0.0f;
  return finish_iso(d, s, ctx, sums, mthresh, bkg, dbkg);
}

}  // namespace

float iso_background(const Shape& s, const IsoParams& ctx, float dbkg) {
  return back_at_barycentre(ctx.background->grid(), s.mx, s.my, dbkg);
}

Iso isophotal(const ObjectView& d, const Shape& s, const IsoParams& ctx, float dbkg) {
  return isophotal_at(d, s, ctx, iso_background(s, ctx, dbkg), dbkg);
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
