// 8-connected labelling of the detection mask (kernels.hpp label()): block-based union-find in
// the manner of Allegretti, Bolelli & Grana (IEEE TPDS 2020) and Playne & Hawick (2018). One
// pixel-at-a-time union-find over global memory with an atomic per pixel to its root made three
// slow full-image passes (0.52 ms on the crowded simulated 4096 x 4096 frame on an H100; 0.23
// ms this way, bench_extract_stages "gpu label"); here
//   1. each kTileW x kTileH tile labels itself in shared memory (rows' runs by warp ballot,
//      links between rows by union-find), writes parent = its local root, count = 0, last = -1;
//   2. the links that cross tile borders join the tiles' trees in global memory (CAS loops);
//   3. every pixel takes its root; each tile sums count and last per tree in shared memory and
//      adds them to the root with one atomic per (tile, tree), not one per pixel.
// Every link puts the larger root under the smaller, so parent[x] <= x throughout and a tree's
// root is its smallest pixel: the component's first in raster order, as the contract asks.
#include <cstdint>

#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/kernels.hpp"
#include "extract/sextractor/detected_pixel.hpp"

namespace celeris::extract::gpu {

namespace {

// A tile's row is one warp, so that a row's runs come from one ballot.
constexpr int kTileW = 32;
constexpr int kTileH = 16;
constexpr int kTilePixels = kTileW * kTileH;
constexpr unsigned kFullWarp = 0xffffffffu;

// ---- Union-find, the larger root under the smaller --------------------------------------------
//
// One code for both memories: `load` reads a node's parent afresh (volatile in shared memory,
// from L2 in global memory: another SM's link must be seen, not a stale L1 line). A stale read
// would be harmless anyway: a node that was not a root never becomes one, and a failed CAS
// returns the current parent, so each retry starts from a strictly smaller node.

struct SharedNodes {
  int* lab;
  __device__ int load(int a) const { return *static_cast<volatile int*>(lab + a); }
  __device__ int cas(int a, int expected, int desired) const {
    return atomicCAS(lab + a, expected, desired);
  }
  __device__ void halve(int a, int grandparent) const {
    *static_cast<volatile int*>(lab + a) = grandparent;
  }
};

struct GlobalNodes {
  int32_t* parent;
  __device__ int load(int a) const { return __ldcg(parent + a); }
  __device__ int cas(int a, int expected, int desired) const {
    return atomicCAS(parent + a, expected, desired);
  }
  __device__ void halve(int a, int grandparent) const { __stcg(parent + a, grandparent); }
};

// The root of a's tree, halving the path on the way: the store goes to a node that is no root
// (no CAS can target it) and only replaces one of its ancestors by another, so racing stores
// leave a valid forest (but see FrozenNodes).
template <class Nodes>
__device__ int find_root(const Nodes& nodes, int a) {
  for (;;) {
    const int p = nodes.load(a);
    if (p == a) return a;
    const int gp = nodes.load(p);
    if (gp == p) return p;
    nodes.halve(a, gp);
    a = gp;
  }
}

template <class Nodes>
__device__ void unite(const Nodes& nodes, int a, int b) {
  a = find_root(nodes, a);
  b = find_root(nodes, b);
  while (a != b) {
    if (a < b) {
      const int t = a;
      a = b;
      b = t;
    }
    const int old = nodes.cas(a, a, b);
    if (old == a) return;
    a = find_root(nodes, old);  // a was linked meanwhile: go on from its new root
    b = find_root(nodes, b);
  }
}

// The links from a pixel to its upper neighbours, given which of them are lit (`left`/`right`:
// the pixel's own row). A link implied by others is skipped: with `up` lit, up-left and up-right
// are up's row neighbours; with `left` lit, left's link to up-left (its own `up`) is made, and
// likewise right's to up-right. Each skip leans on a link made further left or on a row link,
// never back on itself, so the components come out whole.
struct UpLinks {
  bool up, upleft, upright;
};

__device__ UpLinks up_links(bool upleft, bool up, bool upright, bool left, bool right) {
  if (up) return {!(left && upleft), false, false};
  return {false, upleft && !left, upright && !right};
}

// `thresh`: each pixel's own threshold (weight maps), else null and `threshold` for all.
__device__ bool lit(const float* value, const float* cvalue, float threshold, const float* thresh,
                    int p) {
  return detected_pixel(value[p], cvalue[p], thresh ? thresh[p] : threshold);
}

// ---- 1. Tiles in shared memory ---------------------------------------------------------------

// One block of kTileW x kStrideH threads per tile, kTileH / kStrideH rows a thread: all their
// loads are issued before the first ballot, enough bytes in flight to keep the memory busy.
constexpr int kStrideH = 4;
constexpr int kRows = kTileH / kStrideH;  // per thread

// Reads value and cvalue once, writes parent, count and last once (count and last for the
// whole image: the roots get theirs in label_finish_kernel). Leaves parent[p] = the smallest
// pixel of p's component within the tile, -1 off the mask.
__global__ void __launch_bounds__(kTileW* kStrideH)
    label_tile_kernel(const float* value, const float* cvalue, float threshold, const float* thresh,
                      int width, int height, int32_t* parent, int32_t* count, int32_t* last) {
  __shared__ int lab[kTilePixels];
  __shared__ unsigned row_bits[kTileH];
  const int lx = threadIdx.x;
  const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH, x = x0 + lx;
  bool on[kRows];
  unsigned bits[kRows];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int ly = threadIdx.y + i * kStrideH, y = y0 + ly, p = y * width + x;
    const bool inside = x < width && y < height;
    on[i] = inside && lit(value, cvalue, threshold, thresh, p);
    if (inside) {
      count[p] = 0;
      last[p] = -1;
    }
  }
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int ly = threadIdx.y + i * kStrideH;
    // A run of lit pixels in the row starts after the last dark one left of lx.
    bits[i] = __ballot_sync(kFullWarp, on[i]);
    const unsigned dark_left = ~bits[i] & ((1u << lx) - 1u);
    lab[ly * kTileW + lx] = ly * kTileW + (dark_left ? 32 - __clz(dark_left) : 0);
    if (lx == 0) row_bits[ly] = bits[i];
  }
  __syncthreads();

