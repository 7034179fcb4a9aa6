// The maximum-sum rectangle: reference (brute force), Bae's Algorithm 8 (2-D prefix sums),
// Algorithm 9 (2-D Kadane) and Algorithm 9 on OpenMP threads; the dispatch to the GPU methods
// (rect_cuda.cu, mesh_cuda.cu), which take the caller's pixels directly for one maximum and the
// host grid (with its excluded cells) for the K disjoint maxima.
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/maxsub.hpp"
#include "maxsub/grid.hpp"
#include "maxsub/rect_cuda.hpp"

namespace celeris::maxsub {

namespace detail {

namespace {

// Size and finiteness; the scan for non-finite pixels runs on every thread (it is a visible part
// of a GPU search's time) and reports the first one in row-major order.
template <class In>
void check_pixels(std::span<const In> pixels, int width, int height) {
  if (width < 1 || height < 1)
    throw Error("maxsub: empty image (" + std::to_string(width) + " x " + std::to_string(height) +
                ")");
  if (pixels.size() != size_t(width) * size_t(height))
    throw Error("maxsub: " + std::to_string(pixels.size()) + " pixels given for a " +
                std::to_string(width) + " x " + std::to_string(height) + " image");
  const int64_t npix = int64_t(pixels.size());
  int64_t first_bad = npix;
#pragma omp parallel for reduction(min : first_bad) if (npix > (1 << 20))
  for (int64_t i = 0; i < npix; ++i)
    if (!std::isfinite(pixels[i]) && i < first_bad) first_bad = i;
  if (first_bad < npix)
    throw Error("maxsub: pixel (x=" + std::to_string(first_bad % width + 1) +
                ", y=" + std::to_string(first_bad / width + 1) +
                ") is not finite; replace masked pixels first (celeris maxsub --nan)");
}

}  // namespace

template <class T, class In>
Grid<T> make_grid(std::span<const In> pixels, int width, int height) {
  check_pixels(pixels, width, height);
  Grid<T> g;
  g.transposed = height > width;
  g.m = g.transposed ? width : height;
  g.n = g.transposed ? height : width;
  g.a.resize(pixels.size());
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const T v = static_cast<T>(pixels[size_t(y) * width + x]);
      if (g.transposed)
        g.a[size_t(x) * g.n + y] = v;
      else
        g.a[size_t(y) * g.n + x] = v;
    }
  }
  return g;
}

template <class T>
void block(Grid<T>& g, const Rect& r) {
  if (g.blocked.empty()) g.blocked.assign(g.a.size(), 0);
  for (int y = r.top; y <= r.bottom; ++y) {
    for (int x = r.left; x <= r.right; ++x) {
      if (g.transposed)
        g.blocked[size_t(x) * g.n + y] = 1;
      else
        g.blocked[size_t(y) * g.n + x] = 1;
    }
  }
}

namespace {

// Every rectangle, summed from a 2-D prefix table: the reference.
template <class T>
Cand<T> search_brute(const Grid<T>& g) {
  const int m = g.m, n = g.n;
  std::vector<T> s(size_t(m + 1) * (n + 1), T(0));
  std::vector<int> nb(size_t(m + 1) * (n + 1), 0);
  auto S = [&](int i, int j) -> T& { return s[size_t(i) * (n + 1) + j]; };
  auto NB = [&](int i, int j) -> int& { return nb[size_t(i) * (n + 1) + j]; };
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      S(i + 1, j + 1) = g.at(i, j) + S(i, j + 1) + S(i + 1, j) - S(i, j);
      NB(i + 1, j + 1) = int(g.is_blocked(i, j)) + NB(i, j + 1) + NB(i + 1, j) - NB(i, j);
    }
  }
  Cand<T> best;
  for (int t = 0; t < m; ++t)
    for (int b = t; b < m; ++b)
      for (int l = 0; l < n; ++l)
        for (int r = l; r < n; ++r) {
          if (NB(b + 1, r + 1) - NB(t, r + 1) - NB(b + 1, l) + NB(t, l) > 0) continue;
          const T v = S(b + 1, r + 1) - S(t, r + 1) - S(b + 1, l) + S(t, l);
          const Cand<T> c = make_cand(g, v, t, l, b, r);
          if (cand_better(c, best)) best = c;
        }
  return best;
}

