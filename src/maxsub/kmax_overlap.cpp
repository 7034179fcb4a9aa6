// The k best distinct rectangles, overlaps allowed (K-overlapping maximum subarrays).
//
// Prefix-sum formulation (the paper, section 2.4: Kadane does not extend to overlapping K-maxima,
// prefix sums do): for rows t..b with column prefix p, the rectangles ending at column r are
// p(r+1) - p(l), l <= r, so the k best of them come from the k smallest p(l) seen so far. Those
// candidates are merged into one heap bounded to k. Time O(m^2 n k), plus the heap's log k for
// candidates that enter it; memory O(n + k) per thread.
#include <algorithm>
#include <queue>
#include <string>

#include "celeris/error.hpp"
#include "celeris/maxsub.hpp"
#include "maxsub/grid.hpp"

namespace celeris::maxsub {

namespace detail {

namespace {

template <class T>
struct WorstOnTop {
  bool operator()(const Cand<T>& a, const Cand<T>& b) const { return cand_better(a, b); }
};

template <class T>
using BoundedHeap = std::priority_queue<Cand<T>, std::vector<Cand<T>>, WorstOnTop<T>>;

// Offers c to a heap holding at most k; false when c is not better than the k-th best.
template <class T>
bool offer(BoundedHeap<T>& heap, int k, const Cand<T>& c) {
  if (int(heap.size()) < k) {
    heap.push(c);
    return true;
  }
  if (!cand_better(c, heap.top())) return false;
  heap.pop();
  heap.push(c);
  return true;
}

struct Prefix {
  double p;  // stored in double whatever T: only used to order and subtract
  int l;
};

// Row pairs with top row t. `low` keeps the k smallest prefix values (ascending, then by l) so
// the candidates for one end column come out best first and the scan stops at the first one the
// heap refuses.
template <class T>
void overlap_top(const Grid<T>& g, int t, int k, std::vector<T>& c, std::vector<uint8_t>& cb,
                 std::vector<Prefix>& low, BoundedHeap<T>& heap) {
  const bool use_blocked = !g.blocked.empty();
  std::fill(c.begin(), c.end(), T(0));
  if (use_blocked) std::fill(cb.begin(), cb.end(), uint8_t(0));
  for (int b = t; b < g.m; ++b) {
    add_row(g, b, c, cb);
    low.clear();
    T p = T(0);
    for (int r = 0; r < g.n; ++r) {
      if (use_blocked && cb[r]) {
        low.clear();
        p += c[r];
        continue;
      }
      // p(r) becomes a possible start l = r.
      const Prefix in{double(p), r};
      auto pos = std::upper_bound(low.begin(), low.end(), in.p,
                                  [](double v, const Prefix& e) { return v < e.p; });
      if (int(pos - low.begin()) < k) {
        low.insert(pos, in);
        if (int(low.size()) > k) low.pop_back();
      }
      p += c[r];
      for (const Prefix& e : low) {
        const Cand<T> cand = make_cand(g, T(p - T(e.p)), t, e.l, b, r);
        if (!offer(heap, k, cand)) break;
      }
    }
  }
}

template <class T>
std::vector<Cand<T>> drain(BoundedHeap<T>& heap) {
  std::vector<Cand<T>> out;
  while (!heap.empty()) {
    out.push_back(heap.top());
    heap.pop();
  }
  std::reverse(out.begin(), out.end());
  return out;
}

template <class T>
std::vector<Cand<T>> overlap_brute(const Grid<T>& g, int k) {
  BoundedHeap<T> heap;
  for (int t = 0; t < g.m; ++t)
    for (int b = t; b < g.m; ++b)
      for (int l = 0; l < g.n; ++l)
        for (int r = l; r < g.n; ++r) {
          T s{};
          bool ok = true;
          for (int i = t; i <= b && ok; ++i)
            for (int j = l; j <= r; ++j) {
              if (g.is_blocked(i, j)) ok = false;
              s += g.at(i, j);
            }
          if (ok) offer(heap, k, make_cand(g, s, t, l, b, r));
        }
  return drain(heap);
}

}  // namespace

template <class T>
std::vector<Cand<T>> search_k_overlapping(const Grid<T>& g, int k, Engine method) {
  if (method == Engine::Brute) return overlap_brute(g, k);
  BoundedHeap<T> best;
  const bool parallel =
      method != Engine::Alg8 && method != Engine::Alg9 && double(g.m) * g.m * g.n * k > 2e6;
#pragma omp parallel if (parallel)
  {
    std::vector<T> c(g.n);
    std::vector<uint8_t> cb(g.n);
    std::vector<Prefix> low;
    low.reserve(k + 1);
    BoundedHeap<T> mine;
#pragma omp for schedule(dynamic, 1) nowait
    for (int t = 0; t < g.m; ++t) overlap_top(g, t, k, c, cb, low, mine);
#pragma omp critical(celeris_maxsub_overlap)
    while (!mine.empty()) {
      offer(best, k, mine.top());
      mine.pop();
    }
  }
  return drain(best);
}

template std::vector<Cand<double>> search_k_overlapping<double>(const Grid<double>&, int, Engine);
template std::vector<Cand<float>> search_k_overlapping<float>(const Grid<float>&, int, Engine);

}  // namespace detail

using detail::Engine;

namespace {

template <class T>
std::vector<Rect> k_overlapping_as(std::span<const double> pixels, int width, int height, int k,
                                   Engine method) {
  const detail::Grid<T> g = detail::make_grid<T>(pixels, width, height);
  std::vector<Rect> out;
  for (const detail::Cand<T>& c : detail::search_k_overlapping(g, k, method)) {
    Rect r{0, c.top, c.left, c.bottom, c.right};
    r.sum = rect_sum(pixels, width, r);
    out.push_back(r);
  }
  return out;
}

}  // namespace

std::vector<Rect> k_max_overlapping(std::span<const double> pixels, int width, int height, int k,
                                    const Options& opt) {
  if (k < 1) throw Error("maxsub: k must be >= 1 (got " + std::to_string(k) + ")");
  return opt.precision == Precision::Float
             ? k_overlapping_as<float>(pixels, width, height, k, detail::engine_for(opt))
             : k_overlapping_as<double>(pixels, width, height, k, detail::engine_for(opt));
}

}  // namespace celeris::maxsub
