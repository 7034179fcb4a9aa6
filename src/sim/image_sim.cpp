// Sky image simulator: Moffat stars and Sérsic galaxies on a smooth background, with Poisson
// and read noise, optional saturated stars and NaN patches, and a TAN WCS.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/simulate.hpp"

namespace celeris::sim {

namespace {

constexpr double kPi = std::numbers::pi;

struct Source {
  double x, y, flux;
  int type;             // 0 star, 1 galaxy
  double re, q, pa, n;  // galaxy: effective radius, axis ratio, angle, Sérsic index
};

// Sérsic b_n (Ciotti & Bertin 1999 asymptotic expansion).
double sersic_b(double n) {
  return 2 * n - 1.0 / 3 + 4 / (405 * n) + 46 / (25515 * n * n);
}

// A source's profile sampled at 3x3 sub-pixels over its full (unclipped) stamp of 2 radius + 1
// pixels a side, from (fx0, fy0); `total` normalises it, so that sources at the border lose flux.
struct Stamp {
  std::vector<double> v;
  int fx0 = 0, fy0 = 0, n = 0;
  double total = 0;
};

template <class Profile>
void make_stamp(double cx, double cy, int radius, Profile&& prof, Stamp& st) {
  st.fx0 = static_cast<int>(std::floor(cx)) - radius;
  st.fy0 = static_cast<int>(std::floor(cy)) - radius;
  st.n = 2 * radius + 1;
  st.v.resize(static_cast<size_t>(st.n) * st.n);
  st.total = 0;
  for (int j = 0; j < st.n; ++j)
    for (int i = 0; i < st.n; ++i) {
      double s = 0;
      for (int sj = 0; sj < 3; ++sj)
        for (int si = 0; si < 3; ++si)
          s += prof(st.fx0 + i + (si - 1) / 3.0 - cx, st.fy0 + j + (sj - 1) / 3.0 - cy);
      st.v[static_cast<size_t>(j) * st.n + i] = s;
      st.total += s;
    }
}

// Adds `flux` distributed as the stamp, over the part of it inside the image.
void add_stamp(Image<float>& img, const Stamp& st, double flux) {
  const int x0 = std::max(0, st.fx0), x1 = std::min<int>(img.width() - 1, st.fx0 + st.n - 1);
  const int y0 = std::max(0, st.fy0), y1 = std::min<int>(img.height() - 1, st.fy0 + st.n - 1);
  if (x0 > x1 || y0 > y1 || st.total <= 0) return;
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x)
      img(x, y) += static_cast<float>(
          flux * st.v[static_cast<size_t>(y - st.fy0) * st.n + (x - st.fx0)] / st.total);
}

}  // namespace

