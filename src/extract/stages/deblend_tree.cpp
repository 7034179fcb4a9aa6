#include "extract/stages/deblend_tree.hpp"
#include "extract/stages/deblend_prune.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "celeris/extract.hpp"

namespace celeris::extract {

namespace {

constexpr int kMaxSons = 1024;  // SExtractor's NSONMAX: more nodes on a level = overflow

int32_t find_root(std::vector<int32_t>& uf, int32_t i) {
  while (uf[i] != i) {
    uf[i] = uf[uf[i]];  // path halving
    i = uf[i];
  }
  return i;
}

// Joins the components of roots a and b (a != b), the larger one's root staying; returns it.
int32_t join_roots(DeblendTreeScratch& s, int32_t a, int32_t b) {
  if (s.npix[a] < s.npix[b]) std::swap(a, b);
  s.uf[b] = a;
  s.npix[a] += s.npix[b];
  s.flux[a] += s.flux[b];
  s.flags[a] |= s.flags[b];
  s.last[a] = std::max(s.last[a], s.last[b]);
  return a;
}

}  // namespace

int count_peaks(const ObjectView& parent, int stop, DeblendTreeScratch& s) {
  const size_t n = parent.size();
  int x0 = std::numeric_limits<int>::max(), y0 = x0, x1 = std::numeric_limits<int>::min(), y1 = x1;
  for (size_t i = 0; i < n; ++i) {
    x0 = std::min(x0, parent.x[i]);
    x1 = std::max(x1, parent.x[i]);
    y0 = std::min(y0, parent.y[i]);
    y1 = std::max(y1, parent.y[i]);
  }
  // The box with a border of one, so that neighbours need no bounds checks.
  const int64_t bw = int64_t{x1} - x0 + 3, bh = int64_t{y1} - y0 + 3;
  // The filtered values on the box, -inf where the detection has no pixel (never higher), so
  // that the neighbour test needs no branch: with a branch on "is there a pixel", the many
  // border pixels of small detections made it mispredict.
  s.peak_grid.assign(static_cast<size_t>(bw * bh), -std::numeric_limits<float>::infinity());
  auto cell = [&](size_t i) { return (parent.y[i] - y0 + 1) * bw + (parent.x[i] - x0 + 1); };
  for (size_t i = 0; i < n; ++i) s.peak_grid[cell(i)] = parent.cvalue[i];
  const int64_t offs[8] = {-bw - 1, -bw, -bw + 1, -1, 1, bw - 1, bw, bw + 1};
  const float* g = s.peak_grid.data();
  int peaks = 0;
  for (size_t i = 0; i < n && peaks < stop; ++i) {
    const float c = parent.cvalue[i];
    const float* at = g + cell(i);
    bool higher = false;
    for (int64_t d : offs) higher |= at[d] > c;  // false for NaN on either side
    peaks += !higher;
  }
  return peaks;
}

namespace {

// Each pixel's level (scratch.level), how many pixels each level has (scratch.count), and the
// detection's box with a border of one and its grid (scratch.grid, box_x0, box_y0, box_w): -1
// where there is no pixel or one of level 0; for a pixel above the first level its own index
// (`own_index`) or -2 (build_deblend_tree's "not added yet").
void levels_and_grid(const ObjectView& parent, const std::vector<float>& thresh,
                     DeblendTreeScratch& s, bool own_index) {
  const int nthresh = static_cast<int>(thresh.size());
  const size_t n = parent.size();
  // A pixel's level: the highest k it is above. Level k's set is taken inside level k - 1's
  // nodes, so it is the set above the highest threshold so far.
  std::vector<float>& tmax = s.tmax;
  tmax.assign(nthresh, 0.0f);
  level_ceilings(thresh.data(), nthresh, tmax.data());
  int x0 = std::numeric_limits<int>::max(), y0 = x0, x1 = std::numeric_limits<int>::min(), y1 = x1;
  s.level.resize(n);
  std::vector<int32_t>& count = s.count;
  count.assign(nthresh + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    x0 = std::min(x0, parent.x[i]);
    x1 = std::max(x1, parent.x[i]);
    y0 = std::min(y0, parent.y[i]);
    y1 = std::max(y1, parent.y[i]);
    const float c = parent.cvalue[i];
    const int lev = count_below(tmax.data() + 1, nthresh - 1, c);
    s.level[i] = static_cast<uint8_t>(lev);
    ++count[lev];
  }
  // The box with a border of one, so that neighbours need no bounds checks.
  const int64_t bw = x1 - x0 + 3, bh = y1 - y0 + 3;
  s.grid.assign(static_cast<size_t>(bw * bh), -1);
  s.cell_level.assign(static_cast<size_t>(bw * bh), 0);
  s.box_x0 = x0 - 1;
  s.box_y0 = y0 - 1;
  s.box_w = bw;
  // For the union-find, a pixel above the first level is -2 until it is added, then its index
  // (which a finished tree's grid holds): whether a neighbour is in is read from the grid alone.
  for (size_t i = 0; i < n; ++i) {
    const int64_t c = (parent.y[i] - y0 + 1) * bw + (parent.x[i] - x0 + 1);
    s.grid[c] = s.level[i] > 0 ? (own_index ? static_cast<int32_t>(i) : -2) : -1;
    s.cell_level[c] = s.level[i];
  }
}

}  // namespace

void prepare_node_chains(const ObjectView& parent, const std::vector<float>& thresh,
                         DeblendTreeScratch& s) {
  levels_and_grid(parent, thresh, s, true);
  s.mark.assign(s.grid.size(), 0);
  s.stamp = 0;
}

void build_deblend_tree(const ObjectView& parent, const std::vector<float>& thresh, int minarea,
                        int img_w, int img_h, DeblendTreeScratch& s, DeblendTree& tree) {
  const int nthresh = static_cast<int>(thresh.size());
  const size_t n = parent.size();
  tree.overflow = false;
  tree.level.assign(1, 0);
  tree.nodes.clear();
  levels_and_grid(parent, thresh, s, false);
  const std::vector<int32_t>& count = s.count;
  const int64_t bw = s.box_w, gx0 = s.box_x0, gy0 = s.box_y0;
  auto cell = [&](int x, int y) { return (y - gy0) * bw + (x - gx0); };

  // Pixels grouped by level, highest first.
  std::vector<int32_t>& start = s.start;
  start.assign(nthresh + 1, 0);
  for (int k = nthresh - 1; k > 0; --k) start[k - 1] = start[k] + count[k];  // level k at start[k]
  std::vector<int32_t>& fill = s.fill;
  fill = start;
  s.order.resize(n - count[0]);
  for (size_t i = 0; i < n; ++i)
    if (s.level[i] > 0) s.order[fill[s.level[i]]++] = static_cast<int32_t>(i);

  s.uf.assign(n, -1);  // -1: not added yet
  s.npix.resize(n);
  s.flux.resize(n);
  s.flags.resize(n);
  s.last.resize(n);
  s.node_of_root.resize(n);
  s.mark.assign(s.grid.size(), 0);
  s.stamp = 0;
  s.roots.clear();
  if (s.raw.size() < static_cast<size_t>(nthresh)) s.raw.resize(nthresh);
  for (int k = 0; k < nthresh; ++k) s.raw[k].clear();
  s.raw[0].push_back({-1, -1, static_cast<int32_t>(n), 0.0, 0, 0});
  const int64_t offs[8] = {-bw - 1, -bw, -bw + 1, -1, 1, bw - 1, bw, bw + 1};
  for (int k = nthresh - 1; k > 0; --k) {
    for (int32_t o = start[k]; o < start[k] + count[k]; ++o) {
      const int32_t i = s.order[o];
      const int x = parent.x[i], y = parent.y[i];
      s.uf[i] = i;
      s.npix[i] = 1;
      s.flux[i] = parent.cvalue[i];
      s.flags[i] = (x == 0 || y == 0 || x == img_w - 1 || y == img_h - 1) ? kFlagTruncated : 0;
      s.last[i] = static_cast<int64_t>(y) << 32 | static_cast<uint32_t>(x);
      s.roots.push_back(i);
      const int64_t c = cell(x, y);
      s.grid[c] = i;
      // The new pixel's root is held across its neighbours (most of them already share it).
      int32_t root = i;
      for (int64_t d : offs) {
        const int32_t q = s.grid[c + d];
        if (q < 0) continue;
        const int32_t r = find_root(s.uf, q);
        if (r != root) root = join_roots(s, root, r);
      }
    }
    // The components alive now are level k's nodes (those with minarea pixels).
    s.roots.erase(
        std::remove_if(s.roots.begin(), s.roots.end(), [&](int32_t r) { return s.uf[r] != r; }),
        s.roots.end());
    for (int32_t r : s.roots) {
      s.node_of_root[r] = -1;
      if (s.npix[r] < minarea) continue;
      s.node_of_root[r] = static_cast<int32_t>(s.raw[k].size());
      s.raw[k].push_back({r, 0, s.npix[r], s.flux[r], s.flags[r], s.last[r]});
    }
    if (k + 1 < nthresh)
      for (auto& son : s.raw[k + 1]) son.up = s.node_of_root[find_root(s.uf, son.root)];
  }
  // (level 1's nodes are sons of the detection itself: up = 0, as initialised.)

  // NSONMAX, as SExtractor meets it: building level k, a level k - 1 of kMaxSons nodes or more,
  // or a level k growing past kMaxSons.
  for (int k = 0; k < nthresh; ++k) {
    const size_t m = s.raw[k].size();
    if ((k < nthresh - 1 && m >= static_cast<size_t>(kMaxSons)) ||
        (k > 0 && m > static_cast<size_t>(kMaxSons))) {
      tree.overflow = true;
      return;
    }
  }

  // Each level in SExtractor's order: the sons of each node of the level above in turn, each
  // node's sons in the order its scan completes them (last row, then last column on that row).
  OrderFreeSum check;
  for (size_t i = 0; i < n; ++i)
    if (s.level[i] > 0) check.add(parent.cvalue[i]);
  const bool exact = !s.chain_sums && check.exact();
  tree.nodes.push_back({thresh[0], 0.0f, static_cast<int32_t>(n), parent.flags, 0, 0, 0});
  tree.level.push_back(1);
  s.rank.assign(1, 0);
  for (int k = 1; k < nthresh; ++k) {
    auto& raw = s.raw[k];
    s.sorted.resize(raw.size());
    for (size_t j = 0; j < raw.size(); ++j) s.sorted[j] = static_cast<int32_t>(j);
    if (raw.size() > 1)
      std::sort(s.sorted.begin(), s.sorted.end(), [&](int32_t a, int32_t b) {
        const int32_t ra = s.rank[raw[a].up], rb = s.rank[raw[b].up];
        return ra != rb ? ra < rb : raw[a].last < raw[b].last;
      });
    const int32_t base = tree.level[k];
    const int32_t above = tree.level[k - 1];
    std::vector<int32_t>& next_rank = s.next_rank;
    next_rank.resize(raw.size());
    for (size_t j = 0; j < s.sorted.size(); ++j) {
      const auto& r = raw[s.sorted[j]];
      next_rank[s.sorted[j]] = static_cast<int32_t>(j);
      DeblendNode& up = tree.nodes[above + s.rank[r.up]];
      if (up.sons == 0) up.first_son = base + static_cast<int32_t>(j);
      ++up.sons;
      tree.nodes.push_back({thresh[k], static_cast<float>(r.flux), r.npix, r.flags, r.root, 0, 0});
    }
    tree.level.push_back(static_cast<int32_t>(tree.nodes.size()));
    s.rank.swap(next_rank);
  }
  if (exact) return;
  std::vector<int32_t> chain;
  for (int k = 1; k < nthresh; ++k)
    for (int j = tree.level[k]; j < tree.level[k + 1]; ++j)
      tree.nodes[j].fdflux = static_cast<float>(deblend_node_chain(parent, tree, k, j, s, chain));
}

double deblend_node_chain(const ObjectView& parent, const DeblendTree& tree, int k, int node,
                          DeblendTreeScratch& s, std::vector<int32_t>& chain) {
  // The node's pixels: those of level k or above connected to its seed (flood fill). The fill
  // walks the grid's cells, reading each neighbour's level and mark beside it in the grid
  // (not through the pixel's index: one dependent load less per neighbour).
  const int64_t bw = s.box_w, x0 = s.box_x0, y0 = s.box_y0;
  const int32_t stamp = ++s.stamp;  // marks need no clearing between fills
  const int32_t offs[8] = {static_cast<int32_t>(-bw - 1),
                           static_cast<int32_t>(-bw),
                           static_cast<int32_t>(-bw + 1),
                           -1,
                           1,
                           static_cast<int32_t>(bw - 1),
                           static_cast<int32_t>(bw),
                           static_cast<int32_t>(bw + 1)};
  const int32_t seed = tree.nodes[node].seed;
  const int32_t seed_cell =
      static_cast<int32_t>((parent.y[seed] - y0) * bw + (parent.x[seed] - x0));
  const uint8_t* level = s.cell_level.data();
  int32_t* mark = s.mark.data();
  const uint8_t floor = static_cast<uint8_t>(std::max(k, 1));  // level 0 cells hold no node
  s.queue.clear();
  s.queue.push_back(seed_cell);
  mark[seed_cell] = stamp;
  int32_t c0 = seed_cell, c1 = seed_cell;  // first and last cell (rows of the box)
  for (size_t h = 0; h < s.queue.size(); ++h) {
    const int32_t c = s.queue[h];
    c0 = std::min(c0, c);
    c1 = std::max(c1, c);
    for (int32_t d : offs) {
      const int32_t q = c + d;
      if (level[q] >= floor && mark[q] != stamp) {
        mark[q] = stamp;
        s.queue.push_back(q);
      }
    }
  }
  // The node's rows and columns.
  const int by0 = static_cast<int>(c0 / bw), by1 = static_cast<int>(c1 / bw);
  int bx0 = static_cast<int>(bw), bx1 = -1;
  for (const int32_t c : s.queue) {
    const int x = static_cast<int>(c % bw);
    bx0 = std::min(bx0, x);
    bx1 = std::max(bx1, x);
  }
  // Its chain: a Lutz scan of its bounding box with only its cells lit (the chain of a
  // component depends only on its own pixels).
  const int lw = bx1 - bx0 + 1, lh = by1 - by0 + 1;
  auto cell_at = [&](int x, int y) { return (int64_t{y} + by0) * bw + (x + bx0); };
  chain.clear();
  double rv = 0;
  lutz_scan(
      lw, lh, [&](int x, int y) { return mark[cell_at(x, y)] == stamp; }, 1,
      [&](LutzComponent&& comp) {
        for (int64_t q : comp.pixels) {
          const int32_t i = s.grid[cell_at(static_cast<int>(q % lw), static_cast<int>(q / lw))];
          chain.push_back(i);
          rv += parent.cvalue[i];
        }
      },
      s.lutz);
  return rv;
}

void built_cores(const ObjectView& parent, const DeblendTree& tree, int nthresh, double value0,
                 const std::vector<float>* prepare_with, DeblendTreeScratch& tree_scratch,
                 BuiltCoresScratch& scratch, BuiltCores& out) {
  const size_t nodes = tree.nodes.size();
  scratch.ok.resize(nodes);
  scratch.kept_level.resize(nodes);
  scratch.kept_node.resize(nodes);
  out.level.clear(), out.length.clear(), out.thresh.clear(), out.flags.clear();
  out.pixels.clear();
  out.children.clear();
  out.draws = -1;
  out.count =
      prune_deblend_tree(tree.nodes.data(), tree.level.data(), nthresh, value0, scratch.ok.data(),
                         scratch.kept_level.data(), scratch.kept_node.data());
  if (out.count == 0) return;
  if (prepare_with) prepare_node_chains(parent, *prepare_with, tree_scratch);
  for (int q = 0; q < out.count; ++q) {
    const DeblendNode& node = tree.nodes[scratch.kept_node[q]];
    deblend_node_chain(parent, tree, scratch.kept_level[q], scratch.kept_node[q], tree_scratch,
                       scratch.chain);
    out.level.push_back(scratch.kept_level[q]);
    out.length.push_back(static_cast<int32_t>(scratch.chain.size()));
    out.thresh.push_back(node.thresh);
    out.flags.push_back(node.flags);
    out.pixels.insert(out.pixels.end(), scratch.chain.begin(), scratch.chain.end());
  }
}

}  // namespace celeris::extract
