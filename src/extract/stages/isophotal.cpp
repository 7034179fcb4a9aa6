#include "extract/stages/isophotal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "extract/stages/iso_finish.hpp"
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
               float mthresh, float bkg, float dbkg) {
  const IsoFinishParams fp = iso_finish_params(ctx);
  const bool dual = ctx.measure.data != nullptr;
  auto measured = [&](const Pixel& p) { return dual ? ctx.measure(p.x, p.y) : p.value; };
  const double photo_exp = fp.ngamma != 0.0 ? std::exp(dbkg / ctx.ngamma) : 0.0;
  Iso r = iso_from_sums(s, fp, sums, mthresh, bkg, dbkg,
                        object_dthresh(d, ctx.detect_thresh, ctx.pixel_thresholds), photo_exp);
  // FWHM, on pixels less the local background, below the saturation level less the background.
  const FwhmCut cut = iso_fwhm_cut(r, fp);
  if (cut.thresh0 > 0.0f) {
    FwhmSums f;
    for (const Pixel p : d) {
      const double pix = static_cast<double>(measured(p)) - dbkg;
      if (!(pix > cut.thresh0 && pix < cut.sat)) continue;
      double dx = p.x - s.mx, dy = p.y - s.my;
      if (ctx.dgeo) dx -= ctx.dgeo->dx(p.x, p.y), dy -= ctx.dgeo->dy(p.x, p.y);
      fwhm_add(f, pix, dx, dy, std::log(pix));
    }
    iso_fwhm(r, s, f);
  }
  return r;
}

IsoFinishParams iso_finish_params(const IsoParams& ctx) {
  IsoFinishParams p;
  p.gain = ctx.gain;
  p.gainflag = ctx.weighted && ctx.weight_gain;
  p.ngamma = ctx.ngamma;
  p.satur_level = ctx.satur_level;
  return p;
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
