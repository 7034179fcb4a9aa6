// Internal to src/maxsub: the image as the rectangle searches see it (oriented so that row
// pairs run over the shorter axis), and the candidates they compare.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "celeris/maxsub.hpp"
#include "tie_order.hpp"

namespace celeris::maxsub::detail {

// m x n row-major copy in accumulation type T with m <= n. When the image is taller than wide it
// is transposed: grid (row i, col j) is image (x = i, y = j).
template <class T>
struct Grid {
  int m = 0, n = 0;
  bool transposed = false;
  std::vector<T> a;              // m * n
  std::vector<uint8_t> blocked;  // m * n, or empty: cells excluded from every rectangle

  T at(int i, int j) const { return a[size_t(i) * n + j]; }
  bool is_blocked(int i, int j) const { return !blocked.empty() && blocked[size_t(i) * n + j]; }
};

// Strip column sums grown by one row: c[j] += a[b][j], and cb[j] |= blocked[b][j] when the grid
// has blocked cells (the searches over row pairs with a fixed top row build on this).
template <class T>
inline void add_row(const Grid<T>& g, int b, std::vector<T>& c, std::vector<uint8_t>& cb) {
  const T* row = g.a.data() + size_t(b) * g.n;
  for (int j = 0; j < g.n; ++j) c[j] += row[j];
  if (!g.blocked.empty()) {
    const uint8_t* brow = g.blocked.data() + size_t(b) * g.n;
    for (int j = 0; j < g.n; ++j) cb[j] |= brow[j];
  }
}

// Validates (size, finite values) and orients. Throws celeris::Error.
template <class T, class In>
Grid<T> make_grid(std::span<const In> pixels, int width, int height);

// Marks an image-coordinate rectangle as blocked.
template <class T>
void block(Grid<T>& g, const Rect& r);

// A candidate rectangle in image coordinates with its sum in the search precision.
template <class T>
struct Cand {
  T sum{};
  int top = -1, left = 0, bottom = 0, right = 0;  // top < 0: none
  bool valid() const { return top >= 0; }
};

// The tie order of maxsub.hpp, on search-precision sums.
template <class T>
inline bool cand_better(const Cand<T>& a, const Cand<T>& b) {
  if (!a.valid()) return false;
  if (!b.valid()) return true;
  return tie_order_better(a, b);
}

// Grid rectangle (rows t..b, cols l..r) as an image-coordinate candidate.
template <class T>
inline Cand<T> make_cand(const Grid<T>& g, T sum, int t, int l, int b, int r) {
  if (g.transposed) return {sum, l, t, r, b};
  return {sum, t, l, b, r};
}

// One (algorithm, device) pair as the implementations dispatch on it: the CPU's row pairs (Cpu)
// and the GPU's (Cuda) are different code, the serial and mesh algorithms run on one side only.
enum class Engine { Brute, Alg8, Alg9, Cpu, Cuda, Alg38, Alg39 };
// Auto resolved (by the device count); a pair no implementation runs is a celeris::Error.
Engine engine_for(const Options& opt);
// The former method spelling of an engine ("cpu", "cuda", "alg8", ...).
const char* engine_name(Engine e);

// The best rectangle of the grid (blocked cells excluded) by one engine; invalid when every
// cell is blocked.
template <class T>
Cand<T> search(const Grid<T>& g, Engine method);

// The k best rectangles of the grid in the tie order (overlaps allowed), best first.
template <class T>
std::vector<Cand<T>> search_k_overlapping(const Grid<T>& g, int k, Engine method);

}  // namespace celeris::maxsub::detail
