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

// 10^k for k = 0 .. 38 (10^38 < 2^127).
constexpr std::array<u128, 39> kPow10 = [] {
  std::array<u128, 39> t{};
  u128 v = 1;
  for (auto& p : t) {
    p = v;
    v *= 10;
  }
  return t;
}();

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

// "00" .. "99": two digits per division.
constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> t{};
  for (int i = 0; i < 100; ++i) {
    t[static_cast<size_t>(2 * i)] = static_cast<char>('0' + i / 10);
    t[static_cast<size_t>(2 * i + 1)] = static_cast<char>('0' + i % 10);
  }
  return t;
}();

// v's last `width` decimal digits at `to`, zeros in front.
void write_padded(char* to, uint64_t v, int width) {
  int i = width;
  for (; i >= 2; i -= 2) {
    std::memcpy(to + i - 2, kDigitPairs.data() + 2 * (v % 100), 2);
    v /= 100;
  }
  if (i == 1) to[0] = static_cast<char>('0' + v % 10);
}

// v's decimal digits at `to`; returns how many.
int write_digits(char* to, uint64_t v) {
  int n = 1;
  for (uint64_t t = v; t >= 10; t /= 10) ++n;
  write_padded(to, v, n);
  return n;
}

constexpr uint64_t pow10_64(int k) {
  return static_cast<uint64_t>(kPow10[static_cast<size_t>(k)]);
}

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

void NumberFormat::append_snprintf(double value, std::string& out) const {
  char buf[128];
  const int n = integer_
                    ? std::snprintf(buf, sizeof buf, format_.c_str(), static_cast<long long>(value))
                    : std::snprintf(buf, sizeof buf, format_.c_str(), value);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof buf) {
    out.append(buf, static_cast<size_t>(n));
    return;
  }
  std::string big(static_cast<size_t>(n) + 1, '\0');
  if (integer_)
    std::snprintf(big.data(), big.size(), format_.c_str(), static_cast<long long>(value));
  else
    std::snprintf(big.data(), big.size(), format_.c_str(), value);
  out.append(big.data(), static_cast<size_t>(n));
}

size_t NumberFormat::exact_digits(double value, char* to) const {
  if (integer_ || style_ == std::chars_format::scientific) return 0;
  char* p = to;
  if (std::signbit(value))
    *p++ = '-';
  else if (plus_ || space_)
    *p++ = plus_ ? '+' : ' ';
  const double a = std::fabs(value);
  u128 n;
  if (style_ == std::chars_format::fixed) {
    // %.pf: the integer round(a 10^p), the point put p digits from its end.
    if (precision_ > 19 || !(a < 1.8e19) || !scaled_rounded(a, precision_, n) ||
        n > u128{UINT64_MAX})
      return 0;
    const uint64_t unit = pow10_64(precision_), v = static_cast<uint64_t>(n);
    p += write_digits(p, v / unit);
    if (precision_ > 0) {
      *p++ = '.';
      write_padded(p, v % unit, precision_);
      p += precision_;
    }
    return static_cast<size_t>(p - to);
  }
  // %.Pg: x, the exponent of a rounded to P significant digits (the binary exponent's guess,
  // off by one at most, corrected on the rounded integer), then %e's or %f's digits as the C
  // standard chooses between them, trailing zeros removed.
  const int P = precision_;
  if (P > 15 || !(a >= 1e-300) || !(a < 1e300)) return 0;  // zero, subnormal, huge: to_chars
  int e2;
  std::frexp(a, &e2);  // a in [2^(e2 - 1), 2^e2)
  int x = static_cast<int>(std::floor((e2 - 1) * 0.30102999566398120));
  for (int tries = 0;; ++tries) {
    if (tries == 3 || !scaled_rounded(a, P - 1 - x, n)) return 0;
    if (n >= kPow10[P])
      ++x;
    else if (n < kPow10[P - 1])
      --x;
    else
      break;
  }
  const uint64_t v = static_cast<uint64_t>(n);  // P digits
  if (x < -4 || x >= P) {
    char d[16];
    write_padded(d, v, P);
    int last = P;
    while (last > 1 && d[last - 1] == '0') --last;
    *p++ = d[0];
    if (last > 1) {
      *p++ = '.';
      std::memcpy(p, d + 1, static_cast<size_t>(last - 1));
      p += last - 1;
    }
    *p++ = 'e';
    *p++ = x < 0 ? '-' : '+';
    const int ax = std::abs(x);
    if (ax < 10) *p++ = '0';
    p += write_digits(p, static_cast<uint64_t>(ax));
    return static_cast<size_t>(p - to);
  }
  const int decimals = P - 1 - x;  // 0 .. P + 3
  const uint64_t unit = pow10_64(decimals);
  p += write_digits(p, v / unit);
  if (decimals > 0) {
    char* point = p;
    *p++ = '.';
    write_padded(p, v % unit, decimals);
    p += decimals;
    while (p[-1] == '0') --p;
    if (p - 1 == point) p = point;
  }
  return static_cast<size_t>(p - to);
}

void NumberFormat::append(double value, std::string& out, bool blank_before) const {
  if (!fast_ || !std::isfinite(value)) {
    if (blank_before) out += ' ';
    append_snprintf(value, out);
    return;
  }
  // The cell is made after room for its padding (width_ is at most 200 here) and the blank
  // before it, then appended in one piece.
  constexpr size_t kFront = 208;
  char buf[kFront + 640];
  char* const start = buf + kFront;
  char* first = start;
  char* last = start;
  if (const size_t exact = exact_digits(value, start)) {
    last = start + exact;
  } else {
    char* const digits = start + 1;  // room for a sign in front
    std::to_chars_result r;
    if (integer_) {
      const long long v = static_cast<long long>(value);
      r = unsigned_ ? std::to_chars(digits, digits + 400, static_cast<unsigned long long>(v))
                    : std::to_chars(digits, digits + 400, v);
    } else {
      r = std::to_chars(digits, digits + 400, value, style_, precision_);
    }
    if (r.ec != std::errc()) {
      if (blank_before) out += ' ';
      append_snprintf(value, out);
      return;
    }
    first = digits;
    last = r.ptr;
    if (*digits != '-' && (plus_ || space_) && !(integer_ && unsigned_)) {
      *--first = plus_ ? '+' : ' ';
    }
  }
  if (upper_)
    for (char* p = first; p != last; ++p) *p = static_cast<char>(std::toupper(*p));
  const size_t len = static_cast<size_t>(last - first);
  const size_t pad = static_cast<size_t>(width_) > len ? static_cast<size_t>(width_) - len : 0;
  if (left_) {
    std::memset(last, ' ', pad);
    last += pad;
  } else {
    first -= pad;
    std::memset(first, ' ', pad);
  }
  if (blank_before) *--first = ' ';
  out.append(first, static_cast<size_t>(last - first));
}

}  // namespace celeris
