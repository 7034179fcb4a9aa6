// Kernels of the GPU front end (kernels.hpp). Compiled with --fmad=false: every float and
// double operation rounds as the CPU path's does, so the maps and images are its bit for bit.
#include <thrust/iterator/counting_iterator.h>
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/kernels.hpp"
#include "extract/sextractor/pi.hpp"
#include "extract/stages/background_grid.hpp"
#include "extract/stages/background_mode.hpp"
#include "extract/stages/background_spline.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr double kMinGoodFrac = 0.5;  // background.cpp
constexpr double kQuantNSigma = 5.0;
constexpr int kQuantMaxLevels = 4096;
constexpr double kQuantAMin = 4.0;

// ---- Background mesh statistics ----------------------------------------------------------------

struct MeshClip {
  double sum, sum2;  // of the 2-sigma-clipped pixels
  int64_t n;
  int valid;  // enough good pixels, and some left after clipping
};

struct MeshBox {
  int x0, y0, w, h;
};

__device__ MeshBox mesh_box(const MeshGeometry& g, int mesh) {
  const int px = mesh % g.nx, py = mesh / g.nx;
  const int x0 = px * g.mesh_w, y0 = py * g.mesh_h;
  return {x0, y0, min(g.mesh_w, g.width - x0), min(g.mesh_h, g.height - y0)};
}

// The clipping pass reads each mesh through shared memory: a block stages up to kClipTile of the
// mesh's pixels (row-major, coalesced), then, a part of kClipPart pixels at a time, all its
// threads make each pixel's terms (the double, 0 where clipped, and its square) and count the
// pixels kept, and one thread adds the values in the CPU's order (row by row, in double: the
// order of a double sum is part of its value) while another, in another warp, adds the squares.
// The two sequential threads then do nothing but the additions (a load and an add each, the
// loads independent of the sums): with the conversion, the test and the square in their loops
// the sums had taken about 55 cycles a pixel (stop 37, Nsight Compute: 458 us a strip of 1,024
// meshes; stop 38 on the H200, crowded 4096^2: the four strips' mesh kernels 1.12 -> 0.33 ms
// after the upload). One thread per mesh reading global memory itself was latency-bound.
constexpr int kClipThreads = 128;
constexpr int kClipTile = 8192;
constexpr int kClipPart = 512;

struct ClipSums {
  double sum, sum2;
  int64_t n;
};

// The block's shared working memory for mesh_sums.
struct ClipShared {
  float* tile;     // kClipTile
  double* value;   // kClipPart: the part's terms of the sum
  double* square;  // kClipPart: of the sum of squares
  int* kept;       // the pixels kept
};

// Sums of the mesh's pixels within [lcut, hcut]; valid in threads 0 (sum, n) and 32 (sum2).
// `sh.tile` holds the whole mesh already when `staged` (the caller loaded it for an earlier
// pass).
__device__ ClipSums mesh_sums(const float* image, int width, const MeshBox& b, float lcut,
                              float hcut, const ClipShared& sh, bool staged) {
  ClipSums s{0, 0, 0};
  const int npx = b.w * b.h;
  if (threadIdx.x == 0) *sh.kept = 0;
  __syncthreads();
  int kept = 0;  // this thread's count (integers: any order)
  for (int k0 = 0; k0 < npx; k0 += kClipTile) {
    const int len = min(kClipTile, npx - k0);
    if (!staged) {
      __syncthreads();  // the previous tile is summed
      for (int k = threadIdx.x; k < len; k += blockDim.x) {
        const int e = k0 + k;
        sh.tile[k] = image[static_cast<size_t>(b.y0 + e / b.w) * width + b.x0 + e % b.w];
      }
    }
    for (int p0 = 0; p0 < len; p0 += kClipPart) {
      const int plen = min(kClipPart, len - p0);
      __syncthreads();  // the tile is there, the previous part summed
      for (int k = threadIdx.x; k < plen; k += blockDim.x) {
        const float v = sh.tile[p0 + k];
        const bool ok = !(isnan(v) || v < lcut || v > hcut);
        const double dv = ok ? static_cast<double>(v) : 0.0;
        sh.value[k] = dv;
        sh.square[k] = dv * dv;
        kept += ok;
      }
      __syncthreads();
      if (threadIdx.x == 0) {
#pragma unroll 8
        for (int k = 0; k < plen; ++k) s.sum += sh.value[k];
      } else if (threadIdx.x == 32) {
#pragma unroll 8
        for (int k = 0; k < plen; ++k) s.sum2 += sh.square[k];
      }
    }
  }
  atomicAdd(sh.kept, kept);
  __syncthreads();
  s.n = *sh.kept;
  __syncthreads();  // read before the next call resets it
  return s;
}

