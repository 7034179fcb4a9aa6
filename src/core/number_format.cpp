#include "core/number_format.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

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
      cell_.left = true;
    else if (f[i] == '+')
      cell_.plus = true;
    else if (f[i] == ' ')
      cell_.space = true;
    else if (f[i] == '0' || f[i] == '#')
      return;  // zero padding and the alternative forms: snprintf's
    else
      break;
  }
  for (; i < f.size() && std::isdigit(static_cast<unsigned char>(f[i])); ++i) {
    cell_.width = cell_.width * 10 + (f[i] - '0');
    if (cell_.width > 200) return;
  }
  bool has_precision = false;
  if (i < f.size() && f[i] == '.') {
    has_precision = true;
    cell_.precision = 0;
    for (++i; i < f.size() && std::isdigit(static_cast<unsigned char>(f[i])); ++i) {
      cell_.precision = cell_.precision * 10 + (f[i] - '0');
      if (cell_.precision > 60) return;
    }
  }
  if (i + 1 != f.size()) return;  // length modifiers, text after the conversion
  const char c = f[i];
  if (integer_) {
    if ((c != 'd' && c != 'i' && c != 'u') || has_precision) return;
    cell_.is_unsigned = c == 'u';
    cell_.style = number_cell::Style::Integer;
    fast_ = true;
    return;
  }
  switch (c) {
    case 'f':
      style_ = std::chars_format::fixed;
      cell_.style = number_cell::Style::Fixed;
      break;
    case 'e':
    case 'E':
      style_ = std::chars_format::scientific;
      cell_.style = number_cell::Style::Scientific;
      break;
    case 'g':
    case 'G':
      style_ = std::chars_format::general;
      cell_.style = number_cell::Style::General;
      if (cell_.precision == 0) cell_.precision = 1;  // %.0g prints one significant digit
      break;
    default:
      return;
  }
  cell_.upper = c == 'E' || c == 'G';
  fast_ = true;
}

int NumberFormat::snprintf_cell(double value, char* to, size_t room) const {
  return integer_ ? std::snprintf(to, room, format_.c_str(), static_cast<long long>(value))
                  : std::snprintf(to, room, format_.c_str(), value);
}

size_t NumberFormat::exact_cell(double value, char* to) const {
  number_cell::CellDigits d;
  if (!number_cell::cell_digits(cell_, value, d)) return 0;
  return static_cast<size_t>(number_cell::write_cell<true>(cell_, d, to) - to);
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
  const std::to_chars_result r = std::to_chars(start, start + 600, value, style_, cell_.precision);
  if (r.ec != std::errc()) return by_snprintf();  // not expected
  char* first = start;
  char* const last = r.ptr;
  if (*start != '-' && (cell_.plus || cell_.space)) *--first = cell_.plus ? '+' : ' ';
  if (cell_.upper)
    for (char* q = first; q != last; ++q) *q = static_cast<char>(std::toupper(*q));
  const size_t len = static_cast<size_t>(last - first);
  const size_t pad =
      static_cast<size_t>(cell_.width) > len ? static_cast<size_t>(cell_.width) - len : 0;
  if (!cell_.left) {
    std::memset(p, ' ', pad);
    p += pad;
  }
  std::memcpy(p, first, len);
  p += len;
  if (cell_.left) {
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
