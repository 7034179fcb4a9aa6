// Synthetic hyperspectral cubes by the linear mixing model, y = M a + n, with known endmembers
// and abundances. The random numbers come from SplitMix64 and Box-Muller written out here, so a
// seed gives the same cube with every compiler and standard library.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/simulate.hpp"

namespace celeris::sim {

using hyperspectral::Cube;
using hyperspectral::CubeFormat;

namespace {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t state_;
};

// Smooth positive spectrum: a sloped baseline plus a few Gaussian absorption/reflection features.
std::vector<double> endmember_spectrum(Rng& rng, const std::vector<double>& wl) {
  const double lo = wl.front(), hi = wl.back(), span = std::max(hi - lo, 1.0);
  const double base = rng.uniform(0.15, 0.5), slope = rng.uniform(-0.2, 0.2);
  const int nfeat = 3 + static_cast<int>(rng.next() % 3);
  std::vector<double> centre(nfeat), width(nfeat), amp(nfeat);
  for (int k = 0; k < nfeat; ++k) {
    centre[k] = rng.uniform(lo, hi);
    width[k] = rng.uniform(0.02, 0.15) * span;
    amp[k] = rng.uniform(-0.25, 0.35);
  }
  std::vector<double> out(wl.size());
  for (size_t b = 0; b < wl.size(); ++b) {
    const double t = (wl[b] - lo) / span;
    double v = base + slope * (t - 0.5);
    for (int k = 0; k < nfeat; ++k) {
      const double z = (wl[b] - centre[k]) / width[k];
      v += amp[k] * std::exp(-0.5 * z * z);
    }
    out[b] = std::clamp(v, 0.02, 0.95);
  }
  return out;
}

// Separable Gaussian blur with edge clamping, in place.
void blur(std::vector<double>& f, int L, int S, double sigma) {
  if (sigma <= 0) return;
  const int r = std::max(1, static_cast<int>(std::ceil(3 * sigma)));
  std::vector<double> k(2 * r + 1);
  double sum = 0;
  for (int i = -r; i <= r; ++i) sum += k[i + r] = std::exp(-0.5 * i * i / (sigma * sigma));
  for (auto& x : k) x /= sum;
  std::vector<double> tmp(f.size());
  for (int l = 0; l < L; ++l)
    for (int s = 0; s < S; ++s) {
      double v = 0;
      for (int i = -r; i <= r; ++i) v += k[i + r] * f[l * S + std::clamp(s + i, 0, S - 1)];
      tmp[l * S + s] = v;
    }
  for (int l = 0; l < L; ++l)
    for (int s = 0; s < S; ++s) {
      double v = 0;
      for (int i = -r; i <= r; ++i) v += k[i + r] * tmp[std::clamp(l + i, 0, L - 1) * S + s];
      f[l * S + s] = v;
    }
}

}  // namespace

SimulatedCube simulate_cube(const CubeSimParams& p) {
  if (p.lines <= 0 || p.samples <= 0 || p.bands <= 0)
    throw Error("simulate cube: lines, samples and bands must be positive");
  if (p.endmembers <= 0) throw Error("simulate cube: endmembers must be positive");
  if (p.noise < 0) throw Error("simulate cube: noise must be >= 0");
  Rng rng(p.seed);
  const int L = p.lines, S = p.samples, B = p.bands, E = p.endmembers;
  const size_t np = static_cast<size_t>(L) * S;
  std::vector<double> wl(B);
  for (int b = 0; b < B; ++b)
    wl[b] = B == 1 ? p.wavelength_min
                   : p.wavelength_min + (p.wavelength_max - p.wavelength_min) * b / (B - 1);

  SimulatedCube sim;
  sim.endmembers.resize(static_cast<size_t>(B) * E);
  for (int e = 0; e < E; ++e) {
    const auto spec = endmember_spectrum(rng, wl);
    for (int b = 0; b < B; ++b) sim.endmembers[static_cast<size_t>(b) * E + e] = spec[b];
  }

  // Abundances: softmax of smoothed white-noise fields (sum to one, spatially smooth, with
  // near-pure regions where one field dominates).
  std::vector<std::vector<double>> field(E, std::vector<double>(np));
  for (int e = 0; e < E; ++e) {
    for (auto& x : field[e]) x = rng.normal();
    blur(field[e], L, S, p.smoothness);
    double m = 0, v = 0;
    for (double x : field[e]) m += x;
    m /= np;
    for (double x : field[e]) v += (x - m) * (x - m);
    const double sd = std::sqrt(v / np);
    for (auto& x : field[e]) x = sd > 0 ? (x - m) / sd : 0.0;
  }
  const double sharpness = 3.0;
  sim.abundances = Cube(E, L, S);
  std::vector<double> a(E);
  for (size_t q = 0; q < np; ++q) {
    double mx = -1e300;
    for (int e = 0; e < E; ++e) mx = std::max(mx, sharpness * field[e][q]);
    double sum = 0;
    for (int e = 0; e < E; ++e) sum += a[e] = std::exp(sharpness * field[e][q] - mx);
    for (int e = 0; e < E; ++e) sim.abundances.band(e)[q] = static_cast<float>(a[e] / sum);
  }

  sim.cube = Cube(B, L, S);
  for (int b = 0; b < B; ++b) {
    float* out = sim.cube.band(b);
    for (size_t q = 0; q < np; ++q) {
      double v = 0;
      for (int e = 0; e < E; ++e)
        v += sim.endmembers[static_cast<size_t>(b) * E + e] * sim.abundances.band(e)[q];
      out[q] = static_cast<float>(v + p.noise * rng.normal());
    }
  }
  sim.cube.wavelengths = wl;
  sim.cube.wavelength_units = "Nanometers";
  sim.cube.source.format = CubeFormat::Envi;
  sim.cube.source.envi_fields.emplace_back(
      "description", "{celeris simulate cube: linear mixing, seed " + std::to_string(p.seed) + "}");
  sim.abundances.source.format = CubeFormat::Envi;
  return sim;
}

}  // namespace celeris::sim
