// SPP on CUDA: the similarity factor alpha (eq. 1), the costly part, on the GPU; the centroid and
// the displacement (eqs. 4-5, memory-bound) on the host through the CPU path's helpers.
//
// Device layout: unit spectra planar (band-major, value (b, p) at b * np + p), so that threads
// working on adjacent pixels read adjacent addresses.
// Peak device memory: np * bands * 4 (cube, normalised in place) + np * 5 (alpha, zero flags)
// + window^2 * 4 bytes.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "internal.hpp"
#include "spp_math.hpp"

namespace celeris::hyperspectral {

namespace {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Error(std::string("spp cuda: ") + what + ": " + cudaGetErrorString(e));
}

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  explicit DeviceBuffer(size_t n) { check_cuda(cudaMalloc(&ptr, n * sizeof(T) + 1), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Launch: one thread per pixel. Traffic: reads the cube once, writes it once. Guarantees: unit
// spectra (zero spectra stay zero) and a zero-norm flag per pixel.
__global__ void normalise_kernel(float* cube, unsigned char* zero, int bands, long long np) {
  const long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (p >= np) return;
  double n2 = 0;
  for (int b = 0; b < bands; ++b) {
    const double v = cube[b * np + p];
    n2 += v * v;
  }
  const double n = sqrt(n2);
  zero[p] = n == 0;
  const double inv = n == 0 ? 0.0 : 1.0 / n;
  for (int b = 0; b < bands; ++b) cube[b * np + p] = static_cast<float>(cube[b * np + p] * inv);
}

__device__ inline float pair_angle(const float* __restrict__ unit,
                                   const unsigned char* __restrict__ zero, int bands, long long np,
                                   long long p, long long q) {
  if (zero[p] || zero[q]) return sppmath::zero_norm_angle<float>(zero[p], zero[q]);
  float d2 = 0;
  for (int b = 0; b < bands; ++b) {
    const float diff = unit[b * np + p] - unit[b * np + q];
    d2 = fmaf(diff, diff, d2);
  }
  return sppmath::angle_from_unit_d2(d2);
}

// The paper's kernel (Sec. 3.1): one block per pixel, one thread per window position (looping
// when the window has more positions than threads), a block reduction of beta*gamma and beta.
// Traffic: every pixel's neighbours are read by every block that needs them (w^2 times).
__global__ void alpha_block_kernel(const float* __restrict__ unit,
                                   const unsigned char* __restrict__ zero,
                                   const float* __restrict__ beta, int bands, int lines,
                                   int samples, int window, float* __restrict__ alpha) {
  const int i = blockIdx.y, j = blockIdx.x, d = window / 2;
  const long long np = static_cast<long long>(lines) * samples;
  const long long p = static_cast<long long>(i) * samples + j;
  float bg = 0, bs = 0;
  for (int t = threadIdx.x; t < window * window; t += blockDim.x) {
    const int r = i + t / window - d, s = j + t % window - d;
    if (r < 0 || r >= lines || s < 0 || s >= samples || (r == i && s == j)) continue;
    const float w = beta[t];
    bg += w * pair_angle(unit, zero, bands, np, p, static_cast<long long>(r) * samples + s);
    bs += w;
  }
  for (int off = 16; off > 0; off >>= 1) {
    bg += __shfl_down_sync(0xffffffffu, bg, off);
    bs += __shfl_down_sync(0xffffffffu, bs, off);
  }
  __shared__ float sbg[32], sbs[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) sbg[warp] = bg, sbs[warp] = bs;
  __syncthreads();
  if (threadIdx.x == 0) {
    float tg = 0, ts = 0;
    for (int k = 0; k < (blockDim.x + 31) / 32; ++k) tg += sbg[k], ts += sbs[k];
    alpha[p] = ts > 0 ? tg / ts : 0.0f;
  }
}

// Optimised kernel (Sec. 3.2, several pixels per block): a 32 x 8 tile of pixels per block, one
// thread per pixel. Per window row, a thread walks the bands once and updates up to kRun
// neighbours of that row in registers, so its own value is loaded once per row instead of once
// per neighbour; a warp's loads are coalesced (adjacent pixels, band-major layout) and the halo is
// shared by the tile through L1.
// Traffic: about w + 1 L1/L2 reads per band per pixel and window row, one DRAM read of the cube.
constexpr int kTileX = 32, kTileY = 8, kRun = 16;

__global__ void alpha_tile_kernel(const float* __restrict__ unit,
                                  const unsigned char* __restrict__ zero,
                                  const float* __restrict__ beta, int bands, int lines, int samples,
                                  int window, float* __restrict__ alpha) {
  const int j = blockIdx.x * kTileX + threadIdx.x, i = blockIdx.y * kTileY + threadIdx.y;
  if (i >= lines || j >= samples) return;
  const int d = window / 2;
  const long long np = static_cast<long long>(lines) * samples;
  const long long p = static_cast<long long>(i) * samples + j;
  const int r0 = max(0, i - d), r1 = min(lines - 1, i + d);
  const int s0 = max(0, j - d), s1 = min(samples - 1, j + d);
  const bool zp = zero[p];
  float bg = 0, bs = 0;
  for (int r = r0; r <= r1; ++r) {
    for (int cs = s0; cs <= s1; cs += kRun) {
      const int n = min(kRun, s1 - cs + 1);
      float acc[kRun];
#pragma unroll
      for (int t = 0; t < kRun; ++t) acc[t] = 0;
      const float* row = unit + static_cast<long long>(r) * samples + cs;
      const float* own = unit + p;
      for (int b = 0; b < bands; ++b, row += np, own += np) {
        const float u = __ldg(own);
#pragma unroll
        for (int t = 0; t < kRun; ++t) {
          if (t < n) {
            const float diff = u - __ldg(row + t);
            acc[t] = fmaf(diff, diff, acc[t]);
          }
        }
      }
#pragma unroll
      for (int t = 0; t < kRun; ++t) {
        const int s = cs + t;
        if (t >= n || (r == i && s == j)) continue;
        const long long q = static_cast<long long>(r) * samples + s;
        const float gamma = (zp || zero[q]) ? sppmath::zero_norm_angle<float>(zp, zero[q])
                                            : sppmath::angle_from_unit_d2(acc[t]);
        const float w = beta[(r - i + d) * window + (s - j + d)];
        bg += w * gamma;
        bs += w;
      }
    }
  }
  alpha[p] = bs > 0 ? bg / bs : 0.0f;
}

}  // namespace

bool spp_cuda_compiled() {
  return true;
}

SppResult spp_cuda(const Cube& cube, int window, bool keep_alpha, const std::string& kernel) {
  check_window(window);
  return spp_cuda(Cube(cube), window, keep_alpha, kernel);
}

SppResult spp_cuda(Cube&& cube, int window, bool keep_alpha, const std::string& kernel) {
  check_window(window);
  if (cube.bands <= 0 || cube.pixels() == 0) throw Error("spp: empty cube");
  if (cube.data.size() != cube.size()) throw Error("spp: cube data size mismatch");
  if (kernel != "block" && kernel != "tile")
    throw Error("spp cuda: unknown kernel '" + kernel + "' (block or tile)");
  if (cuda_device_count() == 0) throw Error("spp: no CUDA device");
  const long long np = static_cast<long long>(cube.pixels());
  std::vector<double> centroid = detail::spp_centroid(cube);
  const int d = window / 2;
  std::vector<float> beta(window * window);
  for (int a = -d; a <= d; ++a)
    for (int b = -d; b <= d; ++b) beta[(a + d) * window + (b + d)] = sppmath::beta_raw<float>(a, b);

  DeviceBuffer<float> unit(cube.size()), dbeta(beta.size()), dalpha(np);
  DeviceBuffer<unsigned char> dzero(np);
  check_cuda(
      cudaMemcpy(unit.ptr, cube.data.data(), cube.size() * sizeof(float), cudaMemcpyHostToDevice),
      "copy cube");
  check_cuda(
      cudaMemcpy(dbeta.ptr, beta.data(), beta.size() * sizeof(float), cudaMemcpyHostToDevice),
      "copy beta");
  normalise_kernel<<<static_cast<unsigned>((np + 255) / 256), 256>>>(unit.ptr, dzero.ptr,
                                                                     cube.bands, np);
  check_cuda(cudaGetLastError(), "normalise kernel");
  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start), "event");
  check_cuda(cudaEventCreate(&stop), "event");
  check_cuda(cudaEventRecord(start), "event");
  if (kernel == "block") {
    if (cube.lines > 65535) throw Error("spp cuda: the block kernel handles at most 65535 lines");
    const int threads = std::min(1024, (window * window + 31) / 32 * 32);
    const dim3 grid(cube.samples, cube.lines);
    alpha_block_kernel<<<grid, threads>>>(unit.ptr, dzero.ptr, dbeta.ptr, cube.bands, cube.lines,
                                          cube.samples, window, dalpha.ptr);
  } else {
    const dim3 block(kTileX, kTileY);
    const dim3 grid((cube.samples + kTileX - 1) / kTileX, (cube.lines + kTileY - 1) / kTileY);
    alpha_tile_kernel<<<grid, block>>>(unit.ptr, dzero.ptr, dbeta.ptr, cube.bands, cube.lines,
                                       cube.samples, window, dalpha.ptr);
  }
  check_cuda(cudaGetLastError(), "alpha kernel");
  check_cuda(cudaEventRecord(stop), "event");
  std::vector<float> alpha(np);
  check_cuda(cudaMemcpy(alpha.data(), dalpha.ptr, np * sizeof(float), cudaMemcpyDeviceToHost),
             "copy alpha");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start, stop), "event time");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  SppResult res =
      detail::spp_finish(std::move(cube), std::move(alpha), std::move(centroid), keep_alpha);
  res.alpha_seconds = ms * 1e-3;
  return res;
}

}  // namespace celeris::hyperspectral
