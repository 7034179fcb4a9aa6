// One printf conversion of a catalog column ("%10.4f", "%+11.7f", "%18.10e", "%12.7g", "%8d"),
// parsed once and applied with std::to_chars, which the standard defines to give printf's
// digits in the C locale, several times faster than snprintf re-parsing the format for every
// cell. What it does not cover (the 0 and # flags, a format with text around the conversion,
// NaN and infinities) goes through snprintf, so the output is snprintf's in every case.
#pragma once

#include <charconv>
#include <string>

namespace celeris {

class NumberFormat {
 public:
  // `integer`: the cell is printed from a long long (the column holds integers); else from a
  // double. A format that is not one conversion alone is kept for snprintf.
  NumberFormat(const std::string& printf_format, bool integer);

  // Appends the cell's text to `out`.
  void append(double value, std::string& out) const;

 private:
  void append_snprintf(double value, std::string& out) const;

  std::string format_;  // for snprintf (integers widened to ll)
  bool integer_ = false;
  bool fast_ = false;  // one conversion that to_chars covers
  bool left_ = false, plus_ = false, space_ = false, upper_ = false, unsigned_ = false;
  int width_ = 0, precision_ = 6;
  std::chars_format style_ = std::chars_format::fixed;
};

}  // namespace celeris
