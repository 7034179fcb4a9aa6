// Sexagesimal RA/Dec columns of CSV catalogs, read as degrees (the STILTS habit of matching
// "hh:mm:ss" and "dd:mm:ss" columns directly).
#include "sexagesimal.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "csv.hpp"

namespace celeris::xmatch {

namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool names_right_ascension(const std::string& name) {
  const std::string n = upper(name);
  return n.rfind("RA", 0) == 0 || n.rfind("ALPHA", 0) == 0;
}

}  // namespace

bool parse_sexagesimal(const std::string& text, bool hours, double& degrees) {
  std::string s = csv::trim(text);
  if (s.empty()) return false;
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    s = s.substr(1);
  }
  // Three numbers, each ended by a separator (':' or blanks) or by a unit mark.
  double v[3];
  char marks[3] = {0, 0, 0};
  size_t pos = 0;
  for (int k = 0; k < 3; ++k) {
    while (pos < s.size() && s[pos] == ' ') ++pos;
    if (pos >= s.size() || !(std::isdigit(static_cast<unsigned char>(s[pos])) || s[pos] == '.'))
      return false;
    char* end = nullptr;
    v[k] = std::strtod(s.c_str() + pos, &end);
    pos = size_t(end - s.c_str());
    if (k < 2 && v[k] != std::floor(v[k])) return false;  // only the last field has a fraction
    if (pos < s.size() && std::strchr("hdms:", std::tolower(static_cast<unsigned char>(s[pos])))) {
      marks[k] = char(std::tolower(static_cast<unsigned char>(s[pos])));
      ++pos;
    } else if (k < 2 && (pos >= s.size() || s[pos] != ' ')) {
      return false;
    }
  }
  while (pos < s.size() && s[pos] == ' ') ++pos;
  if (pos != s.size()) return false;
  if (marks[0] == 'h') hours = true;
  if (marks[0] == 'd' && hours) return false;
  if ((marks[0] && marks[0] != ':' && marks[0] != 'h' && marks[0] != 'd') ||
      (marks[1] && marks[1] != ':' && marks[1] != 'm') || (marks[2] && marks[2] != 's'))
    return false;
  if (v[1] >= 60 || v[2] >= 60) return false;
  const double d = (v[0] + v[1] / 60.0 + v[2] / 3600.0) * (hours ? 15.0 : 1.0);
  degrees = negative ? -d : d;
  return true;
}

void add_sexagesimal_columns(const std::string& path, Table& t) {
  csv::Reader r(path);
  const std::vector<std::string>& names = r.names();
  if (t.columns.size() >= names.size()) return;  // every column was numeric
  std::vector<bool> text(names.size(), false);
  for (size_t c = 0; c < names.size(); ++c) text[c] = t.find(names[c]) == nullptr;
  std::vector<std::vector<double>> deg(names.size());
  std::vector<bool> ok(text);
  for (std::vector<std::string> f; r.next(f);)
    for (size_t c = 0; c < names.size(); ++c) {
      if (!ok[c]) continue;
      double v = 0;
      ok[c] = parse_sexagesimal(f[c], names_right_ascension(names[c]), v);
      deg[c].push_back(v);
    }
  // Rebuild the column list in file order, the new columns in their places.
  std::vector<Column> cols;
  size_t next = 0;
  for (size_t c = 0; c < names.size(); ++c) {
    if (!text[c]) {
      cols.push_back(std::move(t.columns[next++]));
    } else if (ok[c] && deg[c].size() == t.rows && t.rows > 0) {
      Column col;
      col.name = names[c];
      col.unit = "deg";
      col.type = ColumnType::Float64;
      col.values = std::move(deg[c]);
      cols.push_back(std::move(col));
    }
  }
  t.columns = std::move(cols);
}

}  // namespace celeris::xmatch