// Kadane's scan of the column sums c of rows t..b (Algorithm 9's inner loop). A running sum is
// extended while it is >= 0, so among the rectangles ending at a column the one starting
// furthest left wins a tie; blocked columns (cb[j] != 0) end the running rectangle.
template <class T>
void kadane_scan(const Grid<T>& g, const T* c, const uint8_t* cb, int t, int b, Cand<T>& best) {
  bool have = false;
  T cur{};
  int cl = 0;
  for (int j = 0; j < g.n; ++j) {
    if (cb && cb[j]) {
      have = false;
      continue;
    }
    if (have && cur >= T(0)) {
      cur += c[j];
    } else {
      cur = c[j];
      cl = j;
      have = true;
    }
    if (!best.valid() || cur >= best.sum) {
      const Cand<T> cand = make_cand(g, cur, t, cl, b, j);
      if (cand_better(cand, best)) best = cand;
    }
  }
}

// All row pairs with top row t: column sums grow one row at a time.
template <class T>
void kadane_top(const Grid<T>& g, int t, std::vector<T>& c, std::vector<uint8_t>& cb,
                Cand<T>& best) {
  const bool use_blocked = !g.blocked.empty();
  std::fill(c.begin(), c.end(), T(0));
  if (use_blocked) std::fill(cb.begin(), cb.end(), uint8_t(0));
  for (int b = t; b < g.m; ++b) {
    add_row(g, b, c, cb);
    kadane_scan(g, c.data(), use_blocked ? cb.data() : nullptr, t, b, best);
  }
}

template <class T>
Cand<T> search_alg9(const Grid<T>& g) {
  std::vector<T> c(g.n);
  std::vector<uint8_t> cb(g.n);
  Cand<T> best;
  for (int t = 0; t < g.m; ++t) kadane_top(g, t, c, cb, best);
  return best;
}

// Algorithm 9 with the top rows shared among OpenMP threads (dynamic: the work of top row t is
// proportional to m - t); each thread keeps its best, reduced with the tie order, so the result
// is the serial one bit for bit.
template <class T>
Cand<T> search_cpu(const Grid<T>& g) {
  Cand<T> best;
  // Threads only pay off beyond ~1e6 cell visits (tiny images ran 10x slower on busy machines).
  const bool parallel = double(g.m) * g.m * g.n > 2e6;
#pragma omp parallel if (parallel)
  {
    std::vector<T> c(g.n);
    std::vector<uint8_t> cb(g.n);
    Cand<T> mine;
#pragma omp for schedule(dynamic, 1) nowait
    for (int t = 0; t < g.m; ++t) kadane_top(g, t, c, cb, mine);
#pragma omp critical(celeris_maxsub_reduce)
    if (cand_better(mine, best)) best = mine;
  }
  return best;
}

