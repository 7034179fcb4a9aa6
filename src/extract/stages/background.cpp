// Mesh statistics, clipped-histogram mode, bad-mesh filling, median filtering and spline
// interpolation of the background (SExtractor 2.25 back.c behaviour, own implementation).
#include "extract/stages/background.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "celeris/error.hpp"
#include "extract/settings/threads.hpp"
#include "extract/sextractor/pi.hpp"
#include "extract/stages/background_grid.hpp"
#include "extract/stages/background_mode.hpp"
#include "extract/stages/background_spline.hpp"
#include "extract/stages/median_small.hpp"

namespace celeris::extract {

namespace {

constexpr double kMinGoodFrac = 0.5;  // BACK_MINGOODFRAC: a mesh needs half its pixels valid
constexpr double kQuantNSigma = 5.0;  // histogram spans mean +/- 5 sigma
constexpr int kQuantMaxLevels = 4096;
constexpr double kQuantAMin = 4.0;  // minimum mean occupation of a histogram bin

struct MeshStats {
  float back = kBadMesh, sigma = kBadMesh;
};

// Mode and sigma of one mesh: two passes (mean/sigma, then 2-sigma clipped mean/sigma) fix a
// histogram of about 5 sigma either side; an iterative 3-sigma clipping around the median of
// that histogram gives the mode as 2.5 median - 1.5 mean when the distribution is not too
// skewed, the median otherwise (SExtractor manual, "Background estimation"). Computed by
// batch_statistics (the two passes) and histogram_mode (the rest) below.

// Sums over up to kBatch horizontally adjacent meshes of the same size, of the pixels that are
// not NaN and lie within [lcut, hcut]. Each mesh is summed in SExtractor's order (row by row, in
// double); the meshes are interleaved only so that their dependency chains overlap in the CPU.
// Excluded pixels add 0.0, which leaves a double sum unchanged.
constexpr int kBatch = 4;

struct MeshSums {
  double sum = 0, sum2 = 0;
  long n = 0;
};

template <int K>
void batch_sums(ImageView<const float> img, const int* x0, int y0, int w, int h, const float* lcut,
                const float* hcut, MeshSums* out) {
  double sum[K] = {}, sum2[K] = {};
  long n[K] = {};
  for (int y = y0; y < y0 + h; ++y) {
    const float* row = img.row(y);
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < K; ++k) {
        const float v = row[x0[k] + x];
        const bool ok = !(std::isnan(v) || v < lcut[k] || v > hcut[k]);
        const double dv = ok ? static_cast<double>(v) : 0.0;
        sum[k] += dv;
        sum2[k] += dv * dv;
        n[k] += ok;
      }
  }
  for (int k = 0; k < K; ++k) out[k] = {sum[k], sum2[k], n[k]};
}

void batch_sums(ImageView<const float> img, const int* x0, int k, int y0, int w, int h,
                const float* lcut, const float* hcut, MeshSums* out) {
  switch (k) {
    case 4:
      return batch_sums<4>(img, x0, y0, w, h, lcut, hcut, out);
    case 3:
      return batch_sums<3>(img, x0, y0, w, h, lcut, hcut, out);
    case 2:
      return batch_sums<2>(img, x0, y0, w, h, lcut, hcut, out);
    default:
      return batch_sums<1>(img, x0, y0, w, h, lcut, hcut, out);
  }
}

MeshStats histogram_mode(ImageView<const float> img, int x0, int y0, int w, int h, MeshSums clipped,
                         MeshScratch& scratch);

// Mode and sigma of k (<= kBatch) adjacent meshes of one size, into out[0..k).
void batch_statistics(ImageView<const float> img, const int* x0, int k, int y0, int w, int h,
                      int nominal_area, MeshScratch& scratch, MeshStats* out) {
  const float inf = std::numeric_limits<float>::infinity();
  float lcut[kBatch], hcut[kBatch];
  std::fill(lcut, lcut + k, -inf);
  std::fill(hcut, hcut + k, inf);
  MeshSums all[kBatch], clipped[kBatch];
  batch_sums(img, x0, k, y0, w, h, lcut, hcut, all);
  bool good[kBatch];
  for (int j = 0; j < k; ++j) {
    const long npix = all[j].n;
    good[j] = !(static_cast<float>(npix) < static_cast<float>(nominal_area * kMinGoodFrac));
    const double mean = good[j] ? all[j].sum / npix : 0.0;
    const double var = good[j] ? all[j].sum2 / npix - mean * mean : 0.0;
    const double sigma = var > 0 ? std::sqrt(var) : 0.0;
    lcut[j] = static_cast<float>(mean - 2.0 * sigma);
    hcut[j] = static_cast<float>(mean + 2.0 * sigma);
  }
  batch_sums(img, x0, k, y0, w, h, lcut, hcut, clipped);
  for (int j = 0; j < k; ++j)
    out[j] = good[j] && clipped[j].n > 0 ? histogram_mode(img, x0[j], y0, w, h, clipped[j], scratch)
                                         : MeshStats{};
}

// The histogram of one mesh, fixed by its 2-sigma-clipped mean and sigma, and the mode
// estimated from it (see mesh statistics above).
MeshStats histogram_mode(ImageView<const float> img, int x0, int y0, int w, int h, MeshSums clipped,
                         MeshScratch& scratch) {
  std::vector<int>& histo = scratch.histo;
  MeshStats out;
  const long npix = clipped.n;
  double mean = clipped.sum / npix;
  double var = clipped.sum2 / npix - mean * mean;
  double sigma = var > 0 ? std::sqrt(var) : 0.0;

  const double step = std::sqrt(2.0 / kSexPi) * kQuantNSigma / kQuantAMin;
  const int nlevels = std::min(static_cast<int>(step * npix + 1), kQuantMaxLevels);
  // SExtractor keeps the histogram origin and step in single precision.
  const float qscale = static_cast<float>(sigma > 0.0 ? 2.0 * kQuantNSigma * sigma / nlevels : 1.0);
  const float qzero = static_cast<float>(mean - kQuantNSigma * sigma);

  histo.assign(nlevels, 0);
  const float cste = static_cast<float>(0.499999 - qzero / qscale);
  const float fqscale = qscale;
  for (int y = y0; y < y0 + h; ++y) {
    const float* row = img.row(y);
    for (int x = x0; x < x0 + w; ++x) {
      const float v = row[x];
      if (std::isnan(v)) continue;
      const int bin = static_cast<int>(v / fqscale + cste);
      if (bin >= 0 && bin < nlevels) ++histo[bin];
    }
  }

  // The cumulative sums the mode iteration reads (background_mode.hpp).
  std::vector<int64_t>& c0 = scratch.c0;
  std::vector<int64_t>& c1 = scratch.c1;
  std::vector<int64_t>& c2 = scratch.c2;
  c0.assign(nlevels + 1, 0);
  c1.assign(nlevels + 1, 0);
  c2.assign(nlevels + 1, 0);
  for (int i = 0; i < nlevels; ++i) {
    const int64_t hv = histo[i];
    c0[i + 1] = c0[i] + hv;
    c1[i + 1] = c1[i] + hv * i;
    c2[i + 1] = c2[i] + hv * i * i;
  }
  const mode::Mode m = mode::histogram_mode(histo.data(), c0.data(), c1.data(), c2.data(), nlevels,
                                            mean, qzero, qscale);
  out.back = m.back;
  out.sigma = m.sigma;
  return out;
}

// Bad meshes take the mean of the nearest good meshes (all those at the minimum distance).
void fill_bad_meshes(BackgroundMap& m) {
  const int n = m.nx * m.ny;
  std::vector<float> back = m.back, sigma = m.sigma;
  bool any_good = false;
  for (int i = 0; i < n; ++i) any_good |= m.back[i] > kBadMesh;
  if (!any_good) throw Error("no valid background mesh: the image is entirely masked (NaN/BLANK)");
  for (int py = 0; py < m.ny; ++py)
    for (int px = 0; px < m.nx; ++px) {
      const int i = py * m.nx + px;
      if (m.back[i] > kBadMesh) continue;
      // float sums, as SExtractor's filterback (val, sval)
      const NearestGood g = nearest_good(m.back.data(), m.sigma.data(), m.nx, m.ny, px, py);
      back[i] = g.back / static_cast<float>(g.count);
      sigma[i] = g.sigma / static_cast<float>(g.count);
    }
  m.back = std::move(back);
  m.sigma = std::move(sigma);
}

// Median filter of the mesh grid. The window shrinks symmetrically at the grid edges (so edge
// meshes are filtered along one axis and corners not at all); a mesh is replaced only when it
// departs from the median of its window by at least BACK_FILTTHRESH.
void median_filter_meshes(BackgroundMap& m, int fw, int fh, double fthresh, int threads) {
  const int npx = filter_half_window(fw, m.nx), npy = filter_half_window(fh, m.ny);
  if (npx == 0 && npy == 0) return;
  std::vector<float> back(m.back.size()), sigma(m.sigma.size());
  // Each mesh reads the unfiltered grid and writes only itself: the rows are independent.
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    std::vector<float> bbuf, sbuf;
#pragma omp for schedule(static)
    for (int py = 0; py < m.ny; ++py)
      for (int px = 0; px < m.nx; ++px) {
        const int hx = edge_half_window(npx, px, m.nx), hy = edge_half_window(npy, py, m.ny);
        bbuf.clear();
        sbuf.clear();
        for (int y = py - hy; y <= py + hy; ++y)
          for (int x = px - hx; x <= px + hx; ++x) {
            bbuf.push_back(m.back[y * m.nx + x]);
            sbuf.push_back(m.sigma[y * m.nx + x]);
          }
        const int i = py * m.nx + px;
        const float med = median_of(bbuf);
        if (std::fabs(med - m.back[i]) >= fthresh) {
          back[i] = med;
          sigma[i] = median_of(sbuf);
        } else {
          back[i] = m.back[i];
          sigma[i] = m.sigma[i];
        }
      }
  }
  m.back = std::move(back);
  m.sigma = std::move(sigma);
}