  const SharedNodes nodes{lab};
  const auto bit = [](unsigned b, int i) { return i >= 0 && i < kTileW && (b >> i & 1u); };
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int ly = threadIdx.y + i * kStrideH, l = ly * kTileW + lx;
    if (!on[i] || ly == 0) continue;
    const unsigned above = row_bits[ly - 1];
    const UpLinks u = up_links(bit(above, lx - 1), bit(above, lx), bit(above, lx + 1),
                               bit(bits[i], lx - 1), bit(bits[i], lx + 1));
    const int up = l - kTileW;
    if (u.up) unite(nodes, l, up);
    if (u.upleft) unite(nodes, l, up - 1);
    if (u.upright) unite(nodes, l, up + 1);
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int ly = threadIdx.y + i * kStrideH, y = y0 + ly, p = y * width + x;
    if (x >= width || y >= height) continue;
    // Local index order is raster order within the tile: the local root is the smallest pixel.
    const int r = on[i] ? find_root(nodes, ly * kTileW + lx) : -1;
    parent[p] = on[i] ? (y0 + r / kTileW) * width + x0 + r % kTileW : -1;
  }
}

// ---- 2. Links across tile borders ------------------------------------------------------------

// kTileW + kTileH threads per tile: the first kTileW take the tile's top row (its links to the
// row above, which lies in the tiles above), the others its left column (links to the column on
// the left, the corners above and below that the top rows do not take). Each crossing link of the
// image is one of these, or implied by them and the tiles' own (the same skips as up_links).
constexpr int kBorder = kTileW + kTileH;

__global__ void label_border_kernel(int width, int height, int tiles_x, int64_t threads,
                                    int32_t* parent) {
  const int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (t >= threads) return;
  const int tile = static_cast<int>(t / kBorder), k = static_cast<int>(t % kBorder);
  const int x0 = tile % tiles_x * kTileW, y0 = tile / tiles_x * kTileH;
  const GlobalNodes nodes{parent};
  const auto on = [&](int x, int y) {
    return x >= 0 && x < width && y >= 0 && y < height && parent[y * width + x] >= 0;
  };
  if (k < kTileW) {
    const int x = x0 + k, y = y0;
    if (y == 0 || !on(x, y)) return;
    const int p = y * width + x, up = p - width;
    const UpLinks u =
        up_links(on(x - 1, y - 1), on(x, y - 1), on(x + 1, y - 1), on(x - 1, y), on(x + 1, y));
    if (u.up) unite(nodes, p, up);
    if (u.upleft) unite(nodes, p, up - 1);
    if (u.upright) unite(nodes, p, up + 1);
    return;
  }
  const int j = k - kTileW, x = x0, y = y0 + j;
  if (x == 0 || !on(x, y)) return;
  const int p = y * width + x;
  const bool left = on(x - 1, y);
  if (left) unite(nodes, p, p - 1);
  // Up-left of the top row is the top row's; down-left of the bottom row is the next tile's top
  // row's up-right. Otherwise implied by left's column (within one tile) or by up's or down's
  // own link to the left.
  if (j > 0 && !left && !on(x, y - 1) && on(x - 1, y - 1)) unite(nodes, p, p - width - 1);
  if (j + 1 < kTileH && !left && !on(x, y + 1) && on(x - 1, y + 1)) unite(nodes, p, p + width - 1);
}