// Algorithm 8: the 2-D prefix table S; for rows t..b the column prefix p(j) = S(b+1, j) - S(t, j)
// and the best rectangle ending at column r is p(r+1) - min p(l), l <= r (first minimum wins a
// tie, i.e. the leftmost start). A blocked column restarts the minimum after it.
template <class T>
Cand<T> search_alg8(const Grid<T>& g) {
  const int m = g.m, n = g.n;
  std::vector<T> s(size_t(m + 1) * (n + 1), T(0));
  for (int i = 0; i < m; ++i) {
    T row{};
    for (int j = 0; j < n; ++j) {
      row += g.at(i, j);
      s[size_t(i + 1) * (n + 1) + j + 1] = s[size_t(i) * (n + 1) + j + 1] + row;
    }
  }
  const bool use_blocked = !g.blocked.empty();
  std::vector<uint8_t> cb(use_blocked ? n : 0);
  Cand<T> best;
  for (int t = 0; t < m; ++t) {
    if (use_blocked) std::fill(cb.begin(), cb.end(), uint8_t(0));
    const T* st = s.data() + size_t(t) * (n + 1);
    for (int b = t; b < m; ++b) {
      const T* sb = s.data() + size_t(b + 1) * (n + 1);
      if (use_blocked) {
        const uint8_t* brow = g.blocked.data() + size_t(b) * n;
        for (int j = 0; j < n; ++j) cb[j] |= brow[j];
      }
      T minp = sb[0] - st[0];
      int ml = 0;
      for (int r = 0; r < n; ++r) {
        const T p = sb[r + 1] - st[r + 1];
        if (use_blocked && cb[r]) {
          minp = p;
          ml = r + 1;
          continue;
        }
        const T v = p - minp;
        if (!best.valid() || v >= best.sum) {
          const Cand<T> cand = make_cand(g, v, t, ml, b, r);
          if (cand_better(cand, best)) best = cand;
        }
        if (p < minp) {
          minp = p;
          ml = r + 1;
        }
      }
    }
  }
  return best;
}

}  // namespace

Engine engine_for(const Options& opt) {
  const bool cpu_only = opt.algorithm == Algorithm::Brute || opt.algorithm == Algorithm::Alg8 ||
                        opt.algorithm == Algorithm::Alg9;
  const bool gpu_only = opt.algorithm == Algorithm::Alg38 || opt.algorithm == Algorithm::Alg39;
  Device d = opt.device;
  if (d == Device::Auto)
    d = cpu_only                  ? Device::Cpu
        : gpu_only                ? Device::Cuda
        : cuda_device_count() > 0 ? Device::Cuda
                                  : Device::Cpu;
  if (cpu_only && d == Device::Cuda)
    throw Error(std::string("maxsub: algorithm ") + algorithm_name(opt.algorithm) +
                " runs on the CPU only (device cpu or auto)");
  if (gpu_only && d == Device::Cpu)
    throw Error(std::string("maxsub: algorithm ") + algorithm_name(opt.algorithm) +
                " runs on the GPU only (device cuda)");
  switch (opt.algorithm) {
    case Algorithm::RowPairs:
      return d == Device::Cuda ? Engine::Cuda : Engine::Cpu;
    case Algorithm::Brute:
      return Engine::Brute;
    case Algorithm::Alg8:
      return Engine::Alg8;
    case Algorithm::Alg9:
      return Engine::Alg9;
    case Algorithm::Alg38:
      return Engine::Alg38;
    case Algorithm::Alg39:
      return Engine::Alg39;
  }
  throw Error("maxsub: unknown algorithm");
}

const char* engine_name(Engine e) {
  switch (e) {
    case Engine::Brute:
      return "brute";
    case Engine::Alg8:
      return "alg8";
    case Engine::Alg9:
      return "alg9";
    case Engine::Cpu:
      return "cpu";
    case Engine::Cuda:
      return "cuda";
    case Engine::Alg38:
      return "alg38";
    case Engine::Alg39:
      return "alg39";
  }
  return "?";
}

// The GPU methods on a host grid (the K-disjoint search: the grid carries the blocked cells).
template <class T>
Cand<T> search_gpu(const Grid<T>& g, Engine method) {
#ifdef CELERIS_HAVE_CUDA
  const CudaSource<T> in{
      g.a.data(), g.n, g.m, g.blocked.empty() ? nullptr : g.blocked.data(), false, g.transposed};
  const MeshRect<T> r = method == Engine::Cuda
                            ? cuda_rect_search<T, T>(in, nullptr)
                            : cuda_mesh_search<T, T>(method == Engine::Alg38, in, nullptr);
  Cand<T> c;
  if (r.top >= 0) c = {r.sum, r.top, r.left, r.bottom, r.right};
  return c;
#else
  (void)g;
  throw Error(std::string("maxsub: method ") + engine_name(method) +
              ": celeris was built without CUDA");
#endif
}