// Global RMS: the median of the mesh sigmas; when that is not positive (mostly constant data),
// the median of the positive ones, else 1.
float global_sigma(std::vector<float> s) {
  float med = median_of(s);
  if (med > 0) return med;
  std::vector<float> pos;
  for (float v : s)
    if (v > 0) pos.push_back(v);
  if (!pos.empty() && pos.size() < s.size()) return median_of(pos);
  return 1.0f;
}

// Second derivatives (divided by 6) of natural cubic splines through each column of a grid:
// spline::second_derivatives (background_spline.hpp) on every column, its steps taken a grid row
// at a time for all columns at once. Each column's operations and their order are the same, so
// are the values; the columns' recurrences then run side by side in vector lanes instead of one
// division's latency after another (0.4 of the 1.25 ms finish_background took on a 128x128 grid,
// dev VM).
void spline_columns(const std::vector<float>& map, int nx, int ny, std::vector<float>& d2) {
  d2.assign(map.size(), 0.0f);
  if (ny < 2) return;
  const size_t w = static_cast<size_t>(nx);
  std::vector<float> u(map.size(), 0.0f);  // row 0: 0, as second_derivatives' u[0]
  const float* m = map.data();
  float* d = d2.data();  // rows 0 and ny - 1 stay 0
  for (int y = 1; y < ny - 1; ++y) {
    const float* __restrict mp = m + (y - 1) * w;
    const float* __restrict mc = m + y * w;
    const float* __restrict mn = m + (y + 1) * w;
    const float* __restrict dp = d + (y - 1) * w;
    const float* __restrict up = u.data() + (y - 1) * w;
    float* __restrict dc = d + y * w;
    float* __restrict uc = u.data() + y * w;
    for (size_t x = 0; x < w; ++x) {
      float t = -1 / (dp[x] + 4);
      dc[x] = t;
      t *= up[x] - 6 * (mn[x] + mp[x] - 2 * mc[x]);
      uc[x] = t;
    }
  }
  for (int y = ny - 2; y >= 1; --y) {
    float* __restrict dc = d + y * w;
    const float* __restrict dn = d + (y + 1) * w;
    const float* __restrict uc = u.data() + y * w;
    for (size_t x = 0; x < w; ++x) dc[x] = static_cast<float>((dc[x] * dn[x] + uc[x]) / 6.0);
  }
}

