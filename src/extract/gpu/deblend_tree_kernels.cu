// The deblending's threshold trees, one block per candidate (deblend_tree_kernels.hpp).
#include <climits>

#include "core/cuda/cuda_check.hpp"
#include "core/cuda/dynamic_shared_limit.hpp"
#include "extract/gpu/deblend_tree_kernels.hpp"
#include "extract/stages/deblend_levels.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr int kMaxThresh = 64;                // DEBLEND_NTHRESH's limit
constexpr uint32_t kTruncatedBit = 1u << 31;  // in a component's pixel count: it has a border pixel
constexpr uint8_t kBorderBit = 0x80;          // in a pixel's level byte: it is on the image border
constexpr uint8_t kLevelBits = 0x7f;          // (DEBLEND_NTHRESH <= 64)
constexpr unsigned kFullWarp = 0xffffffffu;

// A node while the tree grows (shared memory).
struct GrowingNode {
  long long flux;  // in units of 2^ulp_exponent
  int32_t root;    // its component's root (root_claim)
  int32_t up;      // the node of the level below that holds it (index in the block's nodes)
  uint32_t count;  // pixels | kTruncatedBit
  uint32_t last;   // its last pixel's cell (cells are in row-major order: the last row's last)
  int32_t rank;    // its place in its level, in SExtractor's order
  int32_t sons, first_rank;
  int32_t level;
};

struct Shared {
  long long* flux;   // per root pixel: its component's, in units of 2^ulp_exponent
  int32_t* uf;       // per pixel: union-find parent
  uint32_t* count;   // per root pixel: pixels | kTruncatedBit
  uint32_t* last;    // per root pixel: the last cell
  int32_t* node_of;  // per root pixel: its node at the current level, or -1
  int32_t* cell;     // per pixel
  long long* cv;     // per pixel: its value in units of 2^ulp_exponent (0 at level 0)
  GrowingNode* nodes;
  int16_t* grid;   // per cell: the pixel (above the first level) there, or -1
  int16_t* order;  // the pixels by level, the lowest level's first
  uint8_t* level;  // per pixel
};

__host__ __device__ size_t align8(size_t b) {
  return (b + 7) & ~size_t{7};
}

__host__ __device__ size_t carve(int max_pixels, int max_cells, int node_cap, unsigned char* base,
                                 Shared* s) {
  const size_t p = static_cast<size_t>(max_pixels);
  size_t at = 0;
  auto take = [&](size_t bytes) {
    unsigned char* at_ptr = base ? base + at : nullptr;
    at = align8(at + bytes);
    return at_ptr;
  };
  unsigned char* flux = take(p * sizeof(long long));
  unsigned char* uf = take(p * sizeof(int32_t));
  unsigned char* count = take(p * sizeof(uint32_t));
  unsigned char* last = take(p * sizeof(uint32_t));
  unsigned char* node_of = take(p * sizeof(int32_t));
  unsigned char* cell = take(p * sizeof(int32_t));
  unsigned char* cv = take(p * sizeof(long long));
  unsigned char* nodes = take(static_cast<size_t>(node_cap) * sizeof(GrowingNode));
  unsigned char* grid = take(static_cast<size_t>(max_cells) * sizeof(int16_t));
  unsigned char* order = take(p * sizeof(int16_t));
  unsigned char* level = take(p);
  if (s) {
    s->flux = reinterpret_cast<long long*>(flux);
    s->uf = reinterpret_cast<int32_t*>(uf);
    s->count = reinterpret_cast<uint32_t*>(count);
    s->last = reinterpret_cast<uint32_t*>(last);
    s->node_of = reinterpret_cast<int32_t*>(node_of);
    s->cell = reinterpret_cast<int32_t*>(cell);
    s->cv = reinterpret_cast<long long*>(cv);
    s->nodes = reinterpret_cast<GrowingNode*>(nodes);
    s->grid = reinterpret_cast<int16_t*>(grid);
    s->order = reinterpret_cast<int16_t*>(order);
    s->level = level;
  }
  return at;
}

// With path halving: each pixel passed is pointed at its grandparent. Safe beside the joins,
// which change only roots (atomicCAS on a root's own entry), never a pixel that has a parent, and
// a pixel's ancestors stay its ancestors. (It keeps the paths short in principle; on the H200 it
// did not change the kernel's time measurably, stop 33 call 4.)
__device__ int32_t find_root(volatile int32_t* uf, int32_t i) {
  while (true) {
    const int32_t p = uf[i];
    if (p == i) return i;
    const int32_t g = uf[p];
    if (g == p) return p;
    uf[i] = g;
    i = g;
  }
}

