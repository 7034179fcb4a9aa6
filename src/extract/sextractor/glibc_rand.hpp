// The C library's rand() as glibc implements it (TYPE_3 additive feedback generator, default
// seed 1). SExtractor draws its deblending pixel assignments from this unseeded stream, so
// reproducing its catalogs pixel for pixel needs the same numbers in the same order.
//
// glibc's words follow r[i] = r[i - 3] + r[i - 31] (mod 2^32) and rand() returns r[i] >> 1. The
// recurrence is linear, so any later window of 31 words is a fixed linear combination of the
// current one: discard(n) jumps n numbers ahead in O(31^2 log n) instead of n steps (what a
// stream that starts deep into the sequence, or threads that each make their own slice, need).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace celeris::extract {

class GlibcRand {
 public:
  static constexpr int32_t kRandMax = 2147483647;
  static constexpr int kDegree = 31;  // glibc's TYPE_3 state length (DEG_3)
  static constexpr int kSep = 3;      // and its separation (SEP_3)

  explicit GlibcRand(uint32_t seed = 1) {
    // glibc srandom_r: r[0] = seed, then 16807 r mod (2^31 - 1) (Schrage, no overflow).
    std::array<int32_t, kDegree> r{};
    r[0] = static_cast<int32_t>(seed == 0 ? 1 : seed);
    for (int i = 1; i < kDegree; ++i) {
      const int32_t hi = r[i - 1] / 127773, lo = r[i - 1] % 127773;
      int32_t word = 16807 * lo - 2836 * hi;
      if (word < 0) word += 2147483647;
      r[i] = word;
    }
    // The words r[31..33] are copies of r[0..2] (glibc's pointers start kSep apart), and the
    // recurrence holds from r[34]: the window r[3..33] starts it.
    for (int j = 0; j < kDegree; ++j)
      window_[j] = static_cast<uint32_t>(j + kSep < kDegree ? r[j + kSep] : r[j + kSep - kDegree]);
    // srandom_r then discards 10 * 31 words: the first rand() is r[344].
    for (int i = 0; i < 10 * kDegree; ++i) next_word();
  }

  int32_t operator()() { return static_cast<int32_t>(next_word() >> 1); }

  // The next `count` numbers, as `count` calls would return them: the window laid out flat and
  // the recurrence run along a block, rather than the ring's index arithmetic and wrap per
  // number (0.91 -> 0.37 ns a number on the development machine; a crowded 4096^2 frame's
  // draws 0.21-0.26 -> 0.11-0.17 ms on the H200's host, stop 46).
  void generate(int32_t* out, size_t count) {
    constexpr size_t kBlock = 4096;
    uint32_t w[kDegree + kBlock];
    while (count > 0) {
      const size_t m = std::min(count, kBlock);
      for (int j = 0; j < kDegree; ++j) w[j] = word(j);
      // r[i] = r[i - 31] + r[i - 3]: the last three words in registers (a load of a word stored
      // three steps before stalls on the store), the older one from the block.
      uint32_t a = w[kDegree - 3], b = w[kDegree - 2], c = w[kDegree - 1];
      for (size_t k = 0; k < m; ++k) {
        const uint32_t v = w[k] + a;
        w[k + kDegree] = v;
        out[k] = static_cast<int32_t>(v >> 1);
        a = b;
        b = c;
        c = v;
      }
      for (int j = 0; j < kDegree; ++j) window_[j] = w[m + j];
      head_ = 0;
      out += m;
      count -= m;
    }
  }

  // The state after `n` more calls, without making them.
  void discard(uint64_t n) {
    if (n < 4 * kDegree) {  // a few steps cost less than a polynomial power
      for (uint64_t i = 0; i < n; ++i) next_word();
      return;
    }
    // Window w_j = r[m + j] (j < 31). For the polynomial c(x) = x^n mod P(x), with
    // P(x) = x^31 - x^28 - 1 (the recurrence: x^31 = x^28 + 1), r[m + n] = sum_j c_j w_j:
    // any multiple of P maps to 0 under x^k -> r[m + k]. r[m + n + t] comes from x^t c(x).
    Poly c = power_of_x(n);
    std::array<uint32_t, kDegree> next{};
    for (int t = 0; t < kDegree; ++t) {
      uint32_t v = 0;
      for (int j = 0; j < kDegree; ++j) v += c[j] * word(j);
      next[t] = v;
      c = times_x(c);
    }
    window_ = next;
    head_ = 0;
  }

 private:
  using Poly = std::array<uint32_t, kDegree>;  // coefficients of x^0 .. x^30, mod P(x)

  // r[m + j] of the current window.
  uint32_t word(int j) const {
    const int k = head_ + j;
    return window_[k < kDegree ? k : k - kDegree];
  }

  uint32_t next_word() {
    // r[m + 31] = r[m + 28] + r[m], written over r[m], the oldest word.
    const uint32_t v = window_[head_] + word(kDegree - kSep);
    window_[head_] = v;
    head_ = head_ + 1 == kDegree ? 0 : head_ + 1;
    return v;
  }

  // x a(x) mod P.
  static Poly times_x(const Poly& a) {
    Poly b{};
    const uint32_t top = a[kDegree - 1];
    for (int j = kDegree - 1; j > 0; --j) b[j] = a[j - 1];
    b[kDegree - kSep] += top;  // x^31 = x^28 + 1
    b[0] += top;
    return b;
  }

  // a(x) b(x) mod P.
  static Poly times(const Poly& a, const Poly& b) {
    std::array<uint32_t, 2 * kDegree - 1> prod{};
    for (int i = 0; i < kDegree; ++i)
      for (int j = 0; j < kDegree; ++j) prod[i + j] += a[i] * b[j];
    // From the top: x^d = x^(d - 3) + x^(d - 31); d - 3 may still be >= 31, reduced later.
    for (int d = 2 * kDegree - 2; d >= kDegree; --d) {
      prod[d - kSep] += prod[d];
      prod[d - kDegree] += prod[d];
    }
    Poly r;
    for (int j = 0; j < kDegree; ++j) r[j] = prod[j];
    return r;
  }

  // x^n mod P, by squaring from the top bit.
  static Poly power_of_x(uint64_t n) {
    Poly r{};
    r[0] = 1;
    for (int bit = 63 - std::countl_zero(n); bit >= 0; --bit) {
      r = times(r, r);
      if ((n >> bit) & 1) r = times_x(r);
    }
    return r;
  }

  std::array<uint32_t, kDegree> window_{};  // r[m .. m + 30], r[m + j] at (head_ + j) mod 31
  int head_ = 0;
};

// Numbers [skip, skip + count) of the stream from seed 1 into out[0 .. count), made by up to
// `threads` threads: each jumps to the start of its own slice (slices of at least 2^16 numbers,
// against the jump's cost of a few tens of microseconds). The team has `threads` threads even
// when there are fewer slices: libgomp ends the threads a smaller team leaves out, and the next
// stage's full team would start them again.
inline void glibc_rand_stream(uint64_t skip, int32_t* out, size_t count, int threads) {
  constexpr size_t kMinSlice = size_t{1} << 16;
  const int team = std::max(threads, 1);
  const size_t parts = std::clamp<size_t>(count / kMinSlice, 1, static_cast<size_t>(team));
#pragma omp parallel for schedule(static, 1) num_threads(team)
  for (size_t p = 0; p < parts; ++p) {
    const size_t begin = count * p / parts, end = count * (p + 1) / parts;
    GlibcRand rng;
    rng.discard(skip + begin);
    rng.generate(out + begin, end - begin);
  }
}

}  // namespace celeris::extract
