// Maximum convex (W-N shaped) sum: Thaher & Takaoka's simplification of Fukuda et al.
//
// A region is a run of columns, each covering one interval of rows; going right the intervals
// first grow (W part: the previous interval lies inside the current one), then shrink (N part:
// the current lies inside the previous). Left to right, with s(t,b) the sum of rows t..b of the
// current column:
//   grow(t,b)   = s(t,b) + max(0, G(t,b)),  G(t,b) = max grow_prev over intervals inside [t,b]
//   shrink(t,b) = s(t,b) + H(t,b),          H(t,b) = max(grow_prev, shrink_prev) over intervals
//                                                     containing [t,b]
// G and H are 2-D running maxima (G(t,b) = max(grow(t,b), G(t+1,b), G(t,b-1)), H likewise
// outwards), so every column costs O(h^2): O(h^2 w) in all. One byte per (column, t, b) records
// which way each maximum went, for the trace-back.
#include <cmath>
#include <limits>
#include <string>

#include "celeris/error.hpp"
#include "celeris/maxsub.hpp"
#include "maxsub/convex_cuda.hpp"
#include "maxsub/convex_trace.hpp"

namespace celeris::maxsub {

using namespace detail;  // the trace bits and walk of convex_trace.hpp

namespace {

constexpr double kNone = -std::numeric_limits<double>::infinity();

void check_input(std::span<const double> pixels, int width, int height) {
  if (width < 1 || height < 1) throw Error("maxsub: empty image");
  if (pixels.size() != size_t(width) * size_t(height))
    throw Error("maxsub: pixel count does not match " + std::to_string(width) + " x " +
                std::to_string(height));
  for (size_t i = 0; i < pixels.size(); ++i)
    if (!std::isfinite(pixels[i]))
      throw Error("maxsub: pixel (x=" + std::to_string(i % width + 1) +
                  ", y=" + std::to_string(i / width + 1) +
                  ") is not finite; replace masked pixels first (celeris maxsub --nan)");
}

// The reported sum: long double over the region's pixels, column by column.
double region_sum(std::span<const double> pixels, int w, const ConvexRegion& r) {
  long double s = 0;
  for (int c = r.left; c <= r.right; ++c)
    for (int y = r.top[c - r.left]; y <= r.bottom[c - r.left]; ++y) s += pixels[size_t(y) * w + c];
  return static_cast<double>(s);
}

ConvexRegion convex_search(std::span<const double> pixels, int width, int height,
                           const std::vector<uint8_t>& blocked) {
  const int h = height, w = width;
  const size_t hh = size_t(h) * h;
  const double bytes = double(hh) * w;
  if (bytes > 2.0 * 1024 * 1024 * 1024)
    throw Error("maxsub: convex search of a " + std::to_string(w) + " x " + std::to_string(h) +
                " image needs " + std::to_string(bytes / (1 << 30)) +
                " GiB of trace-back; crop the image");
  std::vector<uint8_t> trace(hh * w, 0);
  std::vector<double> grow(hh, kNone), shrink(hh, kNone), G(hh, kNone), H(hh, kNone);
  std::vector<double> Gp(hh, kNone), Hp(hh, kNone);  // previous column
  std::vector<double> cs(h + 1);                     // column prefix
  std::vector<int> cb(h + 1);                        // blocked count prefix
  auto at = [h](int t, int b) { return size_t(t) * h + b; };

  double best = kNone;
  int best_col = -1, best_t = 0, best_b = 0;
  bool best_grow = true;
  for (int x = 0; x < w; ++x) {
    for (int y = 0; y < h; ++y) {
      cs[y + 1] = cs[y] + pixels[size_t(y) * w + x];
      cb[y + 1] = cb[y] + (blocked.empty() ? 0 : blocked[size_t(y) * w + x]);
    }
    uint8_t* tr = trace.data() + hh * x;
    // grow, shrink and G: t descending, b ascending (G looks at (t+1,b) and (t,b-1)).
    for (int t = h - 1; t >= 0; --t) {
      for (int b = t; b < h; ++b) {
        const size_t i = at(t, b);
        uint8_t bits = 0;
        if (cb[b + 1] - cb[t] > 0) {
          grow[i] = shrink[i] = kNone;
        } else {
          const double s = cs[b + 1] - cs[t];
          if (Gp[i] > 0) {
            grow[i] = s + Gp[i];
            bits |= kGrowExtends;
          } else {
            grow[i] = s;
          }
          shrink[i] = Hp[i] == kNone ? kNone : s + Hp[i];
        }
        double g = grow[i];
        uint8_t gb = kGSelf;
        if (t + 1 <= b && G[at(t + 1, b)] > g) g = G[at(t + 1, b)], gb = kGDown;
        if (b - 1 >= t && G[at(t, b - 1)] > g) g = G[at(t, b - 1)], gb = kGUp;
        G[i] = g;
        tr[i] = bits | gb;
        if (grow[i] > best) best = grow[i], best_col = x, best_t = t, best_b = b, best_grow = true;
        if (shrink[i] > best)
          best = shrink[i], best_col = x, best_t = t, best_b = b, best_grow = false;
      }
    }
    // H: outwards first, so t ascending and b descending.
    for (int t = 0; t < h; ++t) {
      for (int b = h - 1; b >= t; --b) {
        const size_t i = at(t, b);
        double v = grow[i];
        uint8_t hb = kHGrow;
        if (shrink[i] > v) v = shrink[i], hb = kHShrink;
        if (t > 0 && H[at(t - 1, b)] > v) v = H[at(t - 1, b)], hb = kHTopOut;
        if (b + 1 < h && H[at(t, b + 1)] > v) v = H[at(t, b + 1)], hb = kHBottomOut;
        H[i] = v;
        tr[i] |= hb;
      }
    }
    std::swap(G, Gp);
    std::swap(H, Hp);
  }

  ConvexRegion out;
  if (best_col < 0) return out;  // every cell blocked
  out.right = best_col;
  std::vector<int> tops(size_t(best_col) + 1), bottoms(size_t(best_col) + 1);
  const int n = convex_trace_back(trace.data(), hh, at, best_col, best_t, best_b, best_grow,
                                  tops.data(), bottoms.data(), &out.left);
  out.top.assign(tops.rend() - n, tops.rend());
  out.bottom.assign(bottoms.rend() - n, bottoms.rend());
  out.sum = region_sum(pixels, w, out);
  return out;
}

// The same programme on the GPU (convex_cuda.cu), which returns the same region.
ConvexRegion convex_search_gpu(std::span<const double> pixels, int width, int height,
                               const std::vector<uint8_t>& blocked) {
#ifdef CELERIS_HAVE_CUDA
  detail::CudaConvex c = detail::cuda_max_convex(
      pixels.data(), blocked.empty() ? nullptr : blocked.data(), width, height);
  ConvexRegion out;
  if (!c.found) return out;
  out.left = c.left;
  out.right = c.left + int(c.top.size()) - 1;
  out.top = std::move(c.top);
  out.bottom = std::move(c.bottom);
  out.sum = region_sum(pixels, width, out);
  return out;
#else
  (void)pixels, (void)width, (void)height, (void)blocked;
  throw Error("maxsub: convex with method cuda: celeris was built without CUDA");
#endif
}

ConvexRegion convex_any(std::span<const double> pixels, int width, int height,
                        const std::vector<uint8_t>& blocked, Device device) {
  if (resolve_device(device) == Device::Cuda)
    return convex_search_gpu(pixels, width, height, blocked);
  return convex_search(pixels, width, height, blocked);
}

}  // namespace

int64_t ConvexRegion::npix() const {
  int64_t n = 0;
  for (size_t i = 0; i < top.size(); ++i) n += bottom[i] - top[i] + 1;
  return n;
}

bool ConvexRegion::contains(int x, int y) const {
  if (x < left || x > right || top.empty()) return false;
  return y >= top[x - left] && y <= bottom[x - left];
}

ConvexRegion max_convex(std::span<const double> pixels, int width, int height, Device device) {
  check_input(pixels, width, height);
  return convex_any(pixels, width, height, {}, device);
}

std::vector<ConvexRegion> k_max_convex_disjoint(std::span<const double> pixels, int width,
                                                int height, int k, Device device) {
  if (k < 1) throw Error("maxsub: k must be >= 1 (got " + std::to_string(k) + ")");
  check_input(pixels, width, height);
  std::vector<uint8_t> blocked(pixels.size(), 0);
  std::vector<ConvexRegion> out;
  for (int i = 0; i < k; ++i) {
    ConvexRegion r =
        convex_any(pixels, width, height, i == 0 ? std::vector<uint8_t>{} : blocked, device);
    if (r.top.empty()) break;
    for (int x = r.left; x <= r.right; ++x)
      for (int y = r.top[x - r.left]; y <= r.bottom[x - r.left]; ++y)
        blocked[size_t(y) * width + x] = 1;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace celeris::maxsub