// The root of i's component, the path walked without writing: the level's compression below
// points each pixel at its root while other threads walk through it, and a halving write there
// (uf[x] = a grandparent read before x's own thread wrote its root) could leave x pointing at an
// ancestor that is not its root, which the sums after it take for one.
__device__ int32_t root_of(const volatile int32_t* uf, int32_t i) {
  for (int32_t p = uf[i]; p != i; p = uf[i]) i = p;
  return i;
}

// A pixel's claim to be its component's root: its level, then its index. The root of a
// component is its pixel of the highest claim, whatever the order of the joins.
__device__ uint32_t root_claim(const uint8_t* level, int32_t x) {
  return (static_cast<uint32_t>(level[x] & kLevelBits) << 16) | static_cast<uint32_t>(x);
}

// Joins the components of a and b: the root of the lower claim goes under the other, so that a
// level's new pixels hang under the components above, each on its own entry. (With the index
// alone as the claim, new pixels of low index around a large component could each re-root it;
// the change did not alter the kernel's time measurably on the H200, stop 33 call 5.)
__device__ void unite(int32_t* uf, const uint8_t* level, int32_t a, int32_t b) {
  while (true) {
    a = find_root(uf, a);
    b = find_root(uf, b);
    if (a == b) return;
    if (root_claim(level, a) > root_claim(level, b)) {
      const int32_t t = a;
      a = b;
      b = t;
    }
    const int32_t old = atomicCAS(uf + a, a, b);
    if (old == a) return;
    a = old;
  }
}

