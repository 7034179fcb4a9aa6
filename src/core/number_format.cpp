#include "core/number_format.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace celeris {

namespace {

using u128 = unsigned __int128;

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

// 10^k for k = 0 .. 38 (10^38 < 2^127).
constexpr std::array<u128, 39> kPow10 = powers_of_ten<u128, 39>();

int bit_length(u128 v) {
  const uint64_t hi = static_cast<uint64_t>(v >> 64), lo = static_cast<uint64_t>(v);
  if (hi) return 128 - __builtin_clzll(hi);
  return lo ? 64 - __builtin_clzll(lo) : 0;
}

// a 10^k (a finite, not negative) rounded to an integer as printf rounds its last digit: to
// nearest, an exact tie to even. Exact: a is m 2^e, and m 10^k, shifted or divided, is carried in
// 128 bits. False where those bits would not hold it (the caller then takes to_chars).
bool scaled_rounded(double a, int k, u128& n) {
  uint64_t bits;
  std::memcpy(&bits, &a, sizeof bits);
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
    if (k > 38 || bit_length(m) + bit_length(kPow10[k]) > 127) return false;
    const u128 num = u128{m} * kPow10[k];
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
  u128 num = m, d = kPow10[-k];
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

// 10^k for k = 0 .. 22: the powers of ten a double holds exactly.
constexpr std::array<double, 23> kPow10d = powers_of_ten<double, 23>();

// scaled_rounded's answer, from one double multiplication (or division) where that decides it:
// for |k| <= 22, s = a 10^k rounded to a double lies within half an ulp of the exact product
// (10^k exact, one correctly rounded operation), that is within s 2^-53. Rounding to an integer
// changes only at the half-integers, so where s lies farther than s 2^-50 from the nearest one,
// the exact product rounds to the same integer as s, and no tie is possible. Most catalog
// values are decided here; the others (near a half-integer, or s >= 2^52, where s's fraction
// is no longer held) take the exact road.
bool rounded_scaled(double a, int k, u128& n) {
  if (k >= -22 && k <= 22) {
    const double s =
        k >= 0 ? a * kPow10d[static_cast<size_t>(k)] : a / kPow10d[static_cast<size_t>(-k)];
    if (s < 0x1p52) {
      // The whole part by truncation (s >= 0), the fraction exact below 2^52.
      const uint64_t whole = static_cast<uint64_t>(s);
      const double frac = s - static_cast<double>(whole);
      if (std::fabs(frac - 0.5) > s * 0x1p-50) {
        n = static_cast<u128>(whole + (frac > 0.5 ? 1 : 0));
        return true;
      }
    }
  }
  return scaled_rounded(a, k, n);
}

// "00" .. "99": two digits per division.
constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> t{};
  for (int i = 0; i < 100; ++i) {
    t[static_cast<size_t>(2 * i)] = static_cast<char>('0' + i / 10);
    t[static_cast<size_t>(2 * i + 1)] = static_cast<char>('0' + i % 10);
  }
  return t;
}();

// The digits of q with a point `decimals` digits from their end (zeros in front where q has
// fewer; at least one digit before the point), written backwards so that they end at `end`:
// returns their first character.
template <class U>
char* digits_back(char* end, U q, int decimals) {
  char* e = end;
  const bool point = decimals > 0;
  for (; decimals >= 2; decimals -= 2) {
    e -= 2;
    std::memcpy(e, kDigitPairs.data() + 2 * (q % 100), 2);
    q /= 100;
  }
  if (decimals == 1) {
    *--e = static_cast<char>('0' + q % 10);
    q /= 10;
  }
  if (point) *--e = '.';
  while (q >= 100) {
    e -= 2;
    std::memcpy(e, kDigitPairs.data() + 2 * (q % 100), 2);
    q /= 100;
  }
  if (q >= 10) {
    e -= 2;
    std::memcpy(e, kDigitPairs.data() + 2 * q, 2);
  } else {
    *--e = static_cast<char>('0' + q);
  }
  return e;
}

// 10^k for k = 0 .. 19, in 64 bits.
constexpr std::array<uint64_t, 20> kPow10u = powers_of_ten<uint64_t, 20>();

}  // namespace