// One block per mesh.
__global__ void __launch_bounds__(kClipThreads)
    mesh_clip_kernel(const float* image, MeshGeometry g, int first, MeshClip* out) {
  __shared__ float tile[kClipTile];
  __shared__ double value[kClipPart], square[kClipPart];
  __shared__ int kept;
  __shared__ double shared_sum2;
  __shared__ double shared_stats[2];  // the first pass's mean and sigma
  const ClipShared sh{tile, value, square, &kept};
  const int mesh = first + blockIdx.x;
  const MeshBox b = mesh_box(g, mesh);
  const bool whole = b.w * b.h <= kClipTile;  // staged once for both passes
  const float inf = INFINITY;
  ClipSums s = mesh_sums(image, g.width, b, -inf, inf, sh, false);
  if (threadIdx.x == 32) shared_sum2 = s.sum2;
  __syncthreads();
  if (threadIdx.x == 0) {
    const int64_t n = s.n;
    const bool good = !(static_cast<float>(n) < static_cast<float>((b.w * b.h) * kMinGoodFrac));
    const double mean = good ? s.sum / n : 0.0;
    const double var = good ? shared_sum2 / n - mean * mean : 0.0;
    shared_stats[0] = mean;
    shared_stats[1] = var > 0 ? sqrt(var) : 0.0;
    out[mesh].valid = good;
  }
  __syncthreads();
  const double mean = shared_stats[0], sigma = shared_stats[1];
  const float lcut = static_cast<float>(mean - 2.0 * sigma);
  const float hcut = static_cast<float>(mean + 2.0 * sigma);
  s = mesh_sums(image, g.width, b, lcut, hcut, sh, whole);
  if (threadIdx.x == 32) shared_sum2 = s.sum2;
  __syncthreads();
  if (threadIdx.x == 0) out[mesh] = {s.sum, shared_sum2, s.n, out[mesh].valid && s.n > 0 ? 1 : 0};
}

constexpr int kModeThreads = 256;
constexpr int kModeItems = kQuantMaxLevels / kModeThreads;  // bins per thread in the scans

// c1[i] (k = 1) or c2[i] (k = 2), the sums over bins j < i of h[j] j^k, from the block's
// per-thread-chunk prefixes and at most kModeItems - 1 bins: the walk reads only a few of them,
// and keeping only the prefixes leaves the block about 37 KB of shared memory instead of 114
// (six blocks an SM instead of one). The integers are the same, hence the same doubles.
template <int k>
struct ChunkPrefix {
  const int* histo;
  const int64_t* chunk;  // kModeThreads + 1 prefixes, at bins 0, kModeItems, 2 kModeItems, ...
  __device__ int64_t operator[](int i) const {
    const int c = i / kModeItems;
    int64_t s = chunk[c];
    for (int j = c * kModeItems; j < i; ++j)
      s += k == 1 ? int64_t{histo[j]} * j : int64_t{histo[j]} * j * j;
    return s;
  }
};

