#include "extract/stages/measure.hpp"
#include "celeris/error.hpp"
#include "extract/gpu/measure_gpu.hpp"
#include "extract/stages/measure_best.hpp"
#include "extract/stages/measure_class_star.hpp"
#include "extract/stages/measure_dgeo.hpp"
#include "extract/stages/measure_growth.hpp"
#include "extract/stages/measure_shape_columns.hpp"
#include "extract/stages/measure_vignet.hpp"
#include "extract/stages/measure_windowed.hpp"
#include "extract/stages/vignet_shift.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <utility>

namespace celeris::extract {

ApertureShape centred_aperture(int32_t id, const Shape& s) {
  return {id,
          static_cast<float>(s.mx),
          static_cast<float>(s.my),
          s.mx,
          s.my,
          static_cast<float>(s.a),
          static_cast<float>(s.b),
          static_cast<float>(s.cxx),
          static_cast<float>(s.cyy),
          static_cast<float>(s.cxy)};
}

ApertureShape written_aperture(size_t src, const Shape& s, const Iso& iso, int64_t written_at,
                               int64_t buffer_at, int64_t moment, const LineBuffer& buffer) {
  ApertureShape ap = centred_aperture(static_cast<int32_t>(src + 1), s);
  ap.time = written_at;
  ap.moment = moment;
  ap.dbkg = iso.dbkg;
  const LineBuffer::Rows rows = buffer.rows_at_write_out(buffer_at);
  ap.fymin = rows.first;
  ap.fymax = rows.last;
  return ap;
}

gpu::PhotometryRequest photometry_request(const MeasureParams& ctx) {
  gpu::PhotometryRequest req;
  req.apertures.assign(ctx.apertures.begin(), ctx.apertures.begin() + ctx.n_apertures);
  req.compute_auto = ctx.compute_auto;
  req.autoparams = ctx.autoparams;
  req.fluxfrac.assign(ctx.fluxfrac.begin(), ctx.fluxfrac.begin() + ctx.n_fluxfrac);
  req.growth = ctx.n_fluxfrac > 0 || ctx.compute_win;
  req.hl_radius = ctx.compute_win;
  req.host_threads = ctx.threads;
  req.host_reads_codes = ctx.compute_win || ctx.compute_petro || ctx.compute_growth ||
                         ctx.vignet_width > 0 || ctx.vignet_shift_width > 0;
  return req;
}

namespace {

// The position, ellipse and line-buffer rows of objects[src] as photometry reads them.
ApertureShape aperture_shape(size_t src, const Shape& s, const Iso& iso, size_t row,
                             const std::vector<int64_t>& written_at, const MeasureParams& ctx) {
  return written_aperture(src, s, iso, written_at[row],
                          ctx.buffer_at ? (*ctx.buffer_at)[row] : written_at[row],
                          ctx.moment_at ? (*ctx.moment_at)[row] : -1, ctx.buffer);
}

// FLUX_APER, FLUX_AUTO, KRON_RADIUS, FLUX_RADIUS of catalog row i, and the half-light radius
// (SExtractor's growth_flag), on the CPU.
void cpu_photometry(const PhotometryField& field, const ApertureShape& ap, size_t i,
                    const MeasureParams& ctx, Objects& o, uint16_t& flags, float& hl_radius) {
  const size_t naper = ctx.apertures.size(), nfrac = ctx.fluxfrac.size();
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
  if (ctx.n_fluxfrac > 0 || ctx.compute_win) {  // SExtractor's growth_flag
    float radii[32];
    flux_radius(field, ap, static_cast<float>(au.flux), ctx.fluxfrac, ctx.n_fluxfrac,
                ctx.autoparams.min_search, radii, flags, ctx.compute_win ? &hl_radius : nullptr);
    for (int k = 0; k < ctx.n_fluxfrac; ++k) o.flux_radius[i * nfrac + k] = radii[k];
  }
}

// The same for every catalog row at once on the GPU (gpu/measure_gpu.hpp).
// `aps`: each row's ApertureShape, made here (and kept for the rows' other measurements).
gpu::PhotometryColumns gpu_photometry(const std::vector<Shape>& shapes,
                                      const std::vector<Iso>& isos,
                                      const std::vector<size_t>& order,
                                      const std::vector<int64_t>& written_at,
                                      const PhotometryField& field, const MeasureParams& ctx,
                                      std::vector<ApertureShape>& aps,
                                      std::function<void()> meanwhile) {
  // Over the host threads: one alone took 2-6 ms of a crowded 4096^2 frame on the 2-core dev box.
  aps.resize(order.size());
#pragma omp parallel for schedule(static) num_threads(ctx.threads)
  for (size_t i = 0; i < order.size(); ++i)
    aps[i] = aperture_shape(order[i], shapes[order[i]], isos[order[i]], i, written_at, ctx);
  gpu::PhotometryRequest req = photometry_request(ctx);
  req.meanwhile = std::move(meanwhile);
  return gpu::measure_photometry(field, aps, req);
}

// The GPU photometry's steps as stage lines: every row at once, or the batches queued beside the
// clean pass (`beside_pass`: `setup` is then the host time of their launches).
void report_photometry(const gpu::PhotometryColumns& c, bool beside_pass,
                       std::vector<std::pair<std::string, double>>& lines) {
  if (beside_pass) {
    lines.emplace_back("gpu measure beside the pass: launches", c.setup);
  } else {
    lines.emplace_back("gpu measure: wait for the context", c.lock_wait);
    lines.emplace_back("gpu measure setup", c.setup);
    lines.emplace_back("gpu measure upload", c.upload);
  }
  lines.emplace_back("gpu measure kernel", c.kernel);
  lines.emplace_back("gpu measure download", c.download);
  if (!beside_pass) lines.emplace_back("gpu measure, largest on host", c.host);
  lines.emplace_back("gpu measure, host columns beside the kernel", c.meanwhile);
  lines.emplace_back("gpu measure, columns from the device's", c.gather);
}

// Catalog row i's photometry from the GPU's columns, as cpu_photometry would have set it.
void take_gpu_photometry(const gpu::PhotometryColumns& c, size_t i, const MeasureParams& ctx,
                         Objects& o, uint16_t& flags, float& hl_radius) {
  const size_t naper = ctx.apertures.size(), nfrac = ctx.fluxfrac.size();
  const size_t na = ctx.n_apertures, nf = ctx.n_fluxfrac;
  for (size_t k = 0; k < na; ++k) {
    o.flux_aper[i * naper + k] = c.flux_aper[i * na + k];
    o.fluxerr_aper[i * naper + k] = c.fluxerr_aper[i * na + k];
  }
  o.flux_auto[i] = static_cast<float>(c.flux_auto[i]);
  o.fluxerr_auto[i] = static_cast<float>(c.fluxerr_auto[i]);
  o.kron_radius[i] = c.kron_radius[i];
  for (size_t k = 0; k < nf; ++k) o.flux_radius[i * nfrac + k] = c.flux_radius[i * nf + k];
  hl_radius = c.hl_radius[i];
  flags |= c.flags[i];
}

// The core columns (those Objects::resize sizes), each with its elements per row.
struct CoreColumns {
  std::pair<std::vector<double>*, size_t> doubles[26];
  std::vector<int32_t>* ints[8];
};

CoreColumns core_columns(Objects& o, size_t n_aper, size_t n_frac) {
  return {{{&o.x, 1},
           {&o.y, 1},
           {&o.x2, 1},
           {&o.y2, 1},
           {&o.xy, 1},
           {&o.errx2, 1},
           {&o.erry2, 1},
           {&o.errxy, 1},
           {&o.a, 1},
           {&o.b, 1},
           {&o.theta, 1},
           {&o.cxx, 1},
           {&o.cyy, 1},
           {&o.cxy, 1},
           {&o.flux_iso, 1},
           {&o.fluxerr_iso, 1},
           {&o.flux_max, 1},
           {&o.background, 1},
           {&o.threshold, 1},
           {&o.kron_radius, 1},
           {&o.flux_auto, 1},
           {&o.fluxerr_auto, 1},
           {&o.fwhm, 1},
           {&o.flux_aper, n_aper},
           {&o.fluxerr_aper, n_aper},
           {&o.flux_radius, n_frac}},
          {&o.xpeak, &o.ypeak, &o.xmin, &o.xmax, &o.ymin, &o.ymax, &o.isoarea, &o.isoareaf}};
}

}  // namespace

void Objects::reserve(size_t n, size_t n_aper, size_t n_frac) {
  CoreColumns c = core_columns(*this, n_aper, n_frac);
  for (const auto& [column, per_row] : c.doubles) column->reserve(n * per_row);
  for (std::vector<int32_t>* column : c.ints) column->reserve(n);
  flags.reserve(n);
}

void Objects::resize(size_t n, size_t n_aper, size_t n_frac, int threads) {
  CoreColumns c = core_columns(*this, n_aper, n_frac);
  constexpr int nd = std::size(c.doubles), ni = std::size(c.ints);
  // The columns' storage taken on this thread, their pages first touched side by side by the
  // team, one column per task. A column allocated inside the team comes from the arena of
  // whichever thread took its task, seldom the one holding the last catalog's freed columns,
  // and its fresh pages fault: this frame's columns then cost more than their zeroing.
  reserve(n, n_aper, n_frac);
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(threads, 1))
  for (int k = 0; k <= nd + ni; ++k) {
    if (k < nd)
      c.doubles[k].first->resize(n * c.doubles[k].second, 0.0);
    else if (k < nd + ni)
      c.ints[k - nd]->resize(n, 0);
    else
      flags.resize(n, 0);
  }
}