NumberFormat::NumberFormat(const std::string& printf_format, bool integer)
    : format_(printf_format), integer_(integer) {
  // Integers print from long long: "%10d" -> "%10lld".
  if (integer_ && !format_.empty() &&
      (format_.back() == 'd' || format_.back() == 'u' || format_.back() == 'i'))
    format_.insert(format_.size() - 1, "ll");
  // %[-+ ]*[width][.precision]conversion, and nothing else.
  const std::string& f = printf_format;
  size_t i = 0;
  if (i >= f.size() || f[i++] != '%') return;
  for (; i < f.size(); ++i) {
    if (f[i] == '-')
      left_ = true;
    else if (f[i] == '+')
      plus_ = true;
    else if (f[i] == ' ')
      space_ = true;
    else if (f[i] == '0' || f[i] == '#')
      return;  // zero padding and the alternative forms: snprintf's
    else
      break;
  }
  for (; i < f.size() && std::isdigit(static_cast<unsigned char>(f[i])); ++i) {
    width_ = width_ * 10 + (f[i] - '0');
    if (width_ > 200) return;
  }
  bool has_precision = false;
  if (i < f.size() && f[i] == '.') {
    has_precision = true;
    precision_ = 0;
    for (++i; i < f.size() && std::isdigit(static_cast<unsigned char>(f[i])); ++i) {
      precision_ = precision_ * 10 + (f[i] - '0');
      if (precision_ > 60) return;
    }
  }
  if (i + 1 != f.size()) return;  // length modifiers, text after the conversion
  const char c = f[i];
  if (integer_) {
    if ((c != 'd' && c != 'i' && c != 'u') || has_precision) return;
    unsigned_ = c == 'u';
    fast_ = true;
    return;
  }
  switch (c) {
    case 'f':
      style_ = std::chars_format::fixed;
      break;
    case 'e':
    case 'E':
      style_ = std::chars_format::scientific;
      break;
    case 'g':
    case 'G':
      style_ = std::chars_format::general;
      if (precision_ == 0) precision_ = 1;  // %.0g prints one significant digit
      break;
    default:
      return;
  }
  upper_ = c == 'E' || c == 'G';
  fast_ = true;
}

int NumberFormat::snprintf_cell(double value, char* to, size_t room) const {
  return integer_ ? std::snprintf(to, room, format_.c_str(), static_cast<long long>(value))
                  : std::snprintf(to, room, format_.c_str(), value);
}

size_t NumberFormat::exact_cell(double value, char* to) const {
  // The cell: `sign`, the digits of n with a point `decimals` digits from their end (at least one
  // digit before it; no point when 0), then with `exponent` "e", x's sign and two or three digits.
  char sign;
  uint64_t n = 0;
  int decimals = 0, x = 0;
  bool exponent = false;
  if (integer_) {
    // %d of the value as a long long (printf's argument), %u of that long long's bits.
    const long long v = static_cast<long long>(value);
    const bool negative = v < 0 && !unsigned_;
    sign = negative ? '-' : unsigned_ ? '\0' : plus_ ? '+' : space_ ? ' ' : '\0';
    n = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  } else {
    sign = std::signbit(value) ? '-' : plus_ ? '+' : space_ ? ' ' : '\0';
    const double a = std::fabs(value);
    u128 r;
    if (style_ == std::chars_format::fixed) {
      // %.pf: the integer round(a 10^p), the point put p digits from its end.
      if (precision_ > 19 || !(a < 1.8e19) || !rounded_scaled(a, precision_, r) ||
          r > u128{UINT64_MAX})
        return 0;
      n = static_cast<uint64_t>(r);
      decimals = precision_;
    } else {
      // %.Pg: x, the exponent of a rounded to P significant digits (the binary exponent's
      // guess, off by one at most, corrected on the rounded integer), then %e's or %f's digits
      // as the C standard chooses between them, trailing zeros removed. %.pe: the same with
      // p + 1 significant digits, always %e's form, every digit kept.
      const bool scientific = style_ == std::chars_format::scientific;
      const int P = scientific ? precision_ + 1 : precision_;
      if (P > 15 || !(a >= 1e-300) || !(a < 1e300)) return 0;  // zero, subnormal, huge
      // a's binary exponent from its bits (a is normal here): a in [2^b, 2^(b + 1)); then
      // floor(b log10(2)) in integers (78913 / 2^18 ~ log10(2); >> floors negative values).
      uint64_t bits;
      std::memcpy(&bits, &a, sizeof bits);
      const int b = static_cast<int>(bits >> 52) - 1023;
      x = (b * 78913) >> 18;
      for (int tries = 0;; ++tries) {
        if (tries == 3 || !rounded_scaled(a, P - 1 - x, r)) return 0;
        if (r >= kPow10[P])
          ++x;
        else if (r < kPow10[P - 1])
          --x;
        else
          break;
      }
      n = static_cast<uint64_t>(r);  // P digits
      exponent = scientific || x < -4 || x >= P;
      decimals = exponent ? P - 1 : P - 1 - x;  // %e's one digit before the point, or %f's
      while (!scientific && decimals > 0 && n % 10 == 0) {
        n /= 10;
        --decimals;
      }
    }
  }
  // The length first, so that the characters are written in their place after the padding
  // (written elsewhere and copied, they are read back before their stores have left: a stall).
  int digits = 1;
  while (digits < 20 && n >= kPow10u[static_cast<size_t>(digits)]) ++digits;
  const int ax = std::abs(x);
  const size_t exp_len = exponent ? (ax >= 100 ? 5u : 4u) : 0u;
  const size_t len = (sign ? 1u : 0u) + static_cast<size_t>(std::max(digits, decimals + 1)) +
                     (decimals > 0 ? 1u : 0u) + exp_len;
  const size_t pad = static_cast<size_t>(width_) > len ? static_cast<size_t>(width_) - len : 0;
  char* const start = left_ ? to : to + pad;
  if (!left_) {
    // A short padding (nearly all) by a store of fixed length (a few moves, not a call to
    // memset; `to` has the room), the characters then written over its end.
    if (pad <= 32)
      std::memset(to, ' ', 32);
    else
      std::memset(to, ' ', pad);
  }
  char* const digits_end = start + len - exp_len;
  // The digits from the last one back, in pairs: in 32 bits where n fits there (nearly always).
  char* first = n <= UINT32_MAX ? digits_back(digits_end, static_cast<uint32_t>(n), decimals)
                                : digits_back(digits_end, n, decimals);
  if (sign) *--first = sign;
  char* p = digits_end;
  if (exponent) {
    *p++ = upper_ ? 'E' : 'e';
    *p++ = x < 0 ? '-' : '+';
    if (ax >= 100) *p++ = static_cast<char>('0' + ax / 100);
    std::memcpy(p, kDigitPairs.data() + 2 * (ax % 100), 2);
    p += 2;
  }
  if (left_) {
    std::memset(p, ' ', pad);
    p += pad;
  }
  return static_cast<size_t>(p - to);
}

