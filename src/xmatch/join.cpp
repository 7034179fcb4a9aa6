// Phases 1-3 of the cross-match on CPU cores (paper, Algorithm 1 and section III.C): index the
// right side (pixel + sort), compute each left row's search intervals, filter and refine with the
// exact chord distance. Phases 2 and 3 are fused per left row and run under OpenMP.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <parallel/algorithm>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"
#include "join_search.hpp"

#ifdef CELERIS_HAVE_CUDA
#include "join_cuda.hpp"
#endif

namespace celeris::xmatch {

namespace hp = celeris::healpix;

namespace {

constexpr double kArcsec = hp::pi / (180.0 * 3600.0);

std::vector<hp::Vec3> unit_vectors(const SkyPoints& p) {
  std::vector<hp::Vec3> v(p.size());
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < int64_t(p.size()); ++i) v[i] = hp::radec2vec(p.ra[i], p.dec[i]);
  return v;
}

// Open-addressing hash of the occupied pixels: pixel -> [begin, end) in the sorted index. Used
// by the neighbour path, where the order is too fine for a dense histogram of 12 * 4^order cells.
class PixelTable {
 public:
  void build(const std::vector<int64_t>& sorted_pix) {
    size_t unique = 0;
    for (size_t k = 0; k < sorted_pix.size(); ++k)
      if (k == 0 || sorted_pix[k] != sorted_pix[k - 1]) ++unique;
    size_t cap = 16;
    while (cap < 2 * unique) cap <<= 1;
    mask_ = cap - 1;
    keys_.assign(cap, -1);
    begin_.assign(cap, 0);
    end_.assign(cap, 0);
    for (size_t k = 0; k < sorted_pix.size();) {
      size_t e = k + 1;
      while (e < sorted_pix.size() && sorted_pix[e] == sorted_pix[k]) ++e;
      size_t h = slot(sorted_pix[k]);
      while (keys_[h] != -1) h = (h + 1) & mask_;
      keys_[h] = sorted_pix[k];
      begin_[h] = k;
      end_[h] = e;
      k = e;
    }
  }
  // [begin, end) of `pix`, or an empty range.
  void find(int64_t pix, size_t& b, size_t& e) const {
    for (size_t h = slot(pix);; h = (h + 1) & mask_) {
      if (keys_[h] == pix) {
        b = begin_[h];
        e = end_[h];
        return;
      }
      if (keys_[h] == -1) {
        b = e = 0;
        return;
      }
    }
  }

 private:
  size_t slot(int64_t pix) const {
    uint64_t z = uint64_t(pix) + 0x9E3779B97F4A7C15ull;  // splitmix64 finaliser
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return size_t(z ^ (z >> 31)) & mask_;
  }
  size_t mask_ = 0;
  std::vector<int64_t> keys_;
  std::vector<size_t> begin_, end_;
};

// Phase 1: the right side sorted by pixel, with its vectors in that order for locality.
struct Index {
  int order = 0;
  std::vector<int64_t> pix;  // sorted
  std::vector<int64_t> row;  // original row of each sorted entry
  std::vector<hp::Vec3> vec;
  PixelTable table;
};

Index build_index(const std::vector<hp::Vec3>& v, int order, bool with_table) {
  Index ix;
  ix.order = order;
  const int64_t n = int64_t(v.size());
  std::vector<std::pair<int64_t, int64_t>> key(n);
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < n; ++k) key[k] = {hp::vec2pix_nest(order, v[k]), k};
  __gnu_parallel::sort(key.begin(), key.end());
  ix.pix.resize(n);
  ix.row.resize(n);
  ix.vec.resize(n);
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < n; ++k) {
    ix.pix[k] = key[k].first;
    ix.row[k] = key[k].second;
    ix.vec[k] = v[key[k].second];
  }
  if (with_table) ix.table.build(ix.pix);
  return ix;
}

void check_points(const SkyPoints& p, const char* side) {
  if (p.ra.size() != p.dec.size())
    throw Error(std::string(side) + ": RA and Dec have different lengths");
  for (size_t i = 0; i < p.size(); ++i) {
    if (!std::isfinite(p.ra[i]) || !std::isfinite(p.dec[i]) || p.dec[i] < -90 || p.dec[i] > 90 ||
        p.ra[i] < -360 || p.ra[i] > 360)
      throw Error(std::string(side) + ": row " + std::to_string(i + 1) +
                  ": RA/Dec out of range or not finite (" + std::to_string(p.ra[i]) + ", " +
                  std::to_string(p.dec[i]) + ")");
  }
}