// One block per mesh: its histogram (shared-memory atomics: counts do not depend on order), the
// cumulative counts by a block scan, then the clipping iteration on one thread.
__global__ void __launch_bounds__(kModeThreads)
    mesh_mode_kernel(const float* image, MeshGeometry g, int first_mesh, const MeshClip* clip,
                     float* back_out, float* sigma_out) {
  __shared__ int histo[kQuantMaxLevels];
  __shared__ int c0[kQuantMaxLevels + 1];  // counts: at most the mesh's pixels (< 2^31)
  __shared__ int64_t p1[kModeThreads + 1], p2[kModeThreads + 1];
  using Scan = cub::BlockScan<int64_t, kModeThreads>;
  __shared__ typename Scan::TempStorage scan_tmp;

  const int mesh = first_mesh + blockIdx.x;
  const MeshClip c = clip[mesh];
  if (!c.valid) {
    if (threadIdx.x == 0) back_out[mesh] = sigma_out[mesh] = kBadMesh;
    return;
  }
  const MeshBox b = mesh_box(g, mesh);
  const int64_t npix = c.n;
  const double mean = c.sum / npix;
  const double var = c.sum2 / npix - mean * mean;
  const double sigma = var > 0 ? sqrt(var) : 0.0;
  const double step = sqrt(2.0 / kSexPi) * kQuantNSigma / kQuantAMin;
  const int nlevels = min(static_cast<int>(step * npix + 1), kQuantMaxLevels);
  const float qscale = static_cast<float>(sigma > 0.0 ? 2.0 * kQuantNSigma * sigma / nlevels : 1.0);
  const float qzero = static_cast<float>(mean - kQuantNSigma * sigma);
  const float cste = static_cast<float>(0.499999 - qzero / qscale);

  for (int i = threadIdx.x; i < kQuantMaxLevels; i += kModeThreads) histo[i] = 0;
  __syncthreads();
  const int npx = b.w * b.h;
  for (int k = threadIdx.x; k < npx; k += kModeThreads) {
    const float v = image[static_cast<size_t>(b.y0 + k / b.w) * g.width + b.x0 + k % b.w];
    if (isnan(v)) continue;
    const int bin = static_cast<int>(v / qscale + cste);
    if (bin >= 0 && bin < nlevels) atomicAdd(&histo[bin], 1);
  }
  __syncthreads();
  // This thread's kModeItems bins: their sums of h, h i and h i^2, scanned over the block.
  int64_t t[3] = {0, 0, 0};
  const int first = threadIdx.x * kModeItems;
  for (int j = first; j < first + kModeItems; ++j) {
    const int64_t hv = histo[j];  // 0 past nlevels: those bins never count
    t[0] += hv;
    t[1] += hv * j;
    t[2] += hv * j * j;
  }
  int64_t before[3], total[3];
  for (int m = 0; m < 3; ++m) {
    Scan(scan_tmp).ExclusiveSum(t[m], before[m], total[m]);
    __syncthreads();
  }
  int64_t run = before[0];
  for (int j = first; j < first + kModeItems; ++j) {
    c0[j] = static_cast<int>(run);
    run += histo[j];
  }
  p1[threadIdx.x] = before[1];
  p2[threadIdx.x] = before[2];
  if (threadIdx.x == 0) {
    c0[kQuantMaxLevels] = static_cast<int>(total[0]);
    p1[kModeThreads] = total[1];
    p2[kModeThreads] = total[2];
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  // Entries past nlevels equal c[nlevels]: the walk reads c[0 .. nlevels] only.
  const mode::Mode m =
      mode::histogram_mode(histo, c0, ChunkPrefix<1>{histo, p1}, ChunkPrefix<2>{histo, p2}, nlevels,
                           mean, qzero, qscale);
  back_out[mesh] = m.back;
  sigma_out[mesh] = m.sigma;
}

// ---- Background map and subtraction ------------------------------------------------------------

__global__ void row_nodes_kernel(const float* map, const float* d2map, MeshGeometry g, float* node,
                                 float* dnode, float* u) {
  const int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= g.height) return;
  const size_t o = static_cast<size_t>(y) * g.nx;
  spline::row_nodes(map, d2map, g.nx, g.ny, g.mesh_h, y, node + o, dnode + o, u + o);
}