char* NumberFormat::write(double value, char* to, bool blank_before) const {
  char* p = to;
  if (blank_before) *p++ = ' ';
  // snprintf's text, at p, or nullptr where it does not fit.
  const auto by_snprintf = [&]() -> char* {
    const size_t room = kCellRoom - static_cast<size_t>(p - to);
    const int n = snprintf_cell(value, p, room);
    if (n < 0) return p;  // nothing written
    return static_cast<size_t>(n) >= room ? nullptr : p + n;
  };
  if (!fast_ || !std::isfinite(value)) return by_snprintf();
  // exact_cell takes every integer; a float outside its road: to_chars' digits at `start` (room
  // for a sign before them), then copied after their padding.
  if (const size_t exact = exact_cell(value, p)) return p + exact;
  char digits[8 + 640];
  char* const start = digits + 8;
  const std::to_chars_result r = std::to_chars(start, start + 600, value, style_, precision_);
  if (r.ec != std::errc()) return by_snprintf();  // not expected
  char* first = start;
  char* const last = r.ptr;
  if (*start != '-' && (plus_ || space_)) *--first = plus_ ? '+' : ' ';
  if (upper_)
    for (char* q = first; q != last; ++q) *q = static_cast<char>(std::toupper(*q));
  const size_t len = static_cast<size_t>(last - first);
  const size_t pad = static_cast<size_t>(width_) > len ? static_cast<size_t>(width_) - len : 0;
  if (!left_) {
    std::memset(p, ' ', pad);
    p += pad;
  }
  std::memcpy(p, first, len);
  p += len;
  if (left_) {
    std::memset(p, ' ', pad);
    p += pad;
  }
  return p;
}

void NumberFormat::append(double value, std::string& out, bool blank_before) const {
  char cell[kCellRoom];
  if (const char* end = write(value, cell, blank_before)) {
    out.append(cell, static_cast<size_t>(end - cell));
    return;
  }
  // snprintf's text, longer than a cell's room: sized first, then written in place.
  if (blank_before) out += ' ';
  const int n = snprintf_cell(value, nullptr, 0);
  if (n <= 0) return;
  const size_t at = out.size();
  out.resize(at + static_cast<size_t>(n) + 1);
  snprintf_cell(value, out.data() + at, static_cast<size_t>(n) + 1);
  out.resize(at + static_cast<size_t>(n));
}

}  // namespace celeris