bool use_neighbours(const Options& o) {
  const double r = o.radius_arcsec * kArcsec;
  switch (o.search) {
    case Search::Neighbours:
      if (hp::order_for_radius(r) < 0)
        throw Error("radius " + std::to_string(o.radius_arcsec) +
                    " arcsec is too large for the neighbour search (use --search disc)");
      return true;
    case Search::Disc:
      return false;
    case Search::Auto:
      return hp::order_for_radius(r) >= 0;
  }
  return true;
}

// Phases 2+3 for all left rows. `self`: only pairs with right row > left row.
std::vector<Pair> join(const std::vector<hp::Vec3>& left, const Index& ix, const Options& o,
                       bool self) {
  const double r = o.radius_arcsec * kArcsec;
  const double lim2 = hp::chord2_of_angle(r);  // formula 5, squared
  const bool neighbours = use_neighbours(o);
  const hp::DiscPlan plan = hp::make_disc_plan(ix.order, r);
  const int64_t n = int64_t(left.size());
  constexpr int64_t kChunk = 1024;
  const int64_t nchunks = (n + kChunk - 1) / kChunk;
  std::vector<std::vector<Pair>> out(nchunks);
  const int nthreads = o.threads > 0 ? o.threads : omp_get_max_threads();

#pragma omp parallel num_threads(nthreads)
  {
    std::vector<Pair> row_pairs;
#pragma omp for schedule(dynamic)
    for (int64_t c = 0; c < nchunks; ++c) {
      std::vector<Pair>& chunk = out[c];
      for (int64_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
        const hp::Vec3 v = left[i];
        row_pairs.clear();
        auto refine = [&](size_t b, size_t e) {
          for (size_t k = b; k < e; ++k) {
            const double c2 = hp::chord2(v, ix.vec[k]);
            if (c2 <= lim2 && (!self || ix.row[k] > i))
              row_pairs.push_back(Pair{i, ix.row[k], hp::angle_of_chord2(c2) / kArcsec});
          }
        };
        if (neighbours) {
          int64_t cand[9];
          cand[0] = hp::vec2pix_nest(ix.order, v);
          hp::neighbours_nest(ix.order, cand[0], cand + 1);
          std::sort(cand, cand + 9);
          for (int q = 0; q < 9; ++q) {
            if (cand[q] < 0 || (q > 0 && cand[q] == cand[q - 1])) continue;
            size_t b, e;
            ix.table.find(cand[q], b, e);
            refine(b, e);
          }
        } else {
          hp::query_disc_nest(plan, v, [&](int64_t pb, int64_t pe) {
            const size_t b = std::lower_bound(ix.pix.begin(), ix.pix.end(), pb) - ix.pix.begin();
            size_t e = b;
            while (e < ix.pix.size() && ix.pix[e] < pe) ++e;
            refine(b, e);
          });
        }
        std::sort(row_pairs.begin(), row_pairs.end(),
                  [](const Pair& a, const Pair& b) { return a.j < b.j; });
        chunk.insert(chunk.end(), row_pairs.begin(), row_pairs.end());
      }
    }
  }
  size_t total = 0;
  for (const auto& c : out) total += c.size();
  std::vector<Pair> pairs;
  pairs.reserve(total);
  for (auto& c : out) pairs.insert(pairs.end(), c.begin(), c.end());
  return pairs;
}

void check_radius(const Options& o) {
  if (!(o.radius_arcsec > 0) || !(o.radius_arcsec <= 180.0 * 3600.0))
    throw Error("radius must be > 0 and <= 180 deg (got " + std::to_string(o.radius_arcsec) +
                " arcsec)");
  if (o.order > hp::max_order) throw Error("order must be <= 29");
}

bool on_gpu(const Options& o) {
  if (resolve_backend(o.backend) != Backend::Cuda) return false;
#ifndef CELERIS_HAVE_CUDA
  throw Error("celeris was built without the CUDA backend");
#else
  return true;
#endif
}

#ifdef CELERIS_HAVE_CUDA
// The GPU's columns (grouped by left row) as Pair rows, in parallel.
std::vector<Pair> pair_rows(const detail::CudaPairs& c, size_t n_left) {
  std::vector<Pair> pairs(c.size());
#pragma omp parallel for schedule(dynamic, 4096)
  for (int64_t i = 0; i < int64_t(n_left); ++i)
    for (uint64_t k = c.offsets[i]; k < c.offsets[i + 1]; ++k)
      pairs[k] = Pair{i, int64_t(c.j[k]), c.sep_arcsec[k]};
  return pairs;
}
#endif

