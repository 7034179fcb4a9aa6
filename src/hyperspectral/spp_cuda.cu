// SPP on CUDA, device-resident: the cube stays in device memory and every stage runs there
// (centroid, norms, alpha, rho, displacement); spp_cuda wraps it with the upload and download.
//
// Stages and their device-memory traffic for a cube of n = bands x pixels floats:
//   centroid   reads n (per-band float64 sums, two-step so the result is deterministic)
//   normalise  reads n, writes 1/|y| and a zero flag per pixel; the block and tile kernels also
//              need the unit spectra, written to a second buffer of n floats
//   alpha      the kernel of spp_cuda_alpha.cuh (eq. 1)
//   displace   1/rho per pixel, then reads and writes n (eqs. 4-5, in place)
// Peak device memory besides the cube: 17 bytes per pixel (+ n floats for block and tile).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "spp_backends.hpp"
#include "spp_cuda_alpha.cuh"
#include "spp_math.hpp"

namespace celeris::hyperspectral {

namespace {

// The core CUDA layer (src/core/cuda/); "gpu" because this module's kernels live in its own
// namespace hyperspectral::cuda (spp_cuda_alpha.cuh).
namespace gpu = ::celeris::cuda;
using gpu::DeviceBuffer;

constexpr int kThreads = 256;

// Launch: grid (chunks, bands), kThreads threads. Each block sums its share of one band in
// float64 into partial[band * chunks + chunk].
__global__ void centroid_partial_kernel(const float* __restrict__ cube, long long np,
                                        double* __restrict__ partial) {
  const int band = blockIdx.y, chunks = gridDim.x;
  const float* v = cube + band * np;
  double sum = 0;
  for (long long p = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x; p < np;
       p += static_cast<long long>(chunks) * kThreads)
    sum += v[p];
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
  __shared__ double warp_sum[kThreads / 32];
  if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int w = 0; w < kThreads / 32; ++w) t += warp_sum[w];
    partial[band * chunks + blockIdx.x] = t;
  }
}

// One thread per band: the chunks' sums in a fixed order, over the pixel count.
__global__ void centroid_final_kernel(const double* __restrict__ partial, int bands, int chunks,
                                      long long np, double* __restrict__ centroid) {
  const int band = blockIdx.x * blockDim.x + threadIdx.x;
  if (band >= bands) return;
  double t = 0;
  for (int k = 0; k < chunks; ++k) t += partial[band * chunks + k];
  centroid[band] = t / static_cast<double>(np);
}

// One thread per pixel: 1/|y| (float64 sum of squares) as a float pair hi + lo, and the
// zero-norm flag; with `unit` not null also writes the unit spectra (the input of the block and
// tile kernels).
__global__ void normalise_kernel(const float* __restrict__ cube, int bands, long long np,
                                 float2* __restrict__ inv_norm, unsigned char* __restrict__ zero,
                                 float* __restrict__ unit) {
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
  const float hi = static_cast<float>(inv);
  inv_norm[p] = make_float2(hi, static_cast<float>(inv - hi));
  if (unit)
    for (int b = 0; b < bands; ++b) unit[b * np + p] = static_cast<float>(cube[b * np + p] * inv);
}

// Eq. (4): 1/rho per pixel.
__global__ void inv_rho_kernel(const float* __restrict__ alpha, long long np,
                               float* __restrict__ inv_rho) {
  const long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (p < np) inv_rho[p] = static_cast<float>(1.0 / sppmath::rho(static_cast<double>(alpha[p])));
}

// Eq. (5) in place. Launch: grid (pixel chunks, bands); four pixels per thread when the band
// planes are 16-byte aligned (np a multiple of 4).
__global__ void displace_kernel(float* __restrict__ cube, const float* __restrict__ inv_rho,
                                const double* __restrict__ centroid, long long np) {
  const int band = blockIdx.y;
  const float c = static_cast<float>(centroid[band]);
  float* v = cube + band * np;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (np % 4 == 0) {
    float4* v4 = reinterpret_cast<float4*>(v);
    const float4* r4 = reinterpret_cast<const float4*>(inv_rho);
    for (long long q = first; q < np / 4; q += stride) {
      float4 y = v4[q];
      const float4 r = r4[q];
      y.x = sppmath::displace(y.x, c, r.x), y.y = sppmath::displace(y.y, c, r.y);
      y.z = sppmath::displace(y.z, c, r.z), y.w = sppmath::displace(y.w, c, r.w);
      v4[q] = y;
    }
  } else {
    for (long long p = first; p < np; p += stride) v[p] = sppmath::displace(v[p], c, inv_rho[p]);
  }
}