SimulatedImage simulate_image(const ImageParams& p) {
  if (p.width < 1 || p.height < 1 || p.width > 65536 || p.height > 65536)
    throw Error("simulate: image size must be between 1 and 65536 pixels per side");
  if (p.fwhm <= 0 || p.moffat_beta <= 1) throw Error("simulate: need fwhm > 0 and beta > 1");
  std::mt19937_64 rng(p.seed);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const int nstars =
      p.n_stars >= 0 ? p.n_stars : static_cast<int>(double(p.width) * p.height / 8000);
  const int ngal = p.n_galaxies >= 0 ? p.n_galaxies : nstars / 2;

  // Power-law fluxes (dN/dF ~ F^-2.5, Euclidean counts), between flux_min and flux_max.
  auto draw_flux = [&]() {
    const double a = 1.5, lo = std::pow(p.flux_min, -a), hi = std::pow(p.flux_max, -a);
    return std::pow(lo + U(rng) * (hi - lo), -1 / a);
  };
  std::vector<Source> sources;
  sources.reserve(nstars + ngal + p.n_saturated);
  for (int i = 0; i < nstars; ++i)
    sources.push_back(
        {U(rng) * p.width - 0.5, U(rng) * p.height - 0.5, draw_flux(), 0, 0, 1, 0, 0});
  for (int i = 0; i < ngal; ++i) {
    Source s{U(rng) * p.width - 0.5, U(rng) * p.height - 0.5, 3 * draw_flux(), 1, 0, 0, 0, 0};
    s.re = 1.5 + 4.0 * U(rng);
    s.q = 0.3 + 0.7 * U(rng);
    s.pa = kPi * U(rng);
    s.n = U(rng) < 0.5 ? 1.0 : 4.0;
    sources.push_back(s);
  }
  for (int i = 0; i < p.n_saturated; ++i)
    sources.push_back({U(rng) * p.width - 0.5, U(rng) * p.height - 0.5,
                       p.saturation * 60.0 * (1 + U(rng)), 0, 0, 1, 0, 0});

  SimulatedImage out;
  Image<float> signal(p.width, p.height, 0.0f);
  const double alpha = p.fwhm / (2 * std::sqrt(std::pow(2.0, 1 / p.moffat_beta) - 1));
  const int star_r = std::clamp(static_cast<int>(4 * p.fwhm), 4, 40);
  auto stamp_of = [&](const Source& s, Stamp& st) {
    if (s.type == 0) {
      const double r = s.flux > p.saturation ? std::min(6 * star_r, 120) : star_r;
      make_stamp(
          s.x, s.y, static_cast<int>(r),
          [&](double dx, double dy) {
            return std::pow(1 + (dx * dx + dy * dy) / (alpha * alpha), -p.moffat_beta);
          },
          st);
    } else {
      const double b = sersic_b(s.n), c = std::cos(s.pa), sn = std::sin(s.pa);
      const int r = std::clamp(static_cast<int>(4 * s.re / std::sqrt(s.q)) + 3, 5, 60);
      make_stamp(
          s.x, s.y, r,
          [&](double dx, double dy) {
            const double u = dx * c + dy * sn, v = (-dx * sn + dy * c) / s.q;
            const double rr = std::sqrt(u * u + v * v) / s.re;
            return std::exp(-b * (std::pow(rr, 1 / s.n) - 1));
          },
          st);
    }
  };
  // The stamps (their pow and exp: nearly all of the time) on all threads, a batch of sources at
  // a time; then added to the signal in the sources' order on one thread, so that each pixel's
  // float sum, and the image's bytes, do not depend on the threads.
  constexpr size_t kBatch = 2048;
  std::vector<Stamp> stamps(std::min(kBatch, sources.size()));
  for (size_t b0 = 0; b0 < sources.size(); b0 += kBatch) {
    const size_t nb = std::min(kBatch, sources.size() - b0);
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t k = 0; k < nb; ++k) stamp_of(sources[b0 + k], stamps[k]);
    for (size_t k = 0; k < nb; ++k) add_stamp(signal, stamps[k], sources[b0 + k].flux);
  }

  // Background, noise and saturation, row by row with a per-row generator (deterministic and
  // independent of the thread count).
  out.pixels = Image<float>(p.width, p.height);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < p.height; ++y) {
    std::mt19937_64 r(p.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(y) + 1);
    std::normal_distribution<double> N(0.0, 1.0);
    for (int x = 0; x < p.width; ++x) {
      const double bg = p.background * (1 + p.gradient * ((x - p.width / 2.0) / p.width +
                                                          0.5 * (y - p.height / 2.0) / p.height));
      double mean = bg + signal(x, y);
      double v = mean;
      if (p.gain > 0) {
        const double e = std::max(0.0, mean * p.gain);
        v = (e > 1e4 ? e + std::sqrt(e) * N(r)
                     : static_cast<double>(std::poisson_distribution<long>(e)(r))) /
            p.gain;
      }
      v += p.read_noise * N(r);
      if (p.n_saturated > 0 && v > p.saturation) v = p.saturation;
      out.pixels(x, y) = static_cast<float>(v);
    }
  }
  for (int i = 0; i < p.n_nan_patches; ++i) {
    const int pw = 8 + static_cast<int>(U(rng) * 40), ph = 8 + static_cast<int>(U(rng) * 40);
    const int px = static_cast<int>(U(rng) * std::max(1, p.width - pw));
    const int py = static_cast<int>(U(rng) * std::max(1, p.height - ph));
    for (int y = py; y < std::min(p.height, py + ph); ++y)
      for (int x = px; x < std::min(p.width, px + pw); ++x)
        out.pixels(x, y) = std::numeric_limits<float>::quiet_NaN();
  }

  // Truth table and TAN WCS (north up, east left).
  const double scale_deg = p.pixel_scale / 3600.0;
  const double crpix1 = p.width / 2.0 + 0.5, crpix2 = p.height / 2.0 + 0.5;
  Table& t = out.truth;
  t.rows = sources.size();
  auto col = [&](const char* name, const char* unit, ColumnType type, const char* fmt) {
    t.columns.push_back({name, unit, "", type, 1, fmt, std::vector<double>(t.rows)});
  };
  col("X_IMAGE", "pixel", ColumnType::Float64, "%11.4f");
  col("Y_IMAGE", "pixel", ColumnType::Float64, "%11.4f");
  col("FLUX", "count", ColumnType::Float64, "%12.5g");
  col("TYPE", "", ColumnType::Int16, "%2d");
  col("RE", "pixel", ColumnType::Float64, "%8.3f");
  col("RA", "deg", ColumnType::Float64, "%12.7f");
  col("DEC", "deg", ColumnType::Float64, "%+12.7f");
  const double d0 = p.dec * kPi / 180;
  for (size_t i = 0; i < sources.size(); ++i) {
    const Source& s = sources[i];
    t.columns[0].values[i] = s.x + 1;
    t.columns[1].values[i] = s.y + 1;
    t.columns[2].values[i] = s.flux;
    t.columns[3].values[i] = s.type;
    t.columns[4].values[i] = s.re;
    // Gnomonic deprojection of the intermediate coordinates (xi to the east = -x).
    const double xi = -(s.x + 1 - crpix1) * scale_deg * kPi / 180;
    const double eta = (s.y + 1 - crpix2) * scale_deg * kPi / 180;
    const double den = std::cos(d0) - eta * std::sin(d0);
    double ra = p.ra + std::atan2(xi, den) * 180 / kPi;
    if (ra < 0) ra += 360;
    if (ra >= 360) ra -= 360;
    const double dec =
        std::atan2(eta * std::cos(d0) + std::sin(d0), std::hypot(xi, den)) * 180 / kPi;
    t.columns[5].values[i] = ra;
    t.columns[6].values[i] = dec;
  }
  auto card = [](const char* key, const std::string& v, const char* comment) {
    char buf[81];
    std::snprintf(buf, sizeof buf, "%-8.8s= %20s / %-47.47s", key, v.c_str(), comment);
    return std::string(buf);
  };
  auto num = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.12G", v);
    return std::string(b);
  };
  if (p.gain > 0) out.header_cards.push_back(card("GAIN", num(p.gain), "e-/ADU"));
  if (p.n_saturated > 0) out.header_cards.push_back(card("SATURATE", num(p.saturation), "ADU"));
  if (p.wcs) {
    out.header_cards.push_back(card("CTYPE1", "'RA---TAN'", ""));
    out.header_cards.push_back(card("CTYPE2", "'DEC--TAN'", ""));
    out.header_cards.push_back(card("CRVAL1", num(p.ra), "deg"));
    out.header_cards.push_back(card("CRVAL2", num(p.dec), "deg"));
    out.header_cards.push_back(card("CRPIX1", num(crpix1), ""));
    out.header_cards.push_back(card("CRPIX2", num(crpix2), ""));
    out.header_cards.push_back(card("CD1_1", num(-scale_deg), "deg/pixel"));
    out.header_cards.push_back(card("CD1_2", "0", ""));
    out.header_cards.push_back(card("CD2_1", "0", ""));
    out.header_cards.push_back(card("CD2_2", num(scale_deg), "deg/pixel"));
    out.header_cards.push_back(card("EQUINOX", "2000", ""));
    out.header_cards.push_back(card("RADESYS", "'FK5'", ""));
  }
  return out;
}

void apply_density(ImageParams& p, Density density) {
  if (density == Density::Sparse) return;
  const double stars_on_4k = density == Density::Crowded ? 100000.0 : 500000.0;
  if (p.n_stars < 0)
    p.n_stars = static_cast<int>(stars_on_4k * p.width * p.height / (4096.0 * 4096.0));
  if (p.n_galaxies < 0) p.n_galaxies = p.n_stars / 2;
  if (density == Density::Dense) p.fwhm = 1.2;
}

}  // namespace celeris::sim
