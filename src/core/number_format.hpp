// One printf conversion of a catalog column ("%10.4f", "%+11.7f", "%18.10e", "%12.7g", "%8d"),
// parsed once and applied with std::to_chars, which the standard defines to give printf's
// digits in the C locale, several times faster than snprintf re-parsing the format for every
// cell. %f, %e and %g of the values a catalog holds take a shorter road still: the value times a
// power of ten rounded to an integer as printf rounds (to even on an exact tie), from one double
// operation where that decides it and else exactly in 128-bit integers, then the integer's
// digits (core/number_cell.hpp, shared with the GPU's catalog writer); values outside that
// road's range go to to_chars.
// What neither covers (the 0 and # flags, a format with text around the conversion, NaN and
// infinities) goes through snprintf, so the output is snprintf's in every case.
#pragma once

#include <charconv>
#include <cstddef>
#include <string>

#include "core/number_cell.hpp"

namespace celeris {

class NumberFormat {
 public:
  // `integer`: the cell is printed from a long long (the column holds integers); else from a
  // double. A format that is not one conversion alone is kept for snprintf.
  NumberFormat(const std::string& printf_format, bool integer);

  // The field width (0 without one): a cell's length, unless its digits need more.
  int width() const { return cell_.width; }
  // The conversion as number_cell.hpp takes it, where it is one that road covers (the cells it
  // refuses, non-finite values among them, still need write()); else nullptr.
  const number_cell::CellFormat* exact_format() const { return fast_ ? &cell_ : nullptr; }
  // Appends the cell's text to `out` (a blank before it with `blank_before`).
  void append(double value, std::string& out, bool blank_before = false) const;
  // Room that write() may use at its destination.
  static constexpr size_t kCellRoom = 1024;
  // Writes the cell's text (a blank before it with `blank_before`) at `to`, which has kCellRoom
  // characters of room, and returns its end; nullptr where the text (snprintf's, of a format
  // outside the fast road) would not fit: append() then. Cheaper than append() for a
  // catalog's cells, written one after the other into one buffer (table_ascii.cpp).
  char* write(double value, char* to, bool blank_before = false) const;

 private:
  // snprintf of the cell into `to` (`room` characters, the terminating zero included): its
  // return value, the text's whole length.
  int snprintf_cell(double value, char* to, size_t room) const;
  // %d and %u, and %f, %e or %g of a finite value by exact integer rounding: the cell, padded to
  // its width, written at `to` (kCellRoom of room) and its length returned, or 0 where the value
  // lies outside the road's range.
  size_t exact_cell(double value, char* to) const;

  std::string format_;  // for snprintf (integers widened to ll)
  bool integer_ = false;
  bool fast_ = false;             // one conversion that to_chars covers
  number_cell::CellFormat cell_;  // the conversion's flags, width, precision and style
  std::chars_format style_ = std::chars_format::fixed;  // to_chars' (not for integers)
};

}  // namespace celeris
