// The alpha kernels of SPP (eq. 1) on CUDA; included by spp_cuda.cu only.
//
// Device layout: planar (band-major, value (b, p) at b * np + p, p = line * samples + sample), so
// threads working on adjacent samples read adjacent addresses. Every kernel sums the squared
// differences of unit spectra in float32, band by band in order, then takes the angle by
// sppmath::angle_from_unit_d2 (never a dot product: for nearly parallel spectra 1 - <u,v> loses
// the digits the 1e-5 accuracy needs; for the same reason there is no TF32 tensor-core path).
#pragma once

#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include "spp_math.hpp"

namespace celeris::hyperspectral::cuda {

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
// Input: unit spectra. Traffic: every pixel's neighbours are read by every block that needs them
// (w^2 times).
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

// The paper's Sec. 3.2 idea (several pixels per block): a 32 x 8 tile of pixels per block, one
// thread per pixel. Per window row, a thread walks the bands once and updates up to kRun
// neighbours of that row in registers, so its own value is loaded once per row instead of once
// per neighbour; a warp's loads are coalesced and the halo is shared by the tile through L1.
// Input: unit spectra. Traffic: about w + 1 L1/L2 reads per band per pixel and window row.
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

// Register-blocked kernel with the block's spectra staged in shared memory. Block: 32 x W
// threads (W = 2D + 1, the window size) over a tile of 32 samples x R lines. Thread (x, y) owns
// the R pixels of column x of the tile and the window column offset c = y - D: per band it reads
// its R own values and the R + 2D values of column x + c that their windows reach, and updates
// R x W squared-difference sums in registers, so each value it reads serves up to W pairs (the
// tile kernel: one).
// Staging: the tile plus its halo ((R + 2D) x (32 + 2D) pixels) is copied K bands at a time into
// shared memory with cp.async, two stages deep, so the copy of chunk n + 1 overlaps the
// arithmetic on chunk n and each value leaves global memory once per block. The raw cube is
// copied, then scaled to unit spectra in shared memory by the thread that copied it (no
// unit-spectra copy of the cube in device memory). Out-of-image halo positions copy a clamped
// neighbour (read, then discarded). The W partial sums per pixel meet in shared memory and are
// added in a fixed order (deterministic).
template <int D, int R, int K>
struct StripShape {
  static constexpr int W = 2 * D + 1, N = R + 2 * D, HR = R + 2 * D, HC = 32 + 2 * D;
  static constexpr int threads = 32 * W, band_floats = HR * HC, stage_floats = K * band_floats;
  static constexpr int copies = (band_floats + threads - 1) / threads;  // halo positions/thread
  static constexpr int partial_floats = 2 * W * R * 32;
  static constexpr int smem_floats =
      2 * stage_floats > partial_floats ? 2 * stage_floats : partial_floats;
};

template <int D, int R, int K>
__global__ void __launch_bounds__(32 * (2 * D + 1))
    alpha_strip_kernel(const float* __restrict__ cube, const float2* __restrict__ inv_norm,
                       const unsigned char* __restrict__ zero, int bands, int lines, int samples,
                       float* __restrict__ alpha) {
  using Sh = StripShape<D, R, K>;
  constexpr int W = Sh::W, N = Sh::N, HC = Sh::HC;
  extern __shared__ float smem[];
  const int x = threadIdx.x, y = threadIdx.y, c = y - D, tid = y * 32 + x;
  const int j0 = blockIdx.x * 32, i0 = blockIdx.y * R, j = j0 + x, s = j + c;
  const long long np = static_cast<long long>(lines) * samples;
  const bool column_ok = j < samples && s >= 0 && s < samples;

  // The halo positions this thread copies: offsets in a band plane (clamped) and in the stage.
  int src[Sh::copies];
  float2 scale[Sh::copies];
#pragma unroll
  for (int m = 0; m < Sh::copies; ++m) {
    const int pos = tid + m * Sh::threads, hr = pos / HC, hc = pos % HC;
    src[m] = min(max(i0 - D + hr, 0), lines - 1) * samples + min(max(j0 - D + hc, 0), samples - 1);
    scale[m] = pos < Sh::band_floats ? inv_norm[src[m]] : make_float2(0, 0);
  }
  const int chunks = (bands + K - 1) / K;
  auto issue = [&](int chunk) {
    float* stage = smem + (chunk & 1) * Sh::stage_floats;
    const int b0 = chunk * K, nb = min(K, bands - b0);
#pragma unroll
    for (int kb = 0; kb < K; ++kb) {
      if (kb >= nb) break;
      const float* plane = cube + static_cast<long long>(b0 + kb) * np;
#pragma unroll
      for (int m = 0; m < Sh::copies; ++m) {
        const int pos = tid + m * Sh::threads;
        if (pos < Sh::band_floats)
          __pipeline_memcpy_async(stage + kb * Sh::band_floats + pos, plane + src[m],
                                  sizeof(float));
      }
    }
    __pipeline_commit();
  };

  float acc[R][W];
#pragma unroll
  for (int k = 0; k < R; ++k)
#pragma unroll
    for (int a = 0; a < W; ++a) acc[k][a] = 0;
  issue(0);
  for (int n = 0; n < chunks; ++n) {
    if (n + 1 < chunks)
      issue(n + 1);
    else
      __pipeline_commit();  // an empty group, so that wait_prior(1) below means chunk n
    __pipeline_wait_prior(1);
    // Unit spectra in place: each thread scales the values it copied (its copies have landed),
    // as y * (hi + lo) with hi + lo = 1/|y| in float64, rounded once: the same values as the
    // float64 product the other kernels' unit spectra come from (a plain float product, off by
    // an ulp, would give identical directions a spurious angle, and sqrt(alpha) amplifies it).
    float* stage = smem + (n & 1) * Sh::stage_floats;
    const int nb = min(K, bands - n * K);
#pragma unroll
    for (int kb = 0; kb < K; ++kb) {
      if (kb >= nb) break;
#pragma unroll
      for (int m = 0; m < Sh::copies; ++m) {
        const int pos = tid + m * Sh::threads;
        if (pos < Sh::band_floats) {
          float& v = stage[kb * Sh::band_floats + pos];
          v = fmaf(v, scale[m].x, v * scale[m].y);
        }
      }
    }
    __syncthreads();
    const float* band = stage;
    for (int kb = 0; kb < nb; ++kb, band += Sh::band_floats) {
      float own[R], nbv[N];
#pragma unroll
      for (int k = 0; k < R; ++k) own[k] = band[(k + D) * HC + x + D];
#pragma unroll
      for (int t = 0; t < N; ++t) nbv[t] = band[t * HC + x + y];
#pragma unroll
      for (int k = 0; k < R; ++k)
#pragma unroll
        for (int a = 0; a < W; ++a) {
          const float diff = own[k] - nbv[k + a];
          acc[k][a] = fmaf(diff, diff, acc[k][a]);
        }
    }
    __syncthreads();  // the stage is overwritten by the next iteration's copy
  }

  // Angles and weights (eqs. 1-3) per owned pixel for this column offset; then the W column
  // offsets are added per pixel, in order, through shared memory (the stages are free now).
  float* part_bg = smem;
  float* part_bs = smem + W * R * 32;
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const int i = i0 + k;
    float bg = 0, bs = 0;
    if (column_ok && i < lines) {
      const bool zp = zero[static_cast<long long>(i) * samples + j];
#pragma unroll
      for (int a = 0; a < W; ++a) {
        const int r = i + a - D;
        if (r < 0 || r >= lines || (a == D && c == 0)) continue;
        const bool zq = zero[static_cast<long long>(r) * samples + s];
        const float gamma = (zp || zq) ? sppmath::zero_norm_angle<float>(zp, zq)
                                       : sppmath::angle_from_unit_d2(acc[k][a]);
        const float w = sppmath::beta_raw<float>(a - D, c);
        bg += w * gamma;
        bs += w;
      }
    }
    part_bg[(y * R + k) * 32 + x] = bg;
    part_bs[(y * R + k) * 32 + x] = bs;
  }
  __syncthreads();
  for (int o = tid; o < R * 32; o += Sh::threads) {
    const int k = o / 32, xx = o % 32, i = i0 + k, jj = j0 + xx;
    if (i >= lines || jj >= samples) continue;
    float bg = 0, bs = 0;
    for (int yy = 0; yy < W; ++yy)
      bg += part_bg[(yy * R + k) * 32 + xx], bs += part_bs[(yy * R + k) * 32 + xx];
    alpha[static_cast<long long>(i) * samples + jj] = bs > 0 ? bg / bs : 0.0f;
  }
}

}  // namespace celeris::hyperspectral::cuda
