// The deblending's cores on the GPU, one warp per candidate (deblend_core_kernels.hpp).

#include "core/cuda/cuda_check.hpp"
#include "core/cuda/dynamic_shared_limit.hpp"
#include "extract/gpu/deblend_core_chains.hpp"
#include "extract/gpu/deblend_core_kernels.hpp"
#include "extract/gpu/glibc_listed.cuh"
#include "extract/stages/deblend_levels.hpp"
#include "extract/stages/deblend_prune.hpp"
#include "extract/stages/shape_finish.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr int kMaxThresh = 64;  // DEBLEND_NTHRESH's limit
constexpr int kWarp = 32;
constexpr int kChildrenWarps = 4, kChildrenBlock = kChildrenWarps * kWarp;
// A candidate's pixels at most: its cores' pixel indexes are bytes (CoreArgs::pixels;
// deblend_trees_gpu.cpp asserts that its kTreeMaxPixels is no larger).
constexpr int kMaxPixels = 256;

struct Shared {
  int32_t *grid, *mark;  // per cell
  uint8_t* level;        // per pixel
  uint8_t* ok;           // per node
  int32_t *kept_level, *kept_node;
  cores::CoreScratch core;
  int32_t* chain;  // one core's pixels in chain order
};

__host__ __device__ size_t align16(size_t b) {
  return (b + 15) & ~size_t{15};
}

// The shared memory of a launch's limits: its size, and with `base`, the pieces.
__host__ __device__ size_t carve(int max_pixels, int max_cells, int max_nodes, unsigned char* base,
                                 Shared* s) {
  const size_t p = static_cast<size_t>(max_pixels), c = static_cast<size_t>(max_cells),
               nn = static_cast<size_t>(max_nodes);
  size_t at = 0;
  auto take = [&](size_t bytes) {
    unsigned char* here = base ? base + at : nullptr;
    at = align16(at + bytes);
    return here;
  };
  unsigned char* grid = take(c * sizeof(int32_t));
  unsigned char* mark = take(c * sizeof(int32_t));
  unsigned char* level = take(p);
  unsigned char* ok = take(nn);
  unsigned char* kept_level = take(nn * sizeof(int32_t));
  unsigned char* kept_node = take(nn * sizeof(int32_t));
  unsigned char* queue = take(p * sizeof(int32_t));
  unsigned char* raster = take(p * sizeof(int32_t));
  unsigned char* runs = take(p * sizeof(chain::Run));
  unsigned char* mark_start = take(p);
  unsigned char* mark_end = take(p);
  unsigned char* stored = take(p * sizeof(chain::Link));
  unsigned char* piece_end = take(p * sizeof(int32_t));
  unsigned char* piece_next = take(p * sizeof(int32_t));
  unsigned char* open = take(static_cast<size_t>(chain::open_capacity(static_cast<int64_t>(p))) *
                             sizeof(chain::Open));
  unsigned char* above = take(static_cast<size_t>(chain::above_capacity(static_cast<int64_t>(p))));
  unsigned char* out = take(p * sizeof(int32_t));
  if (s) {
    s->grid = reinterpret_cast<int32_t*>(grid);
    s->mark = reinterpret_cast<int32_t*>(mark);
    s->level = level;
    s->ok = ok;
    s->kept_level = reinterpret_cast<int32_t*>(kept_level);
    s->kept_node = reinterpret_cast<int32_t*>(kept_node);
    s->core.queue = reinterpret_cast<int32_t*>(queue);
    s->core.raster = reinterpret_cast<int32_t*>(raster);
    s->core.runs = reinterpret_cast<chain::Run*>(runs);
    s->core.chain = {mark_start,
                     mark_end,
                     reinterpret_cast<chain::Link*>(stored),
                     reinterpret_cast<int32_t*>(piece_end),
                     reinterpret_cast<int32_t*>(piece_next),
                     reinterpret_cast<chain::Open*>(open),
                     above};
    s->core.capacity = max_pixels;
    s->chain = reinterpret_cast<int32_t*>(out);
  }
  return at;
}

// A candidate's pixels as the host's list holds them (without weights: var and dthresh 0), from
// copies in shared memory.
struct CandidatePixels {
  const float *value, *cvalue;
  const int32_t* cell;  // its cell in the candidate's grid
  int32_t bw, x0, y0;
  __device__ int32_t x(int i) const { return cell[i] % bw - 1 + x0; }
  __device__ int32_t y(int i) const { return cell[i] / bw - 1 + y0; }
  __device__ Pixel operator()(int i) const { return {x(i), y(i), value[i], cvalue[i], 0.0f, 0.0f}; }
};

