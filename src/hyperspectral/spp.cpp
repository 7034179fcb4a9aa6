// SPP on CPU cores (float32, OpenMP) and the backend dispatch.
//
// Layout: unit spectra are pixel-interleaved (BIP) and padded to a multiple of 16 floats so that
// the inner loop over bands is a contiguous, vectorised sum of squared differences. Threads take
// image lines; each pixel visits its clipped window (eq. 1) and needs no synchronisation.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "internal.hpp"
#include "spp_backends.hpp"
#include "spp_math.hpp"

namespace celeris::hyperspectral {

void check_window(int window) {
  if (window < 3 || window % 2 == 0)
    throw Error("spp: window must be odd and >= 3, got " + std::to_string(window));
}

namespace detail {

std::vector<double> spp_centroid(const Cube& cube) {
  const size_t np = cube.pixels();
  std::vector<double> c(cube.bands, 0.0);
#pragma omp parallel for schedule(static)
  for (int b = 0; b < cube.bands; ++b) {
    const float* band = cube.band(b);
    double sum = 0;
    for (size_t p = 0; p < np; ++p) sum += band[p];
    c[b] = sum / static_cast<double>(np);
  }
  return c;
}

SppPrepared spp_prepare(const Cube& cube, int stride_multiple) {
  if (cube.bands <= 0 || cube.pixels() == 0) throw Error("spp: empty cube");
  if (cube.data.size() != cube.size()) throw Error("spp: cube data size mismatch");
  const size_t np = cube.pixels();
  const int B = cube.bands;
  SppPrepared prep;
  prep.stride = (B + stride_multiple - 1) / stride_multiple * stride_multiple;
  prep.unit.reset(new float[np * prep.stride]);  // not zero-filled here: page faults in parallel
  prep.zero.assign(np, 0);
  prep.centroid = spp_centroid(cube);
  // Norms and unit spectra, one block of pixels per thread (reads BSQ, writes BIP).
  constexpr size_t kBlock = 256;
  const long long nblocks = static_cast<long long>((np + kBlock - 1) / kBlock);
#pragma omp parallel
  {
    std::vector<double> norm2(kBlock);
#pragma omp for schedule(static)
    for (long long blk = 0; blk < nblocks; ++blk) {
      const size_t p0 = blk * kBlock, p1 = std::min(np, p0 + kBlock);
      std::fill(norm2.begin(), norm2.end(), 0.0);
      for (int b = 0; b < B; ++b) {
        const float* band = cube.band(b);
        for (size_t p = p0; p < p1; ++p) norm2[p - p0] += double(band[p]) * band[p];
      }
      // inv_norm reuses norm2; zero-norm pixels keep an all-zero unit spectrum and a flag.
      for (size_t p = p0; p < p1; ++p) {
        const double n = std::sqrt(norm2[p - p0]);
        prep.zero[p] = n == 0;
        norm2[p - p0] = n == 0 ? 0.0 : 1.0 / n;
      }
      for (size_t p = p0; p < p1; ++p)
        std::fill(prep.unit.get() + p * prep.stride + B, prep.unit.get() + (p + 1) * prep.stride,
                  0.0f);
      for (int b = 0; b < B; ++b) {
        const float* band = cube.band(b);
        for (size_t p = p0; p < p1; ++p)
          prep.unit[p * prep.stride + b] = static_cast<float>(band[p] * norm2[p - p0]);
      }
    }
  }
  return prep;
}

SppResult spp_finish(Cube&& cube, std::vector<float> alpha, std::vector<double> centroid,
                     bool keep_alpha) {
  const size_t np = cube.pixels();
  std::vector<float> inv_rho(np);
#pragma omp parallel for schedule(static)
  for (long long p = 0; p < static_cast<long long>(np); ++p)
    inv_rho[p] = static_cast<float>(1.0 / sppmath::rho(static_cast<double>(alpha[p])));
#pragma omp parallel for schedule(static)
  for (int b = 0; b < cube.bands; ++b) {
    const float c = static_cast<float>(centroid[b]);
    float* y = cube.band(b);
    for (size_t p = 0; p < np; ++p) y[p] = sppmath::displace(y[p], c, inv_rho[p]);
  }
  SppResult res;
  res.cube = std::move(cube);
  res.centroid = std::move(centroid);
  if (keep_alpha) res.alpha = std::move(alpha);
  return res;
}

}  // namespace detail

SppResult spp_cpu(const Cube& cube, int window, bool keep_alpha) {
  check_window(window);
  return spp_cpu(Cube(cube), window, keep_alpha);
}

namespace {

// gamma(y_p, y_q) in float32 from the prepared unit spectra (eq. 2).
inline float pair_angle(const detail::SppPrepared& prep, size_t p, size_t q) {
  if (prep.zero[p] || prep.zero[q])
    return sppmath::zero_norm_angle<float>(prep.zero[p], prep.zero[q]);
  const int stride = prep.stride;
  const float* u = prep.unit.get() + p * stride;
  const float* v = prep.unit.get() + q * stride;
  float d2 = 0;
#pragma omp simd reduction(+ : d2)
  for (int k = 0; k < stride; ++k) {
    const float diff = u[k] - v[k];
    d2 += diff * diff;
  }
  return sppmath::angle_from_unit_d2(d2);
}

// Direct form of eq. (1): every pixel visits its clipped window (each pair's angle computed
// twice, once from each side). Used when the pair table below would be too large.
void alpha_direct(const Cube& cube, const detail::SppPrepared& prep, int window, float* alpha) {
  const int L = cube.lines, S = cube.samples, d = window / 2;
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < L; ++i) {
    for (int j = 0; j < S; ++j) {
      const size_t p = static_cast<size_t>(i) * S + j;
      float sum_bg = 0, sum_b = 0;
      for (int r = std::max(0, i - d); r <= std::min(L - 1, i + d); ++r) {
        for (int s = std::max(0, j - d); s <= std::min(S - 1, j + d); ++s) {
          if (r == i && s == j) continue;
          const float w = sppmath::beta_raw<float>(r - i, s - j);
          sum_bg += w * pair_angle(prep, p, static_cast<size_t>(r) * S + s);
          sum_b += w;
        }
      }
      alpha[p] = sum_b > 0 ? sum_bg / sum_b : 0.0f;
    }
  }
}

// Symmetric form: gamma is symmetric, so each pair is computed once, for the offsets of one
// half-window (a > 0, or a = 0 and b > 0), into a table gamma[p][k]; a second pass gathers, for
// each pixel, its forward pairs (p, p + k) and backward pairs (p - k, p). Half the arithmetic of
// the direct form, for pixels * (w^2 - 1) / 2 floats of memory.
void alpha_symmetric(const Cube& cube, const detail::SppPrepared& prep, int window, float* alpha) {
  const int L = cube.lines, S = cube.samples, d = window / 2;
  std::vector<std::pair<int, int>> offsets;
  for (int a = 0; a <= d; ++a)
    for (int b = -d; b <= d; ++b)
      if (a > 0 || b > 0) offsets.emplace_back(a, b);
  const int H = static_cast<int>(offsets.size());
  std::unique_ptr<float[]> gamma(new float[cube.pixels() * H]);
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < L; ++i) {
    for (int j = 0; j < S; ++j) {
      const size_t p = static_cast<size_t>(i) * S + j;
      for (int k = 0; k < H; ++k) {
        const int r = i + offsets[k].first, s = j + offsets[k].second;
        if (r < L && s >= 0 && s < S)
          gamma[p * H + k] = pair_angle(prep, p, static_cast<size_t>(r) * S + s);
      }
    }
  }
#pragma omp parallel for schedule(static)
  for (int i = 0; i < L; ++i) {
    for (int j = 0; j < S; ++j) {
      const size_t p = static_cast<size_t>(i) * S + j;
      float sum_bg = 0, sum_b = 0;
      for (int k = 0; k < H; ++k) {
        const auto [a, b] = offsets[k];
        const float w = sppmath::beta_raw<float>(a, b);
        if (i + a < L && j + b >= 0 && j + b < S) {  // forward: (p, p + (a, b))
          sum_bg += w * gamma[p * H + k];
          sum_b += w;
        }
        if (i - a >= 0 && j - b >= 0 && j - b < S) {  // backward: (p - (a, b), p)
          const size_t q = static_cast<size_t>(i - a) * S + (j - b);
          sum_bg += w * gamma[q * H + k];
          sum_b += w;
        }
      }
      alpha[p] = sum_b > 0 ? sum_bg / sum_b : 0.0f;
    }
  }
}