unsigned blocks_for(long long n, int threads, long long cap) {
  return static_cast<unsigned>(std::min(cap, (n + threads - 1) / threads));
}

template <int D>
void launch_strip(const float* cube, const float2* inv_norm, const unsigned char* zero, int bands,
                  int lines, int samples, float* alpha) {
  // 8 lines per thread where the R x W accumulators fit the register budget, else 4; 8 bands
  // per shared-memory stage.
  constexpr int R = D <= 5 ? 8 : 4, K = 8;
  using Shape = cuda::StripShape<D, R, K>;
  constexpr size_t smem = Shape::smem_floats * sizeof(float);
  CELERIS_CUDA_CHECK(cudaFuncSetAttribute(cuda::alpha_strip_kernel<D, R, K>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const dim3 block(32, 2 * D + 1);
  const dim3 grid((samples + 31) / 32, (lines + R - 1) / R);
  cuda::alpha_strip_kernel<D, R, K>
      <<<grid, block, smem>>>(cube, inv_norm, zero, bands, lines, samples, alpha);
}

constexpr int kStripMaxHalf = 7;  // windows up to 15

}  // namespace

bool spp_cuda_compiled() {
  return true;
}

std::vector<std::string> spp_cuda_kernels() {
  return {"block", "tile", "strip"};
}

SppDeviceTimes spp_cuda_device(float* d_cube, int bands, int lines, int samples, int window,
                               const std::string& kernel, float* d_alpha,
                               std::vector<double>* centroid) {
  const auto wall0 = std::chrono::steady_clock::now();
  check_window(window);
  if (bands <= 0 || lines <= 0 || samples <= 0) throw Error("spp: empty cube");
  if (kernel != "block" && kernel != "tile" && kernel != "strip")
    throw Error("spp cuda: unknown kernel '" + kernel + "' (block, tile or strip)");
  if (cuda_device_count() == 0) throw Error("spp: no CUDA device");
  const long long np = static_cast<long long>(lines) * samples;
  if (np > INT_MAX) throw Error("spp cuda: at most 2^31 - 1 pixels per cube");
  if (kernel == "block" && lines > 65535)
    throw Error("spp cuda: the block kernel handles at most 65535 lines");
  if (bands > 65535) throw Error("spp cuda: at most 65535 bands");
  const int d = window / 2;
  const bool strip = kernel == "strip" && d <= kStripMaxHalf;
  const bool needs_unit = !strip;

  // Scratch, allocated before the timed region.
  const int chunks = static_cast<int>(std::min<long long>(64, (np + 4095) / 4096));
  DeviceBuffer<double> partial(static_cast<size_t>(bands) * chunks), dcentroid(bands);
  DeviceBuffer<float2> inv_norm(np);
  DeviceBuffer<float> own_alpha(d_alpha ? 0 : np), inv_rho(np);
  DeviceBuffer<unsigned char> zero(np);
  DeviceBuffer<float> unit(needs_unit ? static_cast<size_t>(np) * bands : 0);
  std::vector<float> beta(window * window);
  for (int a = -d; a <= d; ++a)
    for (int b = -d; b <= d; ++b) beta[(a + d) * window + (b + d)] = sppmath::beta_raw<float>(a, b);
  DeviceBuffer<float> dbeta(beta.size());
  dbeta.upload(beta.data(), beta.size());
  float* alpha = d_alpha ? d_alpha : own_alpha.data();

  gpu::EventTimer timer(5);
  timer.mark(0);
  centroid_partial_kernel<<<dim3(chunks, bands), kThreads>>>(d_cube, np, partial.data());
  centroid_final_kernel<<<(bands + 127) / 128, 128>>>(partial.data(), bands, chunks, np,
                                                      dcentroid.data());
  gpu::cuda_check_launch("centroid kernels");
  timer.mark(1);
  normalise_kernel<<<blocks_for(np, kThreads, LLONG_MAX), kThreads>>>(
      d_cube, bands, np, inv_norm.data(), zero.data(), needs_unit ? unit.data() : nullptr);
  gpu::cuda_check_launch("normalise kernel");
  timer.mark(2);
  if (strip) {
    switch (d) {
      case 1:
        launch_strip<1>(d_cube, inv_norm.data(), zero.data(), bands, lines, samples, alpha);
        break;
      case 2:
        launch_strip<2>(d_cube, inv_norm.data(), zero.data(), bands, lines, samples, alpha);
        break;
      case 3:
        launch_strip<3>(d_cube, inv_norm.data(), zero.data(), bands, lines, samples, alpha);
        break;
      case 4:
        launch_strip<4>(d_cube, inv_norm.data(), zero.data(), bands, lines, samples, alpha);
        break;
      case 5:
        launch_strip<5>(d_cube, inv_norm.data(), zero.data(), bands, lines, samples, alpha);
        break;
      case 6:
        launch_strip<6>(d_cube, inv_norm.data(), zero.data(), bands, lines, samples, alpha);
        break;
      default:
        launch_strip<7>(d_cube, inv_norm.data(), zero.data(), bands, lines, samples, alpha);
    }
  } else if (kernel == "block") {
    const int threads = std::min(1024, (window * window + 31) / 32 * 32);
    cuda::alpha_block_kernel<<<dim3(samples, lines), threads>>>(
        unit.data(), zero.data(), dbeta.data(), bands, lines, samples, window, alpha);
  } else {  // tile, or strip with a window above 15
    const dim3 block(cuda::kTileX, cuda::kTileY);
    const dim3 grid((samples + cuda::kTileX - 1) / cuda::kTileX,
                    (lines + cuda::kTileY - 1) / cuda::kTileY);
    cuda::alpha_tile_kernel<<<grid, block>>>(unit.data(), zero.data(), dbeta.data(), bands, lines,
                                             samples, window, alpha);
  }
  gpu::cuda_check_launch("alpha kernel");
  timer.mark(3);

  inv_rho_kernel<<<blocks_for(np, kThreads, LLONG_MAX), kThreads>>>(alpha, np, inv_rho.data());
  displace_kernel<<<dim3(blocks_for(np / 4 + 1, kThreads, 64), bands), kThreads>>>(
      d_cube, inv_rho.data(), dcentroid.data(), np);
  gpu::cuda_check_launch("displace kernel");
  timer.mark(4);
  CELERIS_CUDA_CHECK(cudaDeviceSynchronize());

  SppDeviceTimes t;
  t.total = timer.seconds(0, 4);
  t.centroid = timer.seconds(0, 1);
  t.normalise = timer.seconds(1, 2);
  t.alpha = timer.seconds(2, 3);
  t.displace = timer.seconds(3, 4);
  if (centroid) {
    centroid->resize(bands);
    dcentroid.download(centroid->data(), size_t(bands));
  }
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return t;
}

SppResult spp_cuda(const Cube& cube, int window, bool keep_alpha, const std::string& kernel) {
  check_window(window);
  return spp_cuda(Cube(cube), window, keep_alpha, kernel);
}

SppResult spp_cuda(Cube&& cube, int window, bool keep_alpha, const std::string& kernel) {
  check_window(window);
  if (cube.bands <= 0 || cube.pixels() == 0) throw Error("spp: empty cube");
  if (cube.data.size() != cube.size()) throw Error("spp: cube data size mismatch");
  if (cuda_device_count() == 0) throw Error("spp: no CUDA device");
  const auto t0 = std::chrono::steady_clock::now();
  DeviceBuffer<float> dcube(cube.size()), dalpha(keep_alpha ? cube.pixels() : 0);
  dcube.upload(cube.data.data(), cube.size());
  const auto t1 = std::chrono::steady_clock::now();
  SppResult res;
  const SppDeviceTimes times =
      spp_cuda_device(dcube.data(), cube.bands, cube.lines, cube.samples, window, kernel,
                      keep_alpha ? dalpha.data() : nullptr, &res.centroid);
  const auto t2 = std::chrono::steady_clock::now();
  dcube.download(cube.data.data(), cube.size());
  if (keep_alpha) {
    res.alpha.resize(cube.pixels());
    dalpha.download(res.alpha.data(), cube.pixels());
  }
  const auto t3 = std::chrono::steady_clock::now();
  res.cube = std::move(cube);
  res.alpha_seconds = times.alpha;
  res.device_seconds = times.total;
  res.transfer_seconds = std::chrono::duration<double>(t1 - t0).count() +
                         std::chrono::duration<double>(t3 - t2).count();
  return res;
}

}  // namespace celeris::hyperspectral
