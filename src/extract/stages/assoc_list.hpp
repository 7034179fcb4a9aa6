// The ASSOC list (ASSOC_NAME): SExtractor's ASCII list of positions to associate with the
// detections (assoc.c:load_assoc), read and checked once per run.
#pragma once

#include <string>
#include <vector>

#include "celeris/extract_settings.hpp"

namespace celeris::extract {

// The list's entries, in file order: the position columns (ASSOC_PARAMS #1, #2), the weight
// column (#3; 0 when not given) and the ASSOC_DATA columns, `ndata` per entry.
struct AssocList {
  std::vector<double> x, y, weight;
  std::vector<double> data;             // ndata per entry, row-major
  int ndata = 0;                        // columns copied into VECTOR_ASSOC (the rest of it stays 0)
  AssocType type = AssocType::Nearest;  // as run (FIRST when a weighted type lacks its column)
  size_t size() const { return x.size(); }
};

// Reads the list as SExtractor does: lines that are empty or start with '#' are skipped; the
// first data line gives the number of columns; numbers are separated by blanks. ASSOC_DATA
// columns fill VECTOR_ASSOC in their order (0s skipped; none left: the file's columns from the
// first), at most `vector_size` of them. Where SExtractor warns, a message is added to
// `warnings` (fewer data columns than VECTOR_ASSOC elements; ASSOC_TYPE MEAN, MAG_MEAN, MIN or
// MAX without a third ASSOC_PARAMS column, run as FIRST; an empty list). Where SExtractor would
// read garbage or silently differ, celeris::Error names the file and line: a missing file, a
// line with fewer or more columns than the first, a token that is not a number, a NaN or
// infinity in a column used, a column beyond the file's, a line starting with a tab (SExtractor
// skips it), a blank line of spaces (SExtractor reads it as an entry at 0,0), the same column
// twice among the positions and the weight or in ASSOC_DATA.
AssocList read_assoc_list(const AssocSettings& settings, int vector_size,
                          std::vector<std::string>& warnings);
AssocList parse_assoc_list(const std::string& text, const std::string& origin,
                           const AssocSettings& settings, int vector_size,
                           std::vector<std::string>& warnings);

}  // namespace celeris::extract