// One image row of the spline surface through `map` (SExtractor subbackline): a spline along
// y through each column of nodes, then a spline along x through the resulting row of nodes.
// Along x the float offset is accumulated pixel by pixel and reset at each node, exactly as
// SExtractor does; node k then sits at pixel (k + 0.5) * mesh_w - 0.5 along x and at
// (k + 0.5) * mesh_h along y.
void interpolate_line(const std::vector<float>& map, const std::vector<float>& d2map, int nx,
                      int ny, int mesh_w, int mesh_h, int width, int y,
                      const XSplineWeights* xweights, float* out) {
  std::vector<float> node(nx), dnode(nx), u(nx);
  spline::row_nodes(map.data(), d2map.data(), nx, ny, mesh_h, y, node.data(), dnode.data(),
                    u.data());
  if (nx < 2) {
    std::fill(out, out + width, node[0]);
    return;
  }
  if (mesh_w == 1) {
    for (int j = 0; j < width; ++j) out[j] = node[j];
    return;
  }
  XSplineWeights local;
  if (!xweights || static_cast<int>(xweights->lo.size()) != width) {
    local = x_spline_weights(nx, mesh_w, width);
    xweights = &local;
  }
  const XSplineWeights& xw = *xweights;
  for (int j = 0; j < width; ++j) {
    const int lo = xw.lo[j];
    out[j] =
        spline::at(node.data(), dnode.data(), lo, xw.cdx[j], xw.cdx2m1[j], xw.dx[j], xw.dx2m1[j]);
  }
}

