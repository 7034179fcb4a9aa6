#include "extract/stages/assoc_list.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "celeris/error.hpp"

namespace celeris::extract {

namespace {

// SExtractor reads the list with fgets into a buffer of MAXCHARL (16384) bytes: a longer line
// would be read as several.
constexpr size_t kMaxLine = 16383;

std::vector<std::string> tokens(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  const char* blanks = " \t\v\n\r\f";  // strtok's delimiters in load_assoc (and strtod's blanks)
  while ((i = line.find_first_not_of(blanks, i)) != std::string::npos) {
    const size_t end = line.find_first_of(blanks, i);
    out.push_back(line.substr(i, end == std::string::npos ? std::string::npos : end - i));
    i = end;
  }
  return out;
}

std::string col(int c) {
  return "column " + std::to_string(c);
}

}  // namespace

AssocList parse_assoc_list(const std::string& text, const std::string& origin,
                           const AssocSettings& settings, int vector_size,
                           std::vector<std::string>& warnings) {
  AssocList list;
  list.type = settings.type;
  const std::vector<int>& params = settings.params;
  for (size_t a = 0; a < params.size(); ++a)
    for (size_t b = 0; b < a; ++b)
      if (params[a] == params[b])
        throw Error("ASSOC_PARAMS: column " + std::to_string(params[a]) +
                    " given twice (SExtractor would read the second as 0 or garbage)");
  {
    std::vector<int> used;
    for (int c : settings.data) {
      if (c == 0) continue;
      if (std::find(used.begin(), used.end(), c) != used.end())
        throw Error("ASSOC_DATA: column " + std::to_string(c) +
                    " given twice (SExtractor would leave an element unset)");
      used.push_back(c);
    }
  }
  // slot[j]: the VECTOR_ASSOC element (1-based) that file column j fills, 0 for none.
  std::vector<int> slot;
  int ncol = 0, xindex = 0, yindex = 0, mindex = -1;
  std::istringstream in(text);
  std::string line;
  size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string where = origin + " line " + std::to_string(lineno);
    if (line.size() > kMaxLine)
      throw Error(where + ": longer than " + std::to_string(kMaxLine) +
                  " characters (SExtractor would split it)");
    // SExtractor skips a line that is empty or starts with '#', '\t' or '\n'.
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> t = tokens(line);
    if (line[0] == '\t') {
      if (t.empty()) continue;
      throw Error(where +
                  ": starts with a tab, and SExtractor skips such lines; remove the tab, or "
                  "comment the line out with #");
    }
    if (t.empty())
      throw Error(where + ": blank but not empty (SExtractor would read an entry at 0,0)");
    if (ncol == 0) {
      // The first data line fixes the columns, as in load_assoc.
      ncol = static_cast<int>(t.size());
      xindex = params[0] - 1;
      yindex = params[1] - 1;
      for (size_t p = 0; p < params.size(); ++p)
        if (params[p] > ncol)
          throw Error("ASSOC_PARAMS #" + std::to_string(p + 1) + " (" + col(params[p]) +
                      ") exceeds the " + std::to_string(ncol) + " columns of " + origin);
      if (params.size() > 2) {
        mindex = params[2] - 1;
      } else if (list.type == AssocType::Mean || list.type == AssocType::MagMean ||
                 list.type == AssocType::Min || list.type == AssocType::Max) {
        warnings.push_back("ASSOC_PARAMS #3 missing, reverting to ASSOC_TYPE FIRST");
        list.type = AssocType::First;
      }
      slot.assign(ncol, 0);
      int k = 1;
      for (size_t j = 0; j < settings.data.size() && k <= vector_size; ++j) {
        const int c = settings.data[j];
        if (c == 0) continue;
        if (c > ncol)
          throw Error("ASSOC_DATA: " + col(c) + " exceeds the " + std::to_string(ncol) +
                      " columns of " + origin);
        slot[c - 1] = k++;
      }
      list.ndata = k - 1;
      if (list.ndata == 0) {  // ASSOC_DATA 0: the file's columns from the first
        list.ndata = std::min(ncol, vector_size);
        for (int j = 0; j < list.ndata; ++j) slot[j] = j + 1;
      }
      if (list.ndata < vector_size)
        warnings.push_back("VECTOR_ASSOC(" + std::to_string(vector_size) + "): " + origin +
                           " gives only " + std::to_string(list.ndata) +
                           " ASSOC_DATA column(s); the other elements are 0");
    }
    if (static_cast<int>(t.size()) != ncol)
      throw Error(where + ": " + std::to_string(t.size()) +
                  " columns where the first data line has " + std::to_string(ncol));
    double x = 0, y = 0, w = 0;
    const size_t base = list.data.size();
    list.data.resize(base + list.ndata, 0.0);
    for (int j = 0; j < ncol; ++j) {
      char* end = nullptr;
      const double v = std::strtod(t[j].c_str(), &end);
      if (end == t[j].c_str() || *end != '\0')
        throw Error(where + ", " + col(j + 1) + ": not a number: '" + printable_excerpt(t[j]) +
                    "'");
      const bool used = j == xindex || j == yindex || j == mindex || slot[j] != 0;
      if (used && !std::isfinite(v))
        throw Error(where + ", " + col(j + 1) + ": " + printable_excerpt(t[j]) +
                    " (a position, weight or data column must be a finite number)");
      if (j == xindex)
        x = v;
      else if (j == yindex)
        y = v;
      else if (j == mindex)
        w = v;
      if (slot[j]) list.data[base + slot[j] - 1] = v;
    }
    list.x.push_back(x);
    list.y.push_back(y);
    list.weight.push_back(w);
  }
  if (list.size() == 0) warnings.push_back(origin + ": the ASSOC list is empty");
  return list;
}

AssocList read_assoc_list(const AssocSettings& settings, int vector_size,
                          std::vector<std::string>& warnings) {
  std::ifstream in(settings.name, std::ios::binary);
  if (!in) throw Error("ASSOC_NAME " + settings.name + ": cannot open the ASSOC list");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error("ASSOC_NAME " + settings.name + ": cannot read the ASSOC list");
  return parse_assoc_list(ss.str(), settings.name, settings, vector_size, warnings);
}

}  // namespace celeris::extract