// Largest pair table alpha_symmetric may allocate.
constexpr size_t kMaxPairTableBytes = size_t{1} << 30;

}  // namespace

void detail::spp_alpha_cpu(const Cube& cube, const SppPrepared& prep, int window, float* alpha,
                           bool symmetric) {
  if (symmetric)
    alpha_symmetric(cube, prep, window, alpha);
  else
    alpha_direct(cube, prep, window, alpha);
}

SppResult spp_cpu(Cube&& cube, int window, bool keep_alpha) {
  check_window(window);
  detail::SppPrepared prep = detail::spp_prepare(cube, 16);
  std::vector<float> alpha(cube.pixels());
  const auto t0 = std::chrono::steady_clock::now();
  const size_t half = static_cast<size_t>(window) * window / 2;
  detail::spp_alpha_cpu(cube, prep, window, alpha.data(),
                        cube.pixels() * half * sizeof(float) <= kMaxPairTableBytes);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  prep.unit.reset();
  SppResult res =
      detail::spp_finish(std::move(cube), std::move(alpha), std::move(prep.centroid), keep_alpha);
  res.alpha_seconds = secs;
  return res;
}

SppResult spp(const Cube& cube, const SppOptions& options) {
  check_window(options.window);
  return spp(Cube(cube), options);
}

SppResult spp(Cube&& cube, const SppOptions& options) {
  check_window(options.window);
  const std::vector<std::string> kernels = spp_cuda_kernels();
  if (std::find(kernels.begin(), kernels.end(), options.kernel) == kernels.end())
    throw Error("spp: unknown kernel '" + options.kernel + "' (block, tile or strip)");
  if (options.device == Device::Cpu && options.kernel != "strip")
    throw Error("spp: kernel " + options.kernel + " is a CUDA kernel; device cpu has one kernel");
  Device device = options.device;
  if (device == Device::Auto)
    device = (spp_cuda_compiled() && cuda_device_count() > 0) ? Device::Cuda : Device::Cpu;
  if (device == Device::Cuda) {
    resolve_device(Device::Cuda);  // throws when no device
    return spp_cuda(std::move(cube), options.window, options.keep_alpha, options.kernel);
  }
  return spp_cpu(std::move(cube), options.window, options.keep_alpha);
}

}  // namespace celeris::hyperspectral
