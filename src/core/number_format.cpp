#include "core/number_format.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>

namespace celeris {

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

void NumberFormat::append(double value, std::string& out) const {
  if (!fast_ || !std::isfinite(value)) {
    append_snprintf(value, out);
    return;
  }
  char buf[400];
  char* const digits = buf + 1;  // room for a sign in front
  std::to_chars_result r;
  if (integer_) {
    const long long v = static_cast<long long>(value);
    r = unsigned_ ? std::to_chars(digits, buf + sizeof buf, static_cast<unsigned long long>(v))
                  : std::to_chars(digits, buf + sizeof buf, v);
  } else {
    r = std::to_chars(digits, buf + sizeof buf, value, style_, precision_);
  }
  if (r.ec != std::errc()) {
    append_snprintf(value, out);
    return;
  }
  char* first = digits;
  if (*digits != '-' && (plus_ || space_) && !(integer_ && unsigned_)) {
    *--first = plus_ ? '+' : ' ';
  }
  if (upper_)
    for (char* p = first; p != r.ptr; ++p) *p = static_cast<char>(std::toupper(*p));
  const size_t len = static_cast<size_t>(r.ptr - first);
  const size_t pad = static_cast<size_t>(width_) > len ? static_cast<size_t>(width_) - len : 0;
  if (!left_) out.append(pad, ' ');
  out.append(first, len);
  if (left_) out.append(pad, ' ');
}

}  // namespace celeris