Objects measure_objects(const ObjectList& objects, const std::vector<Shape>& shapes,
                        const std::vector<Iso>& isos, const std::vector<size_t>& order,
                        const std::vector<int64_t>& written_at, const PhotometryField& field,
                        const MeasureParams& ctx) {
  const size_t n = order.size();
  const int naper = static_cast<int>(ctx.apertures.size());
  const int nfrac = static_cast<int>(ctx.fluxfrac.size());
  Objects o;
  const size_t vignet_size = static_cast<size_t>(ctx.vignet_width) * ctx.vignet_height;
  const size_t shift_size = static_cast<size_t>(ctx.vignet_shift_width) * ctx.vignet_shift_height;
  const bool dgeo = ctx.dgeo != nullptr;
  const size_t dgeox_size = static_cast<size_t>(ctx.vignet_dgeox_width) * ctx.vignet_dgeox_height;
  const size_t dgeoy_size = static_cast<size_t>(ctx.vignet_dgeoy_width) * ctx.vignet_dgeoy_height;
  // The catalog's columns, sized.
  auto allocate = [&] {
    o.resize(n, naper, nfrac, ctx.threads);
    if (ctx.compute_win) resize_windowed(o, n);
    if (ctx.compute_iso) o.iso.assign(n * kNIso, 0), o.iso_thresh.assign(n, 0.0f);
    if (ctx.compute_isocor) o.flux_isocor.assign(n, 0.0f), o.fluxerr_isocor.assign(n, 0.0f);
    // --- hook: Petrosian, growth curve, VIGNET columns
    if (ctx.compute_petro)
      for (auto* v : {&o.flux_petro, &o.fluxerr_petro, &o.petro_radius}) v->assign(n, 0.0f);
    if (ctx.compute_growth) o.growth.assign(n * kGrowthSteps, 0.0), o.growth_rlim.assign(n, 0.0);
    o.vignet.assign(n * vignet_size, 0.0f);
    o.vignet_shift.assign(n * shift_size, 0.0f);
    // Differential geometry: the mean shifts, and the map around each object.
    if (dgeo) {
      for (auto* v : {&o.dgeox, &o.dgeoy}) v->assign(n, 0.0f);
      if (ctx.compute_win) o.dgeoxwin.assign(n, 0.0f), o.dgeoywin.assign(n, 0.0f);
    }
    o.vignet_dgeox.assign(n * dgeox_size, 0.0f);
    o.vignet_dgeoy.assign(n * dgeoy_size, 0.0f);
    // DURATION_ANALYSIS: SExtractor times endobject() per object (gettimeofday, analyse.c);
    // celeris times this loop's body, the object's measurement, on a steady clock.
    if (ctx.time_objects) o.duration_analysis.assign(n, 0.0f);
  };
  // Catalog row i's columns from its shape and isophotal values alone.
  auto shape_columns = [&](size_t i) {
    write_shape_columns(o, i, shapes[order[i]], isos[order[i]], dgeo);
  };
  // --- hook: APER, AUTO and FLUX_RADIUS of all objects at once on the GPU (--device cuda); the
  // loop below takes its columns instead of measuring them (take_gpu_photometry). The columns
  // made without them are made while its kernel runs.
  const bool on_gpu = ctx.gpu;
  using Clock = std::chrono::steady_clock;
  gpu::PhotometryColumns gpu_columns;
  std::vector<ApertureShape> gpu_aps;
  if (on_gpu) {
    const Clock::time_point t = Clock::now();
    auto meanwhile = [&] {
      const Clock::time_point t_allocate = Clock::now();
      // The rows begun beside the clean pass: the catalog is theirs, the rows left to write
      // are those they left and those written at the pass's end.
      RowsUnderWay begun;
      if (ctx.rows_under_way) {
        begun = ctx.rows_under_way();
        if (begun.rows > n || (!begun.left.empty() && begun.left.back() >= begun.rows) ||
            begun.catalog.size() != begun.rows)
          throw Error("internal: " + std::to_string(begun.rows) + " rows begun beside the pass (" +
                      std::to_string(begun.catalog.size()) + " in the catalog) for " +
                      std::to_string(n));
        o = std::move(begun.catalog);
      }
      allocate();
      if (ctx.gpu_seconds)
        ctx.gpu_seconds->emplace_back(
            "gpu measure, host columns: the catalog allocated",
            std::chrono::duration<double>(Clock::now() - t_allocate).count());
      const int64_t nleft = static_cast<int64_t>(begun.left.size());
#pragma omp parallel num_threads(ctx.threads)
      {
#pragma omp for schedule(static) nowait
        for (int64_t k = 0; k < nleft; ++k) shape_columns(begun.left[static_cast<size_t>(k)]);
#pragma omp for schedule(static)
        for (size_t i = begun.rows; i < n; ++i) shape_columns(i);
      }
    };
    const bool under_way = static_cast<bool>(ctx.photometry_under_way);
    gpu_columns =
        under_way ? ctx.photometry_under_way(gpu_aps, meanwhile)
                  : gpu_photometry(shapes, isos, order, written_at, field, ctx, gpu_aps, meanwhile);
    if (ctx.gpu_seconds) report_photometry(gpu_columns, under_way, *ctx.gpu_seconds);
    if (ctx.gpu_seconds)
      ctx.gpu_seconds->emplace_back("gpu measure, the whole call",
                                    std::chrono::duration<double>(Clock::now() - t).count());
  } else {
    allocate();
  }
  const Clock::time_point rows_started = Clock::now();

  // Rows in chunks: with the photometry done on the GPU a row is brief, and chunks of 16 had
  // threads writing next to one another in every column (0.96 ms for a crowded frame's rows).
  const int chunk = on_gpu ? 256 : 16;
#pragma omp parallel for schedule(dynamic, chunk) num_threads(ctx.threads)
  for (size_t i = 0; i < n; ++i) {
    const Clock::time_point started = ctx.time_objects ? Clock::now() : Clock::time_point{};
    const size_t src = order[i];
    const Shape& s = shapes[src];
    const Iso& iso = isos[src];
    uint16_t flags = objects.flags[src];
    const float bkg = iso.background;
    if (!on_gpu) shape_columns(i);

    const ApertureShape ap = on_gpu ? gpu_aps[i] : aperture_shape(src, s, iso, i, written_at, ctx);
    float hl_radius = 0.5f;
    if (on_gpu)
      take_gpu_photometry(gpu_columns, i, ctx, o, flags, hl_radius);
    else
      cpu_photometry(field, ap, i, ctx, o, flags, hl_radius);
    // --- hook: Petrosian photometry and the whole growth curve (SExtractor measures them after
    // FLUX_AUTO, before the windowed measurements; each only ORs flags, so after FLUX_RADIUS too).
    if (ctx.compute_petro) {
      const PetroResult pr = petro_flux(field, ap, ctx.petroparams, flags);
      o.flux_petro[i] = pr.flux;
      o.fluxerr_petro[i] = pr.fluxerr;
      o.petro_radius[i] = pr.radius;
    }
    if (ctx.compute_growth) {
      const GrowthCurve g = growth_curve(field, ap, ctx.autoparams.min_search, flags);
      std::copy(g.cumul, g.cumul + kGrowthSteps, o.growth.begin() + i * kGrowthSteps);
      o.growth_rlim[i] = g.rlim;
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
                                iso.erry2,    iso.errxy,    s.singular,   hl_radius,
                                ctx.dgeo,     s.dgeox,      s.dgeoy};
      const WindowedResult win = windowed(field, ap, start, flags);
      store_windowed(o, i, win);
      if (dgeo) o.dgeoxwin[i] = win.dgeox, o.dgeoywin[i] = win.dgeoy;
    }
    if (iso.peak + bkg >= ctx.satur_level) flags |= kFlagSaturated;
    if (vignet_size)  // --- hook: VIGNET, the pixels as the line buffer held them
      vignet(field, ap, s.mx, s.my, ctx.vignet_width, ctx.vignet_height,
             &o.vignet[i * vignet_size]);
    if (shift_size)  // VIGNET_SHIFT, the same buffer resampled onto the barycentre
      vignet_shift(field, ap, s.mx, s.my, ctx.vignet_shift_width, ctx.vignet_shift_height,
                   &o.vignet_shift[i * shift_size]);
    // VIGNET_DGEOX/Y: the map's planes, 0 without one (SExtractor leaves them so).
    if (dgeox_size && dgeo)
      dgeo_vignet(ctx.dgeo->dx, ap, s.mx, s.my, ctx.vignet_dgeox_width, ctx.vignet_dgeox_height,
                  &o.vignet_dgeox[i * dgeox_size]);
    if (dgeoy_size && dgeo)
      dgeo_vignet(ctx.dgeo->dy, ap, s.mx, s.my, ctx.vignet_dgeoy_width, ctx.vignet_dgeoy_height,
                  &o.vignet_dgeoy[i * dgeoy_size]);
    o.flags[i] = flags;
    if (ctx.time_objects)
      o.duration_analysis[i] =
          static_cast<float>(std::chrono::duration<double>(Clock::now() - started).count());
  }
  if (on_gpu && ctx.gpu_seconds)
    ctx.gpu_seconds->emplace_back(
        "measure: the rows, from the GPU's columns",
        std::chrono::duration<double>(Clock::now() - rows_started).count());
  return o;
}

}  // namespace celeris::extract
