// Internal to src/xmatch: sexagesimal RA/Dec text columns of CSV catalogs ("12:34:56.7",
// "-05 06 07.8", "12h34m56.7s", "-5d06m07.8s"), turned into degrees.
#pragma once

#include <string>

#include "celeris/table.hpp"

namespace celeris::xmatch {

// A sexagesimal angle: three fields (the first signed) separated by ':' or blanks, or marked
// h/d, m, s; the fields after the first in [0, 60). `hours`: the first field counts hours (RA,
// 15 deg each); the 'h' mark implies it, 'd' refuses it. Returns false when `s` is not one.
bool parse_sexagesimal(const std::string& s, bool hours, double& degrees);

// The text columns of a CSV catalog (those read_csv skipped) whose every cell is sexagesimal,
// added to `t` as Float64 columns in degrees, in the file's column order: hours when the name
// says right ascension (RA*, ALPHA*, or any 'h'-marked cell), degrees otherwise.
void add_sexagesimal_columns(const std::string& csv_path, Table& t);

}  // namespace celeris::xmatch