// ---- 3. Roots, counts and last pixels -------------------------------------------------------

// The forest as the links left it, read only: a path-halving store here could land after a
// pixel's own store of its root and leave it pointing at a mere ancestor. A load served from a
// stale L1 line gives an older ancestor, which still leads to the root.
struct FrozenNodes {
  const int32_t* parent;
  __device__ int load(int a) const { return parent[a]; }
  __device__ void halve(int, int) const {}
};

// One block per tile, as label_tile_kernel. Each pixel's tree is keyed by a pixel of this tile
// on its path to the root: its parent where that lies in the tile (the local root), else itself.
// The tile's pixels of one key share one root, so count and last are summed per key in shared
// memory (one atomic per warp and key) and reach the root with one atomic per tile and key.
__global__ void __launch_bounds__(kTileW* kStrideH)
    label_finish_kernel(int width, int height, int32_t* parent, int32_t* count, int32_t* last) {
  __shared__ int key_count[kTilePixels];
  __shared__ int key_last[kTilePixels];
  __shared__ int key_root[kTilePixels];
  const int lx = threadIdx.x;
  const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH, x = x0 + lx;
  int a[kRows];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int ly = threadIdx.y + i * kStrideH, y = y0 + ly;
    key_count[ly * kTileW + lx] = 0;
    key_last[ly * kTileW + lx] = -1;
    a[i] = x < width && y < height ? parent[y * width + x] : -1;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int ly = threadIdx.y + i * kStrideH, l = ly * kTileW + lx, p = (y0 + ly) * width + x;
    int key = -1, root = -1;
    if (a[i] >= 0) {
      const int ax = a[i] % width - x0, ay = a[i] / width - y0;
      key = ax >= 0 && ax < kTileW && ay >= 0 && ay < kTileH ? ay * kTileW + ax : l;
      root = find_root(FrozenNodes{parent}, a[i]);
      if (root != a[i]) parent[p] = root;
    }
    // Lanes of one key: the highest holds the key's largest pixel (a row, left to right).
    const unsigned same = __match_any_sync(kFullWarp, key);
    if (key >= 0 && 31 - __clz(same) == lx) {
      atomicAdd(&key_count[key], __popc(same));
      atomicMax(&key_last[key], p);
      key_root[key] = root;  // every writer writes the same root
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int l = (threadIdx.y + i * kStrideH) * kTileW + lx;
    const int n = key_count[l];
    if (n == 0) continue;
    atomicAdd(&count[key_root[l]], n);
    atomicMax(&last[key_root[l]], key_last[l]);
  }
}

dim3 tile_grid(int width, int height) {
  return dim3(static_cast<unsigned>((width + kTileW - 1) / kTileW),
              static_cast<unsigned>((height + kTileH - 1) / kTileH));
}

}  // namespace

// Three launches; memory traffic about 2 reads (value, cvalue) and 3 writes (parent, count,
// last) of 4 bytes per pixel, then one read of parent and writes of the pixels not yet pointing
// at their root. Deterministic: the result is the contract's, whatever order the links ran in.
void label(const float* value, const float* cvalue, float threshold, int width, int height,
           int32_t* parent, int32_t* count, int32_t* last, cudaStream_t stream,
           const float* thresh) {
  if (width <= 0 || height <= 0) return;
  const dim3 grid = tile_grid(width, height), block(kTileW, kStrideH);
  label_tile_kernel<<<grid, block, 0, stream>>>(value, cvalue, threshold, thresh, width, height,
                                                parent, count, last);
  cuda::cuda_check_launch("label_tile_kernel");
  const int64_t threads = int64_t{grid.x} * grid.y * kBorder;
  constexpr int kBorderBlock = 256;
  label_border_kernel<<<static_cast<unsigned>((threads + kBorderBlock - 1) / kBorderBlock),
                        kBorderBlock, 0, stream>>>(width, height, static_cast<int>(grid.x), threads,
                                                   parent);
  cuda::cuda_check_launch("label_border_kernel");
  label_finish_kernel<<<grid, block, 0, stream>>>(width, height, parent, count, last);
  cuda::cuda_check_launch("label_finish_kernel");
}

}  // namespace celeris::extract::gpu