BackgroundMap mesh_grid(ImageView<const float> image, const Config& config) {
  BackgroundMap m = mesh_layout(image.width, image.height, config);
  const int nt = worker_threads(config, image.width * image.height);
#pragma omp parallel num_threads(nt)
  {
    MeshScratch scratch;
    // Batches of kBatch adjacent full-width meshes along each mesh row; the last (narrower)
    // column of meshes alone.
    const int full = m.width / m.mesh_w, full_batches = (full + kBatch - 1) / kBatch;
    const int batches_per_row = full_batches + (full < m.nx ? 1 : 0);
#pragma omp for schedule(dynamic)
    for (int b = 0; b < m.ny * batches_per_row; ++b) {
      const int py = b / batches_per_row, batch = b % batches_per_row;
      const int first = batch < full_batches ? batch * kBatch : full;
      const int k = batch < full_batches ? std::min(kBatch, full - first) : 1;
      const int y0 = py * m.mesh_h, h = std::min(m.mesh_h, m.height - y0);
      const int w = std::min(m.mesh_w, m.width - first * m.mesh_w);
      int x0[kBatch];
      for (int j = 0; j < k; ++j) x0[j] = (first + j) * m.mesh_w;
      MeshStats s[kBatch];
      batch_statistics(image, x0, k, y0, w, h, w * h, scratch, s);
      for (int j = 0; j < k; ++j) {
        m.back[py * m.nx + first + j] = s[j].back;
        m.sigma[py * m.nx + first + j] = s[j].sigma;
      }
    }
  }
  return m;
}

}  // namespace

// The x walk of SExtractor's subbackline: the offset dx is accumulated in float pixel by pixel
// and reset at each node, so it depends on the column only; computing it once per image makes
// each row a loop without a carried dependency (same floats, same result).
XSplineWeights x_spline_weights(int nx, int mesh_w, int width) {
  XSplineWeights w;
  w.lo.resize(width);
  w.cdx.resize(width);
  w.cdx2m1.resize(width);
  w.dx.resize(width);
  w.dx2m1.resize(width);
  const float xstep = 1.0f / mesh_w;
  const int changepoint = mesh_w / 2;
  float dx = (xstep - 1) / 2;
  const float dx0 = ((mesh_w + 1) % 2) * xstep / 2;
  int lo = 0, xm = 0;
  for (int j = 0, i = 0; j < width; ++j, ++i, dx += xstep) {
    if (i == changepoint && xm > 0 && xm < nx - 1) {
      ++lo;
      dx = dx0;
    }
    const float cdx = 1 - dx;
    w.lo[j] = lo;
    w.cdx[j] = cdx;
    w.cdx2m1[j] = cdx * cdx - 1;
    w.dx[j] = dx;
    w.dx2m1[j] = dx * dx - 1;
    if (i == mesh_w) {
      ++xm;
      i = 0;
    }
  }
  return w;
}

// The middle element(s) by selection, not a full sort: the same values (order statistics do not
// depend on how they are found), in linear time; `v` is left partly reordered.
float median_of(std::vector<float>& v) {
  const size_t n = v.size();
  if (n <= static_cast<size_t>(kSmallMedian))
    return median_small(v.data(), static_cast<int>(n));  // the mesh filter's windows
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2) return *mid;
  const float below = *std::max_element(v.begin(), mid);  // the (n/2 - 1)-th in order
  return static_cast<float>((below + static_cast<double>(*mid)) / 2.0);
}

