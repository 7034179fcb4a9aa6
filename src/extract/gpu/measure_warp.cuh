// One object's photometry by one warp (measure_kernels.cu): the same sums as measure_object
// (measure_object.hpp), bit for bit. A thread measuring a large object alone waits on one pixel
// after another (hundreds of thousands of dependent loads for a bright star), and its warp and
// the kernel wait on it; a warp makes 32 pixels' terms at once (stages/photometry_math.hpp's
// term()) and then adds them in raster order, every lane the same additions in the same order,
// so that each lane holds the CPU's sums. The additions are then the only serial part.
// The growth curve's bins are shared out instead: lane l holds bins l and l + 32, and each pixel's
// sub-samples reach a lane as counts per bin (a pixel gives every one of its sub-samples in a bin
// the same value, so a bin's sequence of additions is the CPU's).
#pragma once

#include <cstdint>

#include "extract/gpu/measure_object.hpp"

namespace celeris::extract::gpu {

constexpr unsigned kFullWarp = 0xffffffffu;

// A warp's shared memory: the terms of one step of 32 pixels, and the growth curve's cumulative
// bins.
struct WarpScratch {
  static constexpr int kTermBytes = 48;  // the largest Term below
  unsigned char* terms;                  // 32 * kTermBytes bytes, 16-byte aligned
  double* cumul;                         // kGrowthNStep
};

// A term made by lane src, added on this lane: sums that every lane adds alike (ApertureSum,
// KronRadiusSum, KronFluxSum) take add(t); GrowthWarp's lanes hold different bins and take the
// source lane too.
template <class Sum, class Term>
__device__ inline auto add_term(Sum& sum, const Term& t, int src) -> decltype(sum.add(t, src)) {
  sum.add(t, src);
}
template <class Sum, class Term>
__device__ inline auto add_term(Sum& sum, const Term& t, int) -> decltype(sum.add(t)) {
  sum.add(t);
}

// sum_box (photometry_math.hpp) by a warp: lane l makes the term of pixel base + l of the box in
// raster order; then every lane adds the terms made, in lane order, read from shared memory (so
// that the next term's load need not wait on the last addition). Called by all 32 lanes with the
// same sum.
template <class Sum>
__device__ inline void warp_sum_box(Sum& sum, const phot::Box& b, int lane, WarpScratch w) {
  using Term = typename Sum::Term;
  static_assert(sizeof(Term) <= WarpScratch::kTermBytes, "a term fits its slot");
  Term* staged = reinterpret_cast<Term*>(w.terms);
  const int bw = b.xmax - b.xmin, bh = b.ymax - b.ymin;
  if (bw <= 0 || bh <= 0) return;
  const int64_t total = int64_t(bw) * bh;
  // Each step moves every lane 32 pixels on in raster order.
  const int step_x = 32 % bw, step_y = 32 / bw;
  int x = b.xmin + lane % bw, y = b.ymin + lane / bw;
  for (int64_t base = 0; base < total; base += 32) {
    Term t;
    const bool made = base + lane < total && sum.term(x, y, t);
    if (made) staged[lane] = t;
    const unsigned m = __ballot_sync(kFullWarp, made);
    __syncwarp();  // the stores before the reads
    for (unsigned left = m; left; left &= left - 1) {
      const int src = __ffs(left) - 1;
      add_term(sum, staged[src], src);
    }
    __syncwarp();  // every lane's reads before the next step's stores
    x += step_x;
    y += step_y;
    if (x >= b.xmax) x -= bw, ++y;
  }
}

// The growth curve's bins [jlo, jhi) from the pixels of one window, lane l holding bins l and
// l + 32 (GrowthCurve::pixel's sub-samples as counts per bin).
class GrowthWarp {
 public:
  // A pixel's bins: its value and how many of its sub-samples fall in each of the bins
  // jmin .. jmin + 23, five bits each (0-11 in lo, 12-23 in hi); `packed` false when they
  // spread wider (a growth curve of a few pixels' radius), and then each lane reads the
  // pixel's bins from the lane that made it.
  struct Term {
    double v;
    uint64_t lo, hi;
    int32_t jmin, nb;
    int32_t packed, pad;
  };
  static constexpr int kSpan = 24;

  __device__ GrowthWarp(const phot::GrowthCurve& g, int jlo, int jhi, int lane, double& bin_a,
                        double& bin_b)
      : g_(g), w_(g.window(jlo, jhi)), jlo_(jlo), jhi_(jhi), lane_(lane), a_(bin_a), b_(bin_b) {}
  __device__ const phot::Box& box() const { return w_.box; }

  __device__ bool term(int x, int y, Term& t) {
    t.nb = g_.pixel(w_, x, y, t.v, bins_);
    if (t.nb == 0) return false;
    int jmin = bins_[0], jmax = bins_[0];
    for (int k = 1; k < t.nb; ++k) jmin = min(jmin, bins_[k]), jmax = max(jmax, bins_[k]);
    t.jmin = jmin;
    // jmax - jmin in int64: a degenerate curve's bins can be INT_MIN (phot::to_int).
    t.packed = int64_t(jmax) - jmin < kSpan;
    t.lo = t.hi = 0;
    if (t.packed)
      for (int k = 0; k < t.nb; ++k) {
        const int off = bins_[k] - jmin;
        if (off < 12)
          t.lo += uint64_t{1} << (5 * off);
        else
          t.hi += uint64_t{1} << (5 * (off - 12));
      }
    return true;
  }
  __device__ void add(const Term& t, int src) {
    int na = 0, nbb = 0;  // sub-samples in this lane's two bins
    const int ja = lane_, jb = lane_ + 32;
    if (t.packed) {
      na = count_in(t, ja);
      nbb = count_in(t, jb);
    } else {
      for (int k = 0; k < t.nb; ++k) {
        const int j = __shfl_sync(kFullWarp, bins_[k], src);
        na += j == ja;
        nbb += j == jb;
      }
    }
    if (ja >= jlo_ && ja < jhi_)
      for (int c = 0; c < na; ++c) a_ += t.v;
    if (jb >= jlo_ && jb < jhi_)
      for (int c = 0; c < nbb; ++c) b_ += t.v;
  }