__global__ void subtract_kernel(const float* image, const float* node, const float* dnode,
                                XWeights xw, MeshGeometry g, bool manual, float manual_value,
                                float* value) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= g.width) return;
  const size_t o = static_cast<size_t>(y) * g.nx;
  float back;
  if (manual)
    back = manual_value;
  else if (g.nx < 2)
    back = node[o];
  else if (g.mesh_w == 1)
    back = node[o + x];
  else
    back =
        spline::at(node + o, dnode + o, xw.lo[x], xw.cdx[x], xw.cdx2m1[x], xw.dx[x], xw.dx2m1[x]);
  const size_t p = static_cast<size_t>(y) * g.width + x;
  // A masked pixel keeps its NaN's bits (quietened), as the CPU's subtraction does: the GPU's
  // own arithmetic would return its canonical NaN, and -BACKGROUND would differ in those bits.
  const float v = image[p];
  value[p] = isnan(v) ? __uint_as_float(__float_as_uint(v) | 0x00400000u) : v - back;
}

// ---- Filter ------------------------------------------------------------------------------------

__global__ void filter_kernel(const float* value, const float* kernel, int kw, int kh, int width,
                              int height, float* out, bool mark_masked) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= width) return;
  // Taps in kernel row-major order, outside the image skipped, as filter.cpp sums them.
  float acc = 0.0f;
  bool masked = false;
  for (int j = 0; j < kh; ++j) {
    const int sy = y + j - kh / 2;
    if (sy < 0 || sy >= height) continue;
    const float* row = value + static_cast<size_t>(sy) * width;
    for (int i = 0; i < kw; ++i) {
      const int sx = x + i - kw / 2;
      if (sx < 0 || sx >= width) continue;
      const float kv = kernel[j * kw + i];
      const float v = row[sx];
      const bool nan = isnan(v);
      acc += kv * (nan ? 0.0f : v);
      masked |= nan && kv != 0.0f;
    }
  }
  out[static_cast<size_t>(y) * width + x] = masked && mark_masked ? -INFINITY : acc;
}

// ---- Components --------------------------------------------------------------------------------

struct KeepPixel {
  const int32_t* parent;
  const int32_t* count;
  int minarea;
  __device__ bool operator()(int32_t p) const {
    const int32_t r = parent[p];
    return r >= 0 && count[r] >= minarea;
  }
};

__global__ void keys_kernel(const int32_t* pixels, int64_t n, const int32_t* parent,
                            const int32_t* last, int32_t* keys) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) keys[i] = last[parent[pixels[i]]];
}

int key_bits(int64_t n) {
  int bits = 1;
  while ((int64_t{1} << bits) < n) ++bits;
  return bits;
}

struct ComponentScratch {
  size_t select_bytes = 0, sort_bytes = 0;
};

ComponentScratch component_scratch(int64_t n) {
  ComponentScratch s;
  thrust::counting_iterator<int32_t> it(0);
  int32_t* p = nullptr;
  int64_t* count = nullptr;
  cub::DeviceSelect::If(nullptr, s.select_bytes, it, p, count, n, KeepPixel{nullptr, nullptr, 0});
  cub::DeviceRadixSort::SortPairs(nullptr, s.sort_bytes, p, p, p, p, n, 0, key_bits(n));
  return s;
}

size_t align256(size_t b) {
  return (b + 255) / 256 * 256;
}

dim3 row_grid(int width, int height, int threads) {
  return dim3(static_cast<unsigned>((width + threads - 1) / threads),
              static_cast<unsigned>(height));
}

}  // namespace

size_t mesh_scratch_bytes(const MeshGeometry& g) {
  return static_cast<size_t>(g.nx) * g.ny * sizeof(MeshClip);
}

void mesh_statistics(const float* image, const MeshGeometry& g, void* scratch, float* back,
                     float* sigma, cudaStream_t stream, int row0, int row1) {
  if (row1 < 0) row1 = g.ny;
  const int first = row0 * g.nx, meshes = (row1 - row0) * g.nx;
  if (meshes <= 0) return;
  MeshClip* clip = static_cast<MeshClip*>(scratch);
  mesh_clip_kernel<<<meshes, kClipThreads, 0, stream>>>(image, g, first, clip);
  cuda::cuda_check_launch("mesh_clip_kernel");
  mesh_mode_kernel<<<meshes, kModeThreads, 0, stream>>>(image, g, first, clip, back, sigma);
  cuda::cuda_check_launch("mesh_mode_kernel");
}