BackgroundMap mesh_layout(int64_t width, int64_t height, const Config& config) {
  if (width <= 0 || height <= 0) throw Error("empty image: no pixels to measure");
  BackgroundMap m;
  m.width = static_cast<int>(width);
  m.height = static_cast<int>(height);
  m.mesh_w = std::min(config.back_width, m.width);
  m.mesh_h = std::min(config.back_height, m.height);
  m.nx = (m.width - 1) / m.mesh_w + 1;
  m.ny = (m.height - 1) / m.mesh_h + 1;
  m.back.assign(m.nx * m.ny, kBadMesh);
  m.sigma.assign(m.nx * m.ny, kBadMesh);
  return m;
}

void finish_background(BackgroundMap& m, const Config& config) {
  fill_bad_meshes(m);
  // On the frame's thread count, as the stages before and after. A smaller team (until stop 47,
  // one thread per 512 meshes: 9 for a 4096^2 frame) makes libgomp end the threads it leaves
  // out, and the next stage's team starts them again: seven thread starts a frame.
  median_filter_meshes(m, config.back_filter_width, config.back_filter_height,
                       config.back_filtthresh, worker_threads(config, int64_t(m.width) * m.height));
  std::vector<float> b = m.back;
  m.global_back = median_of(b);
  m.global_rms = global_sigma(m.sigma);
  spline_columns(m.back, m.nx, m.ny, m.dback);
  spline_columns(m.sigma, m.nx, m.ny, m.dsigma);
  if (m.nx >= 2 && m.mesh_w > 1) m.xweights = x_spline_weights(m.nx, m.mesh_w, m.width);
  if (config.back_manual) {
    // As SExtractor: the automatic map is still built (its RMS sets the thresholds and the
    // BACKGROUND column reads it); only the subtracted value is the constant.
    m.manual = true;
    m.manual_value = static_cast<float>(config.back_value);
  }
}

BackgroundMap background_map(ImageView<const float> image, const Config& config) {
  return config.back_manual ? constant_background(image, config, float(config.back_value))
                            : estimate_background(image, config);
}

Image<float> subtract_background(ImageView<const float> image, const BackgroundMap& map,
                                 Image<float>* reuse, int threads) {
  const int w = static_cast<int>(image.width), h = static_cast<int>(image.height);
  Image<float> value = reuse ? std::move(*reuse) : Image<float>::uninitialized(w, h);
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> line(w);
#pragma omp for schedule(static)
    for (int y = 0; y < h; ++y) {
      map.back_line(y, line.data());
      const float* in = image.row(y);
      float* out = value.view().row(y);
      for (int x = 0; x < w; ++x) out[x] = in[x] - line[x];
    }
  }
  return value;
}

Image<float> background_image(ImageView<const float> image, const Config& config, float* global) {
  const BackgroundMap m = background_map(image, config);
  Image<float> out = Image<float>::uninitialized(image.width, image.height);
  for (int64_t y = 0; y < image.height; ++y) m.back_line(static_cast<int>(y), out.view().row(y));
  if (global) *global = m.manual ? m.manual_value : m.global_back;
  return out;
}

ListBackground list_background(std::span<const float> pixels, MeshScratch& scratch) {
  // One row of pixels is one mesh of that many pixels, all valid (localback keeps only those).
  const int n = static_cast<int>(pixels.size());
  const ImageView<const float> row{pixels.data(), n, 1};
  MeshStats stats;
  const int x0 = 0;
  batch_statistics(row, &x0, 1, 0, n, 1, n, scratch, &stats);
  return {stats.back, stats.sigma};
}

BackgroundMap estimate_background(ImageView<const float> image, const Config& config) {
  Config automatic = config;
  automatic.back_manual = false;
  BackgroundMap m = mesh_grid(image, automatic);
  finish_background(m, automatic);
  return m;
}

BackgroundMap constant_background(ImageView<const float> image, const Config& config, float value) {
  // As SExtractor: the automatic map is still built (its RMS sets the thresholds and the
  // BACKGROUND column reads it); only the subtracted value is the constant.
  BackgroundMap m = estimate_background(image, config);
  m.manual = true;
  m.manual_value = value;
  return m;
}

void BackgroundMap::back_line(int y, float* out) const {
  if (manual) {
    std::fill(out, out + width, manual_value);
    return;
  }
  interpolate_line(back, dback, nx, ny, mesh_w, mesh_h, width, y, &xweights, out);
}

void BackgroundMap::rms_line(int y, float* out) const {
  interpolate_line(sigma, dsigma, nx, ny, mesh_w, mesh_h, width, y, &xweights, out);
}

}  // namespace celeris::extract
