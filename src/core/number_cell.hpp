// The exact road of NumberFormat (number_format.hpp) as functions both g++ and nvcc compile
// (CELERIS_HD): printf's %d, %u, %f, %e and %g of a finite value, by rounding the value times a
// power of ten to an integer as printf rounds (to nearest, an exact tie to even), then writing
// that integer's digits. The host's catalog writer (table_ascii.cpp) and the GPU's
// (core/cuda/ascii_rows.cu) both format their cells here, so their text is the same to the byte.
// A cell outside the road's range is refused (cell_digits false) and left to the caller, which
// takes std::to_chars or snprintf for it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "celeris/host_device.hpp"

namespace celeris::number_cell {

using u128 = unsigned __int128;

// One printf conversion: %[-+ ][width][.precision](d|i|u|f|e|E|g|G), parsed by NumberFormat.
enum class Style : uint8_t { Integer, Fixed, Scientific, General };

struct CellFormat {
  Style style = Style::Fixed;
  bool left = false, plus = false, space = false, upper = false, is_unsigned = false;
  int width = 0, precision = 6;
};

// 10^k for k = 0 .. N - 1, in T (an unsigned type's last product wraps, unused).
template <class T, size_t N>
constexpr std::array<T, N> powers_of_ten() {
  std::array<T, N> t{};
  T v = 1;
  for (auto& p : t) {
    p = v;
    v *= 10;
  }
  return t;
}

// "00" .. "99": two digits per division.
constexpr std::array<char, 200> digit_pairs() {
  std::array<char, 200> t{};
  for (int i = 0; i < 100; ++i) {
    t[static_cast<size_t>(2 * i)] = static_cast<char>('0' + i / 10);
    t[static_cast<size_t>(2 * i + 1)] = static_cast<char>('0' + i % 10);
  }
  return t;
}

// The tables, once for the host and once in the device's memory (a host array's elements are
// not readable from a kernel). 10^38 < 2^127; 10^22 is the largest power of ten a double holds
// exactly.
inline constexpr std::array<u128, 39> kPow10 = powers_of_ten<u128, 39>();
inline constexpr std::array<double, 23> kPow10d = powers_of_ten<double, 23>();
inline constexpr std::array<uint64_t, 20> kPow10u = powers_of_ten<uint64_t, 20>();
inline constexpr std::array<char, 200> kDigitPairs = digit_pairs();
#ifdef __CUDACC__
static __device__ constexpr std::array<u128, 39> kPow10Device = powers_of_ten<u128, 39>();
static __device__ constexpr std::array<double, 23> kPow10dDevice = powers_of_ten<double, 23>();
static __device__ constexpr std::array<uint64_t, 20> kPow10uDevice = powers_of_ten<uint64_t, 20>();
static __device__ constexpr std::array<char, 200> kDigitPairsDevice = digit_pairs();
#endif

// The table `name` as the code being compiled reads it: the device's copy in a kernel.
#ifdef __CUDA_ARCH__
#define CELERIS_CELL_TABLE(name) name##Device
#else
#define CELERIS_CELL_TABLE(name) name
#endif

CELERIS_HD inline u128 pow10_u128(int k) {
  return CELERIS_CELL_TABLE(kPow10)[static_cast<size_t>(k)];
}
CELERIS_HD inline double pow10_double(int k) {
  return CELERIS_CELL_TABLE(kPow10d)[static_cast<size_t>(k)];
}
CELERIS_HD inline uint64_t pow10_u64(int k) {
  return CELERIS_CELL_TABLE(kPow10u)[static_cast<size_t>(k)];
}
CELERIS_HD inline const char* digit_pair(unsigned q) {
  return CELERIS_CELL_TABLE(kDigitPairs).data() + 2 * q;
}

CELERIS_HD inline int leading_zeros(uint64_t v) {
#ifdef __CUDA_ARCH__
  return __clzll(static_cast<long long>(v));
#else
  return __builtin_clzll(v);
#endif
}

CELERIS_HD inline int bit_length(u128 v) {
  const uint64_t hi = static_cast<uint64_t>(v >> 64), lo = static_cast<uint64_t>(v);
  if (hi) return 128 - leading_zeros(hi);
  return lo ? 64 - leading_zeros(lo) : 0;
}

CELERIS_HD inline uint64_t bits_of(double a) {
  uint64_t bits;
  memcpy(&bits, &a, sizeof bits);
  return bits;
}

// |v|, without a branch (the sign bit cleared; std::fabs is not the device's).
CELERIS_HD inline double magnitude(double v) {
  const uint64_t bits = bits_of(v) & ~(uint64_t{1} << 63);
  double a;
  memcpy(&a, &bits, sizeof a);
  return a;
}

// a 10^k (a finite, not negative) rounded to an integer as printf rounds its last digit: to
// nearest, an exact tie to even. Exact: a is m 2^e, and m 10^k, shifted or divided, is carried in
// 128 bits. False where those bits would not hold it (the caller then takes to_chars).
CELERIS_HD inline bool scaled_rounded(double a, int k, u128& n) {
  const uint64_t bits = bits_of(a);
  uint64_t m = bits & ((uint64_t{1} << 52) - 1);
  const int biased = static_cast<int>(bits >> 52);
  int e = -1074;  // a subnormal's
  if (biased != 0) {
    m |= uint64_t{1} << 52;
    e = biased - 1075;
  }
  if (m == 0) {
    n = 0;
    return true;
  }
  if (k >= 0) {
    if (k > 38 || bit_length(m) + bit_length(pow10_u128(k)) > 127) return false;
    const u128 num = u128{m} * pow10_u128(k);
    if (e >= 0) {
      if (bit_length(num) + e > 127) return false;
      n = num << e;
      return true;
    }
    const int s = -e;
    if (s >= 128) {  // num < 2^127 <= 2^(s - 1): below one half
      n = 0;
      return true;
    }
    const u128 q = num >> s, r = num & ((u128{1} << s) - 1), half = u128{1} << (s - 1);
    n = q + ((r > half || (r == half && (q & 1))) ? 1 : 0);
    return true;
  }
  if (-k > 38) return false;
  u128 num = m, d = pow10_u128(-k);
  if (e >= 0) {
    if (bit_length(num) + e > 127) return false;
    num <<= e;
  } else {
    if (bit_length(d) - e > 127) return false;
    d <<= -e;
  }
  const u128 q = num / d, r = num % d, rest = d - r;
  n = q + ((r > rest || (r == rest && (q & 1))) ? 1 : 0);
  return true;
}

// scaled_rounded's answer, from one double multiplication (or division) where that decides it:
// for |k| <= 22, s = a 10^k rounded to a double lies within half an ulp of the exact product
// (10^k exact, one correctly rounded operation), that is within s 2^-53. Rounding to an integer
// changes only at the half-integers, so where s lies farther than s 2^-50 from the nearest one,
// the exact product rounds to the same integer as s, and no tie is possible. Most catalog
// values are decided here; the others (near a half-integer, or s >= 2^52, where s's fraction
// is no longer held) take the exact road. (Kernels using this are compiled with --fmad=false,
// though no product here meets a sum.)
CELERIS_HD inline bool rounded_scaled(double a, int k, u128& n) {
  if (k >= -22 && k <= 22) {
    const double s = k >= 0 ? a * pow10_double(k) : a / pow10_double(-k);
    if (s < 0x1p52) {
      // The whole part by truncation (s >= 0), the fraction exact below 2^52.
      const uint64_t whole = static_cast<uint64_t>(s);
      const double frac = s - static_cast<double>(whole);
      if (magnitude(frac - 0.5) > s * 0x1p-50) {
        n = static_cast<u128>(whole + (frac > 0.5 ? 1 : 0));
        return true;
      }
    }
  }
  return scaled_rounded(a, k, n);
}

// The digits of q with a point `decimals` digits from their end (zeros in front where q has
// fewer; at least one digit before the point), written backwards so that they end at `end`:
// returns their first character.
template <class U>
CELERIS_HD inline char* digits_back(char* end, U q, int decimals) {
  char* e = end;
  const bool point = decimals > 0;
  for (; decimals >= 2; decimals -= 2) {
    e -= 2;
    memcpy(e, digit_pair(static_cast<unsigned>(q % 100)), 2);
    q /= 100;
  }
  if (decimals == 1) {
    *--e = static_cast<char>('0' + q % 10);
    q /= 10;
  }
  if (point) *--e = '.';
  while (q >= 100) {
    e -= 2;
    memcpy(e, digit_pair(static_cast<unsigned>(q % 100)), 2);
    q /= 100;
  }
  if (q >= 10) {
    e -= 2;
    memcpy(e, digit_pair(static_cast<unsigned>(q)), 2);
  } else {
    *--e = static_cast<char>('0' + q);
  }
  return e;
}

// A cell decided: `sign` ('\0' for none), the digits of n with a point `decimals` digits from
// their end (at least one digit before it; no point when 0), then with `exponent` "e", x's sign
// and two or three digits; `length` characters in all, before the padding to the width.
struct CellDigits {
  char sign = '\0';
  bool exponent = false;
  int decimals = 0, x = 0;
  uint64_t n = 0;
  int length = 0;
  CELERIS_HD int exponent_length() const {
    const int ax = x < 0 ? -x : x;
    return exponent ? (ax >= 100 ? 5 : 4) : 0;
  }
};

// %d and %u of the value as a long long (printf's argument: the caller has checked that it holds
// it), and %f, %e or %g of a finite value by exact integer rounding. False where the value lies
// outside the road's range.
CELERIS_HD inline bool cell_digits(const CellFormat& f, double value, CellDigits& d) {
  if (f.style == Style::Integer) {
    // %d of the value as a long long, %u of that long long's bits.
    const long long v = static_cast<long long>(value);
    const bool negative = v < 0 && !f.is_unsigned;
    d.sign = negative ? '-' : f.is_unsigned ? '\0' : f.plus ? '+' : f.space ? ' ' : '\0';
    d.n = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  } else {
    const uint64_t bits = bits_of(value);
    const bool negative = bits >> 63;
    d.sign = negative ? '-' : f.plus ? '+' : f.space ? ' ' : '\0';
    const double a = magnitude(value);
    u128 r;
    if (f.style == Style::Fixed) {
      // %.pf: the integer round(a 10^p), the point put p digits from its end.
      if (f.precision > 19 || !(a < 1.8e19) || !rounded_scaled(a, f.precision, r) ||
          r > u128{UINT64_MAX})
        return false;
      d.n = static_cast<uint64_t>(r);
      d.decimals = f.precision;
    } else {
      // %.Pg: x, the exponent of a rounded to P significant digits (the binary exponent's
      // guess, off by one at most, corrected on the rounded integer), then %e's or %f's digits
      // as the C standard chooses between them, trailing zeros removed. %.pe: the same with
      // p + 1 significant digits, always %e's form, every digit kept.
      const bool scientific = f.style == Style::Scientific;
      const int P = scientific ? f.precision + 1 : f.precision;
      if (P > 15 || !(a >= 1e-300) || !(a < 1e300)) return false;  // zero, subnormal, huge
      // a's binary exponent from its bits (a is normal here): a in [2^b, 2^(b + 1)); then
      // floor(b log10(2)) in integers (78913 / 2^18 ~ log10(2); >> floors negative values).
      const int b = static_cast<int>(bits_of(a) >> 52) - 1023;
      int x = (b * 78913) >> 18;
      for (int tries = 0;; ++tries) {
        if (tries == 3 || !rounded_scaled(a, P - 1 - x, r)) return false;
        if (r >= pow10_u128(P))
          ++x;
        else if (r < pow10_u128(P - 1))
          --x;
        else
          break;
      }
      uint64_t n = static_cast<uint64_t>(r);  // P digits
      d.x = x;
      d.exponent = scientific || x < -4 || x >= P;
      int decimals = d.exponent ? P - 1 : P - 1 - x;  // %e's one digit before the point, or %f's
      while (!scientific && decimals > 0 && n % 10 == 0) {
        n /= 10;
        --decimals;
      }
      d.n = n;
      d.decimals = decimals;
    }
  }
  int digits = 1;
  while (digits < 20 && d.n >= pow10_u64(digits)) ++digits;
  d.length = (d.sign ? 1 : 0) + (digits > d.decimals + 1 ? digits : d.decimals + 1) +
             (d.decimals > 0 ? 1 : 0) + d.exponent_length();
  return true;
}

// The cell's characters with its padding: max(width, d.length) of them.
CELERIS_HD inline int cell_length(const CellFormat& f, const CellDigits& d) {
  return f.width > d.length ? f.width : d.length;
}

// Writes the cell (cell_length characters) at `to` and returns its end. kWideStores: `to` has
// room for 32 more characters than the cell, which a short padding's store may overwrite (a few
// moves rather than a call to memset; the host's writer, where later cells overwrite them);
// else exactly the cell's characters are stored (the GPU's, where other threads write beside).
template <bool kWideStores>
CELERIS_HD inline char* write_cell(const CellFormat& f, const CellDigits& d, char* to) {
  const int pad = f.width > d.length ? f.width - d.length : 0;
  char* const start = f.left ? to : to + pad;
  if (!f.left) {
    if (kWideStores && pad <= 32)
      memset(to, ' ', 32);
    else
      for (int i = 0; i < pad; ++i) to[i] = ' ';
  }
  const int exp_len = d.exponent_length();
  char* const digits_end = start + d.length - exp_len;
  // The digits from the last one back, in pairs: in 32 bits where n fits there (nearly always).
  char* first = d.n <= UINT32_MAX ? digits_back(digits_end, static_cast<uint32_t>(d.n), d.decimals)
                                  : digits_back(digits_end, d.n, d.decimals);
  if (d.sign) *--first = d.sign;
  char* p = digits_end;
  if (d.exponent) {
    const int ax = d.x < 0 ? -d.x : d.x;
    *p++ = f.upper ? 'E' : 'e';
    *p++ = d.x < 0 ? '-' : '+';
    if (ax >= 100) *p++ = static_cast<char>('0' + ax / 100);
    memcpy(p, digit_pair(static_cast<unsigned>(ax % 100)), 2);
    p += 2;
  }
  if (f.left) {
    for (int i = 0; i < pad; ++i) *p++ = ' ';
  }
  return p;
}

}  // namespace celeris::number_cell