__global__ void tree_kernel(TreeArgs a) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ float th[kMaxThresh], tmax[kMaxThresh];
  __shared__ int32_t lbeg[kMaxThresh + 1], lend[kMaxThresh + 1], at[kMaxThresh + 1];
  __shared__ int32_t joining[kMaxThresh];  // pixels of each level exactly
  // The pixels by level (a counting sort): level k's are order[level_at[k] .. level_at[k + 1]).
  __shared__ int32_t level_at[kMaxThresh + 1], level_fill[kMaxThresh];
  __shared__ int32_t ncount, status;
  __shared__ long long base;
  Shared s;
  carve(a.max_pixels, a.max_cells, a.node_cap, smem, &s);
  const int32_t j = a.launch[blockIdx.x];
  const TreeCandidate c = a.candidates[j];
  const int n = c.pixels, bw = c.bw, cells = c.bw * c.bh, nthresh = a.nthresh;
  const int tid = threadIdx.x, T = blockDim.x;
  for (int k = tid; k < nthresh; k += T) th[k] = a.thresh[static_cast<int64_t>(j) * nthresh + k];
  for (int q = tid; q < cells; q += T) s.grid[q] = -1;
  for (int k = tid; k < nthresh; k += T) joining[k] = 0, level_fill[k] = 0;
  __syncthreads();
  if (tid == 0) {
    level_ceilings(th, nthresh, tmax);
    ncount = 0;
    status = kTreeBuilt;
  }
  __syncthreads();
  for (int i = tid; i < n; i += T) {
    const int32_t cl = a.cell[c.pixel_begin + i];
    const float v = a.cvalue[c.pixel_begin + i];
    const int lev = count_below(tmax + 1, nthresh - 1, v);
    s.cell[i] = cl;
    // Exact for the pixels above the first level, the only ones summed (OrderFreeSum).
    s.cv[i] = lev > 0 ? __double2ll_rn(scalbn(static_cast<double>(v), -c.ulp_exponent)) : 0;
    const int x = c.x0 - 1 + cl % bw, y = c.y0 - 1 + cl / bw;
    const bool border = x == 0 || y == 0 || x == a.width - 1 || y == a.height - 1;
    s.level[i] = static_cast<uint8_t>(lev | (border ? kBorderBit : 0));
    s.uf[i] = i;
    if (lev > 0) s.grid[cl] = static_cast<int16_t>(i);
    atomicAdd(joining + lev, 1);
  }
  __syncthreads();
  if (tid == 0) {
    level_at[0] = 0;
    for (int k = 0; k < nthresh; ++k) level_at[k + 1] = level_at[k] + joining[k];
  }
  __syncthreads();
  for (int i = tid; i < n; i += T) {
    const int lev = s.level[i] & kLevelBits;
    s.order[level_at[lev] + atomicAdd(level_fill + lev, 1)] = static_cast<int16_t>(i);
  }
  __syncthreads();
  for (int k = nthresh - 1; k > 0; --k) {
    if (joining[k] == 0 && k + 1 < nthresh) {
      // No pixel joins at this level: its components are the level above's, so its nodes are
      // theirs again, each the parent of its copy.
      const int from = lbeg[k + 1], m = lend[k + 1] - lbeg[k + 1], to = ncount;
      if (to + m > a.node_cap) {
        status = kTreeNotBuilt;  // (every thread writes it; all leave here)
        break;
      }
      for (int q = tid; q < m; q += T) {
        GrowingNode g = s.nodes[from + q];
        s.nodes[from + q].up = to + q;
        g.up = 0;
        g.level = k;
        s.nodes[to + q] = g;
      }
      __syncthreads();
      if (tid == 0) {
        lbeg[k] = to;
        lend[k] = ncount = to + m;
      }
      __syncthreads();
      continue;
    }
    // The level's pixels join their neighbours at this level or above, a thread per pixel and
    // direction: a level's joins last one or two unions, not a pixel's eight one after another
    // (the joins and the barrier after them were 62% of the larger class's samples, stop 63).
    // Two pixels of this level join once, from the lower index.
    const int16_t* joiners = s.order + level_at[k];
    for (int t = tid; t < 8 * joining[k]; t += T) {
      const int i = joiners[t >> 3], e = (t & 7) + ((t & 7) >= 4);  // e: 0-8 without the centre
      const int q = s.grid[s.cell[i] + (e / 3 - 1) * bw + (e % 3 - 1)];
      if (q < 0) continue;
      const int lq = s.level[q] & kLevelBits;
      if (lq > k || (lq == k && q > i)) unite(s.uf, s.level, i, q);
    }
    __syncthreads();
    for (int i = tid; i < n; i += T)
      if ((s.level[i] & kLevelBits) >= k) s.uf[i] = root_of(s.uf, i);
    __syncthreads();
    for (int i = tid; i < n; i += T)
      if ((s.level[i] & kLevelBits) >= k && s.uf[i] == i) {
        s.count[i] = 0;
        s.flux[i] = 0;
        s.last[i] = 0;
      }
    if (tid == 0) lbeg[k] = ncount;
    __syncthreads();
    // Each component's pixels, flux, border flag and last pixel, summed over a warp's lanes of
    // the same component first (a shared-memory atomic per lane on one address serialises).
    // Whole warps take part in each round (T is a multiple of 32).
    for (int i0 = 0; i0 < n; i0 += T) {
      const int i = i0 + tid;
      const bool in = i < n && (s.level[i] & kLevelBits) >= k;
      const int r = in ? s.uf[i] : -1;
      const unsigned peers = __match_any_sync(kFullWarp, r);
      if (!in) continue;
      const unsigned long long v = static_cast<unsigned long long>(s.cv[i]);
      // The value's 64 bits in parts of 22, 22 and 20: 32 of each sum within 32 bits, and the
      // parts' sums give the values' sum modulo 2^64 (two's complement: negative values too).
      const unsigned lo = __reduce_add_sync(peers, static_cast<unsigned>(v & 0x3fffffu));
      const unsigned mid = __reduce_add_sync(peers, static_cast<unsigned>((v >> 22) & 0x3fffffu));
      const unsigned hi = __reduce_add_sync(peers, static_cast<unsigned>(v >> 44));
      const unsigned last = __reduce_max_sync(peers, static_cast<unsigned>(s.cell[i]));
      const unsigned border = __reduce_or_sync(peers, s.level[i] & kBorderBit);
      if (static_cast<int>(threadIdx.x % 32) == __ffs(peers) - 1) {
        atomicAdd(s.count + r, static_cast<unsigned>(__popc(peers)));
        if (border) atomicOr(s.count + r, kTruncatedBit);
        atomicAdd(reinterpret_cast<unsigned long long*>(s.flux + r),
                  lo + (static_cast<unsigned long long>(mid) << 22) +
                      (static_cast<unsigned long long>(hi) << 44));
        atomicMax(s.last + r, last);
      }
    }
    __syncthreads();
    // The level's nodes.
    for (int i = tid; i < n; i += T) {
      if ((s.level[i] & kLevelBits) < k || s.uf[i] != i) continue;
      s.node_of[i] = -1;
      const uint32_t cnt = s.count[i];
      if (static_cast<int>(cnt & ~kTruncatedBit) < a.minarea) continue;
      const int slot = atomicAdd(&ncount, 1);
      if (slot >= a.node_cap) {
        status = kTreeNotBuilt;
        continue;
      }
      s.nodes[slot] = {s.flux[i], i, 0, cnt, s.last[i], 0, 0, INT_MAX, k};
      s.node_of[i] = slot;
    }
    __syncthreads();
    if (status != kTreeBuilt) break;
    if (tid == 0) lend[k] = ncount;
    // The nodes of the level above: their parents among this level's.
    if (k + 1 < nthresh)
      for (int q = lbeg[k + 1] + tid; q < lend[k + 1]; q += T)
        s.nodes[q].up = s.node_of[s.uf[s.nodes[q].root]];
    __syncthreads();
  }
  if (status != kTreeBuilt) {
    if (tid == 0) a.results[j] = {kTreeNotBuilt, 0, 0};
    return;
  }
  // No NSONMAX overflow here: a tree that has one within node_cap (<= kTreeNsonmax) nodes is
  // given back to the host by the builder (deblend_trees_gpu.cpp), which finds it.
  // Each level in SExtractor's order: by the parent's rank, then the last pixel (a node's rank
  // is the number of its level's nodes before it; the levels' nodes are few).
  for (int k = 1; k < nthresh; ++k) {
    for (int q = lbeg[k] + tid; q < lend[k]; q += T) {
      const int ru = k > 1 ? s.nodes[s.nodes[q].up].rank : 0;
      const uint32_t lq = s.nodes[q].last;
      int r = 0;
      for (int t = lbeg[k]; t < lend[k]; ++t) {
        const int rt = k > 1 ? s.nodes[s.nodes[t].up].rank : 0;
        r += rt < ru || (rt == ru && s.nodes[t].last < lq);
      }
      s.nodes[q].rank = r;
    }
    __syncthreads();
  }
  // Each node's sons (those of the levels above the first: the first's parent is the root),
  // and where each level starts in the tree: the root, then level 1, 2, ...
  for (int q = tid; q < lbeg[1]; q += T) {
    GrowingNode& up = s.nodes[s.nodes[q].up];
    atomicAdd(&up.sons, 1);
    atomicMin(&up.first_rank, s.nodes[q].rank);
  }
  if (tid == 0) {
    at[0] = 0;
    at[1] = 1;
    for (int k = 1; k < nthresh; ++k) at[k + 1] = at[k] + lend[k] - lbeg[k];
    const long long total = at[nthresh];
    base = static_cast<long long>(atomicAdd(a.used, static_cast<unsigned long long>(total)));
    if (base + total > a.node_space) status = kTreeNotBuilt;
  }
  __syncthreads();
  if (status != kTreeBuilt) {
    if (tid == 0) a.results[j] = {kTreeNotBuilt, 0, 0};
    return;
  }
  TreeNode* out = a.nodes + base;
  for (int k = tid; k <= nthresh; k += T)
    a.levels[static_cast<int64_t>(j) * (nthresh + 1) + k] = at[k];
  if (tid == 0) {
    const int m1 = lend[1] - lbeg[1];
    out[0] = {th[0], 0.0f, n, 0, 0, m1 > 0 ? 1 : 0, m1};
    a.results[j] = {kTreeBuilt, at[nthresh], base};
  }
  for (int q = tid; q < ncount; q += T) {
    const GrowingNode& g = s.nodes[q];
    const int k = g.level;
    out[at[k] + g.rank] = {th[k],
                           static_cast<float>(scalbn(static_cast<double>(g.flux), c.ulp_exponent)),
                           static_cast<int32_t>(g.count & ~kTruncatedBit),
                           static_cast<uint16_t>(g.count & kTruncatedBit ? kTreeTruncatedFlag : 0),
                           g.root,
                           g.sons > 0 ? at[k + 1] + g.first_rank : 0,
                           g.sons};
  }
}

cuda::DynamicSharedLimit& shared_limit() {
  static cuda::DynamicSharedLimit* limit = new cuda::DynamicSharedLimit;
  return *limit;
}

}  // namespace

void build_trees(const TreeArgs& args, int threads, cudaStream_t stream) {
  if (args.launched == 0) return;
  const size_t bytes = carve(args.max_pixels, args.max_cells, args.node_cap, nullptr, nullptr);
  shared_limit().raise(tree_kernel, bytes);
  tree_kernel<<<static_cast<unsigned>(args.launched), threads, bytes, stream>>>(args);
  cuda::cuda_check_launch("tree_kernel");
}

}  // namespace celeris::extract::gpu
