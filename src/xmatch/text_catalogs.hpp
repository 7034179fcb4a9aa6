// Internal to src/xmatch: catalogs read_catalog recognises by their first bytes.
#pragma once

#include <string>

#include "celeris/table.hpp"

namespace celeris::xmatch {

// SExtractor ASCII_HEAD: the first line is "#   1 NAME description [unit]".
bool is_ascii_head(const std::string& path);
// A VOTable: "<VOTABLE" within the first 4 kB.
bool is_votable(const std::string& path);

// ASCII_HEAD: columns from the "# N NAME description [unit]" lines (a column spans the element
// numbers up to the next one's: vector parameters such as FLUX_APER), whitespace-separated
// numbers below; Int64 when every cell of a column is an integer. Errors name the line.
Table read_ascii_head(const std::string& path);
// VOTable, TABLEDATA serialisation (expat): the numeric scalar FIELDs of the first TABLE
// (double/float -> Float64, int/long/short/unsignedByte -> Int64; an empty or NaN cell is NaN
// and makes the column Float64); other FIELDs (char, arrays) are skipped, as read_csv skips text
// columns. BINARY/BINARY2/FITS serialisations and several TABLEs are refused.
Table read_votable(const std::string& path);

}  // namespace celeris::xmatch