// cores::core_fill by a warp: each round, the lanes take the cells found in the last one, a
// cell each, and claim their unmarked neighbours with an atomic exchange (each cell is queued
// once, as by one thread; only the queue's order differs, which the raster pass does not
// read). `tail`: a shared counter. A core of 256 cells took one lane's fill 150-200 us (stop
// 58: the launch of the up-to-256-pixel class lasted as long as its largest core's).
__device__ cores::CoreFill warp_fill(const cores::CandidateGrid& g, int k, int32_t seed,
                                     int32_t stamp, const cores::CoreScratch& s, int lane,
                                     int* tail) {
  constexpr unsigned kAll = 0xffffffffu;
  const int32_t bw = g.bw;
  const int32_t offs[8] = {-bw - 1, -bw, -bw + 1, -1, 1, bw - 1, bw, bw + 1};
  const int floor = k > 1 ? k : 1;
  cores::CoreFill f;
  if (s.capacity < 1) return f;
  if (lane == 0) {
    const int32_t seed_cell = g.cell[seed];
    s.queue[0] = seed_cell;
    g.mark[seed_cell] = stamp;
    *tail = 1;
  }
  __syncwarp();
  const volatile int* queued = tail;
  int32_t c0 = INT32_MAX, c1 = INT32_MIN, x0 = INT32_MAX, x1 = INT32_MIN;
  bool over = false;
  for (int head = 0;;) {
    const int end = *queued;
    __syncwarp();  // every lane has this round's end before any lane queues past it
    if (head >= end) break;
    for (int h = head + lane; h < end; h += kWarp) {
      const int32_t c = s.queue[h];
      const int32_t x = c % bw;
      c0 = min(c0, c), c1 = max(c1, c), x0 = min(x0, x), x1 = max(x1, x);
      for (int d = 0; d < 8; ++d) {
        const int32_t q = c + offs[d];
        const int32_t p = g.grid[q];
        if (p < 0 || g.level[p] < floor || g.mark[q] == stamp) continue;
        if (atomicExch(&g.mark[q], stamp) == stamp) continue;  // another lane's
        const int at = atomicAdd(tail, 1);
        if (at < s.capacity)
          s.queue[at] = q;
        else
          over = true;
      }
    }
    head = end;
    __syncwarp();  // this round's cells queued before the next round reads them
    // More cells than the scratch holds: the next round would read past the queue.
    if (__any_sync(kAll, over)) return f;
  }
  f.n = *queued;
  f.c0 = __reduce_min_sync(kAll, c0);
  f.c1 = __reduce_max_sync(kAll, c1);
  f.x0 = __reduce_min_sync(kAll, x0);
  f.x1 = __reduce_max_sync(kAll, x1);
  return f;
}

// cores::core_raster by a warp: the box's cells in raster order, 32 at a time, a cell a lane.
// The marked ones take their places by a ballot's prefix count; a run begins at each marked cell
// whose left neighbour is not marked (or lies outside the box) and ends at each whose right one
// is not: the same raster and runs as one thread's. The grid's border of one cell keeps both
// neighbours inside it. Returns the runs' count, -1 as core_raster. One lane's raster pass was
// most of what was left of the cores' launch after warp_fill (stop 58).
__device__ int32_t warp_raster(const cores::CandidateGrid& g, int32_t stamp,
                               const cores::CoreFill& f, const cores::CoreScratch& s, int lane) {
  constexpr unsigned kAll = 0xffffffffu;
  const int32_t bw = g.bw, y0 = f.c0 / bw, width = f.x1 - f.x0 + 1;
  const int32_t cells = (f.c1 / bw - y0 + 1) * width;
  const unsigned before = (1u << lane) - 1, upto = before | (1u << lane);
  int32_t count = 0, nruns = 0;
  for (int32_t t0 = 0; t0 < cells; t0 += kWarp) {
    const int32_t t = t0 + lane;
    bool marked = false, starts = false, ends = false;
    int32_t y = 0, x = 0, c = 0;
    if (t < cells) {
      y = y0 + t / width;
      x = f.x0 + t % width;
      c = y * bw + x;
      marked = g.mark[c] == stamp;
      starts = marked && (x == f.x0 || g.mark[c - 1] != stamp);
      ends = marked && (x == f.x1 || g.mark[c + 1] != stamp);
    }
    const unsigned m = __ballot_sync(kAll, marked), st = __ballot_sync(kAll, starts);
    // A run's cells are consecutive: its index is that of the last start at or before the cell
    // (in an earlier round where none is in this one).
    const int32_t run = nruns + __popc(st & upto) - 1;
    if (marked) s.raster[count + __popc(m & before)] = g.grid[c];
    if (starts) {
      s.runs[run].y = y;
      s.runs[run].x0 = x;
      s.runs[run].first = count + __popc(m & before);
    }
    if (ends) s.runs[run].x1 = x + 1;
    count += __popc(m);
    nruns += __popc(st);
  }
  return count == f.n ? nruns : -1;
}