std::vector<Pair> join_gpu([[maybe_unused]] const SkyPoints& left,
                           [[maybe_unused]] const SkyPoints& right, [[maybe_unused]] int order,
                           [[maybe_unused]] const Options& o, [[maybe_unused]] bool self) {
#ifdef CELERIS_HAVE_CUDA
  // Larger than the device: the same HEALPix chunks as --memory, each matched on the GPU.
  const size_t budget = detail::cuda_budget(o.device_memory);
  if (budget < (size_t(16) << 20))
    throw Error("the CUDA join needs at least 16 MiB of device memory (" +
                std::to_string(budget >> 20) + " MiB allowed or free)");
  if (detail::cuda_join_bytes(left.size(), right.size(), self) > budget) {
    // A chunk of budget/4 needs at most budget/2 + 4 MiB on the device (cuda_join_bytes), so
    // each chunk runs unchunked.
    Options chunk = o;
    chunk.backend = Backend::Cuda;
    const auto l = memory_positions(left), r = memory_positions(right);
    return chunked_pairs(*l, *r, self, chunk, budget / 4);
  }
  detail::CudaPairs c;
  detail::join_cuda_columns(left, right, order, use_neighbours(o), o.radius_arcsec * kArcsec, self,
                            detail::HostMemory::Pageable, c, o.cuda_batches);
  return pair_rows(c, left.size());
#else
  throw Error("celeris was built without the CUDA backend");
#endif
}

}  // namespace

namespace detail {
bool neighbour_search(const Options& o) {
  return use_neighbours(o);
}
}  // namespace detail

int index_order(const Options& o) {
  if (o.order >= 0) return o.order;
  const double r = o.radius_arcsec * kArcsec;
  const int k = hp::order_for_radius(r);
  if (use_neighbours(o)) return k;
  // Disc queries: pixels about half the radius across, so a disc covers a few pixel ranges.
  return std::clamp(k + 1, 0, hp::max_order);
}

namespace detail {
void check_options(const Options& o, bool self) {
  check_radius(o);
  index_order(o);  // throws when the neighbour search is asked for a radius too large for it
  const int finest = hp::order_for_radius(o.radius_arcsec * kArcsec);
  if (use_neighbours(o) && o.order >= 0 && o.order > finest) {
    if (self)
      throw Error("order " + std::to_string(o.order) + " is too fine for the neighbour search");
    throw Error("order " + std::to_string(o.order) +
                " has pixels narrower than the radius; the neighbour search needs order <= " +
                std::to_string(finest));
  }
}

void check_inputs(const SkyPoints* left, const SkyPoints& right, const Options& o) {
  check_radius(o);
  if (left) check_points(*left, "left catalog");
  check_points(right, left ? "right catalog" : "catalog");
  if ((left && left->size() == 0) || right.size() == 0) return;
  check_options(o, left == nullptr);
}
}  // namespace detail

std::vector<Pair> match_pairs(const SkyPoints& left, const SkyPoints& right, const Options& o) {
  detail::check_inputs(&left, right, o);
  if (left.size() == 0 || right.size() == 0) return {};
  const int order = index_order(o);
  if (on_gpu(o)) return join_gpu(left, right, order, o, false);
  const Index ix = build_index(unit_vectors(right), order, use_neighbours(o));
  return join(unit_vectors(left), ix, o, false);
}

std::vector<Pair> self_pairs(const SkyPoints& points, const Options& o) {
  detail::check_inputs(nullptr, points, o);
  if (points.size() == 0) return {};
  const int order = index_order(o);
  if (on_gpu(o)) return join_gpu(points, points, order, o, true);
  const std::vector<hp::Vec3> v = unit_vectors(points);
  const Index ix = build_index(v, order, use_neighbours(o));
  return join(v, ix, o, true);
}

std::vector<Pair> brute_force_pairs(const SkyPoints& left, const SkyPoints& right,
                                    double radius_arcsec, bool self) {
  const double lim2 = hp::chord2_of_angle(radius_arcsec * kArcsec);
  const std::vector<hp::Vec3> a = unit_vectors(left), b = unit_vectors(right);
  std::vector<Pair> pairs;
  for (int64_t i = 0; i < int64_t(a.size()); ++i)
    for (int64_t j = self ? i + 1 : 0; j < int64_t(b.size()); ++j) {
      const double c2 = hp::chord2(a[i], b[j]);
      if (c2 <= lim2) pairs.push_back(Pair{i, j, hp::angle_of_chord2(c2) / kArcsec});
    }
  return pairs;
}

}  // namespace celeris::xmatch