void row_nodes(const float* map, const float* d2map, const MeshGeometry& g, float* node,
               float* dnode, float* u, cudaStream_t stream) {
  row_nodes_kernel<<<(g.height + 127) / 128, 128, 0, stream>>>(map, d2map, g, node, dnode, u);
  cuda::cuda_check_launch("row_nodes_kernel");
}

void subtract_background(const float* image, const float* node, const float* dnode,
                         const XWeights& xw, const MeshGeometry& g, bool manual, float manual_value,
                         float* value, cudaStream_t stream) {
  subtract_kernel<<<row_grid(g.width, g.height, 256), 256, 0, stream>>>(
      image, node, dnode, xw, g, manual, manual_value, value);
  cuda::cuda_check_launch("subtract_kernel");
}

void filter(const float* value, const float* kernel, int kw, int kh, int width, int height,
            float* filtered, cudaStream_t stream, bool mark_masked) {
  filter_kernel<<<row_grid(width, height, 256), 256, 0, stream>>>(value, kernel, kw, kh, width,
                                                                  height, filtered, mark_masked);
  cuda::cuda_check_launch("filter_kernel");
}

size_t component_scratch_bytes(int64_t n) {
  const ComponentScratch s = component_scratch(n);
  // selected pixels, their keys, the sorted copies, the count, CUB's temporaries
  return 4 * align256(n * sizeof(int32_t)) + 256 + align256(s.select_bytes) +
         align256(s.sort_bytes);
}

int64_t sorted_components(const int32_t* parent, const int32_t* count, const int32_t* last,
                          int64_t n, int minarea, void* scratch, int32_t* pixels, int32_t* keys,
                          cuda::MappedValues<int64_t>& readback, cudaStream_t stream) {
  const ComponentScratch s = component_scratch(n);
  char* base = static_cast<char*>(scratch);
  auto take = [&](size_t bytes) {
    char* p = base;
    base += align256(bytes);
    return p;
  };
  int32_t* selected = reinterpret_cast<int32_t*>(take(n * sizeof(int32_t)));
  int32_t* selected_keys = reinterpret_cast<int32_t*>(take(n * sizeof(int32_t)));
  int64_t* kept = reinterpret_cast<int64_t*>(take(sizeof(int64_t)));
  void* select_tmp = take(s.select_bytes);
  void* sort_tmp = take(s.sort_bytes);
  size_t bytes = s.select_bytes;
  thrust::counting_iterator<int32_t> it(0);
  CELERIS_CUDA_CHECK(cub::DeviceSelect::If(select_tmp, bytes, it, selected, kept, n,
                                           KeepPixel{parent, count, minarea}, stream));
  const int64_t m = *cuda::read_back(kept, readback, 1, stream);
  if (m == 0) return 0;
  keys_kernel<<<static_cast<unsigned>((m + 255) / 256), 256, 0, stream>>>(selected, m, parent, last,
                                                                          selected_keys);
  cuda::cuda_check_launch("keys_kernel");
  // Radix sort is stable: pixels keep their raster order within a component.
  bytes = s.sort_bytes;
  CELERIS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_tmp, bytes, selected_keys, keys, selected,
                                                     pixels, m, 0, key_bits(n), stream));
  return m;
}

// ---- valid pixels of a device-resident frame --------------------------------------------------

namespace {

__global__ void count_valid_kernel(const float* image, int64_t n, unsigned long long* count) {
  unsigned long long c = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    c += !isnan(image[i]);
  for (int offset = 16; offset > 0; offset >>= 1) c += __shfl_down_sync(0xffffffffu, c, offset);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, c);
}

}  // namespace

void count_valid(const float* image, int64_t n, unsigned long long* counter,
                 unsigned long long* host_count, cudaStream_t stream) {
  CELERIS_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(*counter), stream));
  const int64_t blocks = std::min<int64_t>((n + 255) / 256, 1024);
  if (blocks > 0) {
    count_valid_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(image, n, counter);
    cuda::cuda_check_launch("count_valid_kernel");
  }
  CELERIS_CUDA_CHECK(
      cudaMemcpyAsync(host_count, counter, sizeof(*counter), cudaMemcpyDeviceToHost, stream));
}

}  // namespace celeris::extract::gpu