template <class T>
Cand<T> search(const Grid<T>& g, Engine method) {
  switch (method) {
    case Engine::Brute:
      return search_brute(g);
    case Engine::Alg8:
      return search_alg8(g);
    case Engine::Alg9:
      return search_alg9(g);
    case Engine::Cpu:
      return search_cpu(g);
    case Engine::Cuda:
    case Engine::Alg38:
    case Engine::Alg39:
      return search_gpu(g, method);
  }
  throw Error("maxsub: unknown method");
}

template Grid<double> make_grid<double, double>(std::span<const double>, int, int);
template Grid<float> make_grid<float, double>(std::span<const double>, int, int);
template Grid<double> make_grid<double, float>(std::span<const float>, int, int);
template Grid<float> make_grid<float, float>(std::span<const float>, int, int);
template void block<double>(Grid<double>&, const Rect&);
template void block<float>(Grid<float>&, const Rect&);
template Cand<double> search<double>(const Grid<double>&, Engine);
template Cand<float> search<float>(const Grid<float>&, Engine);

}  // namespace detail

using detail::Engine;

bool better(const Rect& a, const Rect& b) {
  return detail::tie_order_better(a, b);
}

Algorithm parse_algorithm(const std::string& name) {
  if (name == "rowpairs") return Algorithm::RowPairs;
  if (name == "brute") return Algorithm::Brute;
  if (name == "alg8" || name == "prefix") return Algorithm::Alg8;
  if (name == "alg9" || name == "kadane") return Algorithm::Alg9;
  if (name == "alg38") return Algorithm::Alg38;
  if (name == "alg39") return Algorithm::Alg39;
  throw Error("maxsub: unknown algorithm '" + name +
              "' (rowpairs, brute, alg8, alg9, alg38, alg39)");
}

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::RowPairs:
      return "rowpairs";
    case Algorithm::Brute:
      return "brute";
    case Algorithm::Alg8:
      return "alg8";
    case Algorithm::Alg9:
      return "alg9";
    case Algorithm::Alg38:
      return "alg38";
    case Algorithm::Alg39:
      return "alg39";
  }
  return "?";
}

Options parse_method(const std::string& name) {
  Options o;
  if (name == "cpu") {
    o.device = Device::Cpu;
  } else if (name == "cuda" || name == "gpu") {
    o.device = Device::Cuda;
  } else if (name == "auto") {
    o.device = Device::Auto;
  } else if (name == "brute" || name == "alg8" || name == "prefix" || name == "alg9" ||
             name == "kadane") {
    o.algorithm = parse_algorithm(name);
  } else if (name == "alg38" || name == "alg39") {
    o.algorithm = parse_algorithm(name);
    o.device = Device::Cuda;
  } else {
    throw Error("maxsub: unknown method '" + name +
                "' (brute, alg8, alg9, cpu, cuda, alg38, alg39, auto)");
  }
  return o;
}

std::string method_name(const Options& opt) {
  return detail::engine_name(detail::engine_for(opt));
}

double rect_sum(std::span<const double> pixels, int width, const Rect& r) {
  long double s = 0;
  for (int y = r.top; y <= r.bottom; ++y)
    for (int x = r.left; x <= r.right; ++x) s += pixels[size_t(y) * width + x];
  return static_cast<double>(s);
}