__global__ void core_kernel(CoreArgs a) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ float th[kMaxThresh], tmax[kMaxThresh];
  __shared__ int kept;
  Shared s;
  carve(a.max_pixels, a.max_cells, a.max_nodes, smem, &s);
  const int32_t j = a.launch[blockIdx.x];
  const TreeCandidate c = a.candidates[j];
  const TreeResult tree = a.trees[j];
  const int lane = threadIdx.x, nthresh = a.nthresh;
  CoreResult& result = a.results[j];
  if (tree.status != kTreeBuilt || c.pixels > a.max_pixels || c.bw * c.bh > a.max_cells ||
      tree.nodes > a.max_nodes) {
    if (lane == 0) result = {-1, 0, 0};
    return;
  }
  const TreeNode* nodes = a.nodes + tree.first;
  const int32_t* level = a.levels + static_cast<int64_t>(j) * (nthresh + 1);
  if (lane == 0)
    kept = prune_deblend_tree(nodes, level, nthresh, a.value0[j], s.ok, s.kept_level, s.kept_node);
  __syncwarp();
  if (kept == 0) {
    if (lane == 0) result = {0, 0, 0};
    return;
  }
  // The grid and the pixels' levels, as the tree kernel takes them.
  const int n = c.pixels, cells = c.bw * c.bh;
  for (int k = lane; k < nthresh; k += kWarp)
    th[k] = a.thresh[static_cast<int64_t>(j) * nthresh + k];
  for (int q = lane; q < cells; q += kWarp) s.grid[q] = -1, s.mark[q] = 0;
  __syncwarp();
  if (lane == 0) level_ceilings(th, nthresh, tmax);
  __syncwarp();
  for (int i = lane; i < n; i += kWarp) {
    const int32_t cl = a.cell[c.pixel_begin + i];
    const int lev = count_below(tmax + 1, nthresh - 1, a.cvalue[c.pixel_begin + i]);
    s.level[i] = static_cast<uint8_t>(lev);
    if (lev > 0) s.grid[cl] = i;
  }
  __syncwarp();
  // The cores' places in the compact arrays: their pixels are their nodes'.
  __shared__ long long first_entry, first_pixel;
  __shared__ int failed, length, tail;
  if (lane == 0) {
    int64_t total = 0;
    for (int q = 0; q < kept; ++q) total += nodes[s.kept_node[q]].npix;
    first_entry = static_cast<long long>(atomicAdd(a.used, static_cast<unsigned long long>(kept)));
    first_pixel =
        static_cast<long long>(atomicAdd(a.used + 1, static_cast<unsigned long long>(total)));
    failed = first_entry + kept > a.entry_space || first_pixel + total > a.pixel_space;
    if (failed) result = {-1, 0, 0};
  }
  __syncwarp();
  if (failed) return;
  const cores::CandidateGrid g{s.grid, s.level, a.cell + c.pixel_begin, s.mark, c.bw};
  int64_t at = first_pixel;
  for (int q = 0; q < kept; ++q) {
    const TreeNode& node = nodes[s.kept_node[q]];
    const cores::CoreFill fill =
        warp_fill(g, s.kept_level[q], node.seed, q + 1, s.core, lane, &tail);
    const int32_t nruns = fill.n < 0 ? -1 : warp_raster(g, q + 1, fill, s.core, lane);
    __syncwarp();  // the raster and the runs written before lane 0 chains them
    if (lane == 0) {
      length = cores::core_chain_of_runs(fill.n, nruns, s.core, s.chain);
      failed = length != node.npix;  // (a broken invariant: the host plans this candidate)
      if (failed)
        result = {-1, 0, 0};
      else
        a.entries[first_entry + q] = {s.kept_node[q], length, static_cast<int16_t>(s.kept_level[q]),
                                      node.flags};
    }
    __syncwarp();
    if (failed) return;
    for (int32_t k = lane; k < length; k += kWarp)
      a.pixels[at + k] = static_cast<uint8_t>(s.chain[k]);
    at += length;
    __syncwarp();  // the chain's scratch is the next core's
  }
  if (lane == 0) result = {kept, static_cast<int32_t>(first_entry), first_pixel};
}