 private:
  __device__ static int count_in(const Term& t, int j) {
    const int64_t off = int64_t(j) - t.jmin;
    if (off < 0 || off >= kSpan) return 0;
    return static_cast<int>((off < 12 ? t.lo >> (5 * off) : t.hi >> (5 * (off - 12))) & 31);
  }

  const phot::GrowthCurve& g_;
  phot::GrowthCurve::Window w_;
  int jlo_, jhi_, lane_;
  double &a_, &b_;
  int bins_[phot::GrowthCurve::kSub];
};

// The growth curve's fill of bins [jlo, jhi) by a warp, lane l holding bins l and l + 32 in
// bin_a and bin_b; cumul[jlo .. jhi) then set as phot::flux_radius sets it (lane 0 writes).
__device__ inline void growth_fill_warp(const phot::GrowthCurve& g, int jlo, int jhi, int lane,
                                        double& bin_a, double& bin_b, WarpScratch w) {
  double* cumul = w.cumul;
  GrowthWarp sum(g, jlo, jhi, lane, bin_a, bin_b);
  warp_sum_box(sum, sum.box(), lane, w);
  // cumul[j] = growth[j] + cumul[j - 1], in order, on every lane; lane 0 keeps it.
  double c = jlo ? cumul[jlo - 1] : 0.0;
  for (int j = jlo; j < jhi; ++j) {
    const double gj = __shfl_sync(kFullWarp, j < 32 ? bin_a : bin_b, j & 31);
    c = gj + (j ? c : 0.0);
    if (lane == 0) cumul[j] = c;
  }
  __syncwarp();
}

// The growth curve's first fill (GrowthCurve::kFirstFill bins, which every object makes
// whatever its flux) by a warp: cumul[0 .. kFirstFill) into `first`.
__device__ inline void growth_first_fill_warp(const phot::View& f, const ApertureShape& s,
                                              double min_rlim, double* first, int lane,
                                              WarpScratch w) {
  constexpr int kFirst = phot::GrowthCurve::kFirstFill;
  static_assert(kFirst <= 32, "a lane per bin of the first fill");
  uint16_t flags = 0;  // the finishing warp makes the same curve, and its flags, again
  const phot::GrowthCurve g(f, s, min_rlim, flags);
  double bin_a = 0, bin_b = 0;
  growth_fill_warp(g, 0, kFirst, lane, bin_a, bin_b, w);
  if (lane < kFirst) first[lane] = w.cumul[lane];
  __syncwarp();
}

// phot::flux_radius by a warp. Lane 0 writes the radii. `first`, when not null: the first
// fill's cumul[0 .. kFirstFill) made already (growth_first_fill_warp), from which it goes on.
__device__ inline void flux_radius_warp(const phot::View& f, const ApertureShape& s,
                                        float flux_auto, const double* fractions, int count,
                                        double min_rlim, float* out, uint16_t& flags,
                                        float* hl_radius, int lane, WarpScratch w,
                                        const double* first = nullptr) {
  constexpr int kFirst = phot::GrowthCurve::kFirstFill;
  double* cumul = w.cumul;
  const phot::GrowthCurve g(f, s, min_rlim, flags);
  double bin_a = 0, bin_b = 0;  // growth[lane], growth[lane + 32]
  cumul[lane] = first && lane < kFirst ? first[lane] : 0.0;
  cumul[lane + 32] = 0;
  __syncwarp();
  auto fill = [&](int jlo, int jhi) { growth_fill_warp(g, jlo, jhi, lane, bin_a, bin_b, w); };
  g.fill_outward(fill, cumul, fractions, count, flux_auto, hl_radius != nullptr,
                 first ? kFirst : 0);
  if (lane == 0) g.radii(cumul, fractions, count, flux_auto, out, hl_radius);
  __syncwarp();
}

// How the warp of `lane` sums a box and runs the growth curve, for measure_object_with.
struct WarpSumBox {
  int lane;
  WarpScratch w;
  template <class Sum>
  __device__ void operator()(Sum& sum) const {
    warp_sum_box(sum, sum.box, lane, w);
  }
};
struct WarpFluxRadius {
  int lane;
  WarpScratch w;
  __device__ void operator()(const phot::View& f, const ApertureShape& s, float flux_auto,
                             const double* fractions, int count, double min_rlim, float* out,
                             uint16_t& flags, float* hl_radius) const {
    flux_radius_warp(f, s, flux_auto, fractions, count, min_rlim, out, flags, hl_radius, lane, w);
  }
};

// measure_object (measure_object.hpp) by the warp whose lane this is. Lane 0 writes the outputs.
__device__ inline void measure_object_warp(const PhotometryArgs& a, int64_t i, int lane,
                                           WarpScratch w) {
  measure_object_with(a, i, WarpSumBox{lane, w}, WarpFluxRadius{lane, w}, lane == 0);
}

}  // namespace celeris::extract::gpu