namespace {

template <class T>
Rect to_rect(const detail::Cand<T>& c) {
  return {static_cast<double>(c.sum), c.top, c.left, c.bottom, c.right};
}

template <class T, class In>
Rect max_subarray_as(std::span<const In> pixels, int width, int height, Engine method) {
  const detail::Grid<T> g = detail::make_grid<T>(pixels, width, height);
  return to_rect(detail::search(g, method));
}

// Rect::sum as documented: long double over the pixels, whatever the search precision.
template <class In>
void resum(std::span<const In> pixels, int width, Rect& r) {
  long double s = 0;
  for (int y = r.top; y <= r.bottom; ++y)
    for (int x = r.left; x <= r.right; ++x) s += pixels[size_t(y) * width + x];
  r.sum = static_cast<double>(s);
}

bool on_gpu(Engine m) {
  return m == Engine::Cuda || m == Engine::Alg38 || m == Engine::Alg39;
}

// The GPU methods straight from the caller's pixels: no host grid, the device converts,
// transposes (taller than wide) and builds its prefix tables.
template <class T, class In>
Rect max_subarray_gpu(std::span<const In> pixels, int width, int height, Engine engine,
                      const Options& opt) {
#ifdef CELERIS_HAVE_CUDA
  detail::check_pixels(pixels, width, height);
  const bool transpose = height > width;
  const detail::CudaSource<In> in{pixels.data(), width, height, nullptr, transpose, transpose};
  detail::CudaStageTimes times;
  const detail::MeshRect<T> r =
      engine == Engine::Cuda ? detail::cuda_rect_search<T, In>(in, &times)
                             : detail::cuda_mesh_search<T, In>(engine == Engine::Alg38, in, &times);
  if (opt.gpu_times) *opt.gpu_times = {times.upload_ms, times.prep_ms, times.search_ms};
  return {static_cast<double>(r.sum), r.top, r.left, r.bottom, r.right};
#else
  (void)pixels, (void)width, (void)height, (void)opt;
  throw Error(std::string("maxsub: method ") + detail::engine_name(engine) +
              ": celeris was built without CUDA");
#endif
}

template <class In>
Rect max_subarray_any(std::span<const In> pixels, int width, int height, const Options& opt) {
  const Engine e = detail::engine_for(opt);
  Rect r;
  if (on_gpu(e))
    r = opt.precision == Precision::Float ? max_subarray_gpu<float>(pixels, width, height, e, opt)
                                          : max_subarray_gpu<double>(pixels, width, height, e, opt);
  else
    r = opt.precision == Precision::Float ? max_subarray_as<float>(pixels, width, height, e)
                                          : max_subarray_as<double>(pixels, width, height, e);
  resum(pixels, width, r);
  return r;
}

template <class T>
std::vector<Rect> k_disjoint_as(std::span<const double> pixels, int width, int height, int k,
                                Engine method) {
  detail::Grid<T> g = detail::make_grid<T>(pixels, width, height);
  std::vector<Rect> out;
  for (int i = 0; i < k; ++i) {
    const detail::Cand<T> c = detail::search(g, method);
    if (!c.valid()) break;
    Rect r = to_rect(c);
    resum(pixels, width, r);
    out.push_back(r);
    detail::block(g, r);
  }
  return out;
}

}  // namespace

Rect max_subarray(std::span<const double> pixels, int width, int height, const Options& opt) {
  return max_subarray_any(pixels, width, height, opt);
}

Rect max_subarray(std::span<const float> pixels, int width, int height, const Options& opt) {
  return max_subarray_any(pixels, width, height, opt);
}

std::vector<Rect> k_max_disjoint(std::span<const double> pixels, int width, int height, int k,
                                 const Options& opt) {
  if (k < 1) throw Error("maxsub: k must be >= 1 (got " + std::to_string(k) + ")");
  return opt.precision == Precision::Float
             ? k_disjoint_as<float>(pixels, width, height, k, detail::engine_for(opt))
             : k_disjoint_as<double>(pixels, width, height, k, detail::engine_for(opt));
}

}  // namespace celeris::maxsub