// The children of a split candidate's cores (a core per lane: its shape from its chain, as
// add_core's compute_shape, then core_child) and its draws (a pixel per lane outside the cores:
// count_deblend_draws' pixel_takes_draw); a warp per candidate of the launch, after core_kernel.
// A kernel of its own: inside core_kernel, whose blocks are one warp each and hold the chains'
// scratch, the children's registers and latency slowed the chains (stop 45, H200).
__global__ void __launch_bounds__(kChildrenBlock) children_kernel(CoreArgs a) {
  __shared__ float value_of[kChildrenWarps][kMaxPixels], cvalue_of[kChildrenWarps][kMaxPixels];
  __shared__ int32_t cell_of[kChildrenWarps][kMaxPixels];
  __shared__ uint8_t in_core_of[kChildrenWarps][kMaxPixels];
  const int w = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  const int64_t t = int64_t(blockIdx.x) * kChildrenWarps + w;
  if (t >= a.launched) return;
  const int32_t j = a.launch[t];
  CoreResult& result = a.results[j];
  const int kept = result.cores;
  const TreeCandidate c = a.candidates[j];
  if (kept <= 0 || c.pixels > kMaxPixels) return;
  const float* th = a.thresh + static_cast<int64_t>(j) * a.nthresh;
  // The candidate's pixels (the sums below read them in chain order, one dependent load after
  // another) and their marks.
  float* value = value_of[w];
  float* cvalue = cvalue_of[w];
  int32_t* cell = cell_of[w];
  uint8_t* in_core = in_core_of[w];
  for (int i = lane; i < c.pixels; i += kWarp) {
    value[i] = a.value[c.pixel_begin + i];
    cvalue[i] = a.cvalue[c.pixel_begin + i];
    cell[i] = a.cell[c.pixel_begin + i];
    in_core[i] = 0;
  }
  __syncwarp();
  const CandidatePixels pixel{value, cvalue, cell, c.bw, c.x0, c.y0};
  const CoreEntry* entries = a.entries + result.first_entry;
  DeblendChild* children = a.children + result.first_entry;
  const uint8_t* pixels = a.pixels + result.first_pixel;
  bool outside = false;
  const ListedExpf expf{&a.lists, &outside};
  int64_t total = 0;
  for (int q = 0; q < kept; ++q) {
    const CoreEntry e = entries[q];
    if (q % kWarp == lane) {
      const uint8_t* chain = pixels + total;
      const auto px = [&](int64_t k) { return pixel(chain[k]); };
      const float thresh = th[e.level];
      const ShapeSums sums = shape_sums(px, e.length, thresh, NoShift{});
      const Shape shape = finish_shape_with(sums, e.length, false, 0.0, 0.0, thresh, a.weighted,
                                            ThetaLater{}, ListedLogRatio{&a.lists, a.log_cap});
      children[q] = core_child(shape, th[0], expf);
    }
    total += e.length;
  }
  for (int64_t k = lane; k < total; k += kWarp) in_core[pixels[k]] = 1;
  __syncwarp();
  const bool shortcut = draws_shortcut(children, kept);
  unsigned draws = 0;
  for (int i = lane; i < c.pixels; i += kWarp)
    if (!in_core[i])
      draws += pixel_takes_draw(children, kept, pixel.x(i), pixel.y(i), shortcut, expf);
  draws = __reduce_add_sync(0xffffffffu, draws);
  if (__any_sync(0xffffffffu, outside)) return;  // result.draws stays -1
  if (lane == 0) result.draws = draws;
}

cuda::DynamicSharedLimit& shared_limit() {
  static cuda::DynamicSharedLimit* limit = new cuda::DynamicSharedLimit;
  return *limit;
}

}  // namespace

void build_cores(const CoreArgs& args, cudaStream_t stream) {
  if (args.launched == 0) return;
  const size_t bytes = carve(args.max_pixels, args.max_cells, args.max_nodes, nullptr, nullptr);
  shared_limit().raise(core_kernel, bytes);
  core_kernel<<<static_cast<unsigned>(args.launched), kWarp, bytes, stream>>>(args);
  cuda::cuda_check_launch("core_kernel");
  if (!args.children) return;
  const auto blocks = static_cast<unsigned>((args.launched + kChildrenWarps - 1) / kChildrenWarps);
  children_kernel<<<blocks, kChildrenBlock, 0, stream>>>(args);
  cuda::cuda_check_launch("children_kernel");
}

}  // namespace celeris::extract::gpu
