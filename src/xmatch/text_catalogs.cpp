// Catalog formats recognised by their first bytes (read_catalog): SExtractor's ASCII_HEAD
// (what `celeris extract` and source-extractor write with CATALOG_TYPE ASCII_HEAD) and VOTable
// (TABLEDATA serialisation, parsed with expat).
#include "text_catalogs.hpp"

#include <expat.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "celeris/error.hpp"

namespace celeris::xmatch {

namespace {

std::string first_bytes(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), std::streamsize(n));
  s.resize(size_t(in.gcount()));
  return s;
}

// One ASCII_HEAD header line: "# <column number> <NAME> <description> [<unit>]".
bool header_line(const std::string& line, int& number, std::string& name, std::string& unit,
                 std::string& description) {
  std::istringstream in(line);
  std::string hash;
  if (!(in >> hash) || hash != "#" || !(in >> number) || !(in >> name) || number < 1) return false;
  std::string rest;
  std::getline(in, rest);
  const size_t open = rest.rfind('['), close = rest.rfind(']');
  unit.clear();
  if (open != std::string::npos && close != std::string::npos && close > open) {
    unit = rest.substr(open + 1, close - open - 1);
    rest = rest.substr(0, open);
  }
  const size_t b = rest.find_first_not_of(" \t"), e = rest.find_last_not_of(" \t");
  description = b == std::string::npos ? "" : rest.substr(b, e - b + 1);
  return true;
}

double cell_number(const std::string& s, const std::string& what) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end == s.c_str() || *end != '\0')
    throw Error(what + ": not a number: '" + s + "'");
  return v;
}

}  // namespace

bool is_ascii_head(const std::string& path) {
  const std::string head = first_bytes(path, 512);
  const size_t nl = head.find('\n');
  int number;
  std::string name, unit, description;
  return header_line(head.substr(0, nl), number, name, unit, description) && number == 1;
}

bool is_votable(const std::string& path) {
  const std::string head = first_bytes(path, 4096);
  return head.find("<VOTABLE") != std::string::npos;
}

Table read_ascii_head(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open");
  struct Head {
    int number;
    Column column;
  };
  std::vector<Head> heads;
  std::string line;
  size_t lineno = 0;
  Table t;
  std::vector<std::vector<double>> rows;
  size_t fields = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line[0] == '#') {
      if (!rows.empty())
        throw Error(path + ": line " + std::to_string(lineno) + ": header after data");
      Head h;
      if (!header_line(line, h.number, h.column.name, h.column.unit, h.column.description))
        continue;  // a comment
      if (!heads.empty() && h.number <= heads.back().number)
        throw Error(path + ": line " + std::to_string(lineno) + ": column numbers must increase");
      heads.push_back(h);
      continue;
    }
    if (heads.empty()) throw Error(path + ": no ASCII_HEAD header ('#   1 NAME ...')");
    std::istringstream cells(line);
    std::vector<double> v;
    for (std::string c; cells >> c;)
      v.push_back(cell_number(c, path + ": line " + std::to_string(lineno)));
    if (rows.empty()) fields = v.size();
    if (v.size() != fields || int(fields) < heads.back().number)
      throw Error(path + ": line " + std::to_string(lineno) + ": " + std::to_string(v.size()) +
                  " values, expected " +
                  std::to_string(std::max<size_t>(fields, size_t(heads.back().number))));
    rows.push_back(std::move(v));
  }
  if (heads.empty()) throw Error(path + ": no ASCII_HEAD header ('#   1 NAME ...')");
  if (heads.front().number != 1) throw Error(path + ": the first column is not number 1");
  // A column spans the element numbers up to the next column's (SExtractor numbers vector
  // parameters such as FLUX_APER by element).
  for (size_t c = 0; c < heads.size(); ++c) {
    Column col = heads[c].column;
    const int from = heads[c].number - 1;
    const int to =
        c + 1 < heads.size() ? heads[c + 1].number - 1 : int(rows.empty() ? from + 1 : fields);
    col.repeat = to - from;
    bool integral = true;
    col.values.reserve(rows.size() * size_t(col.repeat));
    for (const auto& r : rows)
      for (int k = from; k < to; ++k) {
        col.values.push_back(r[size_t(k)]);
        integral = integral && std::isfinite(r[size_t(k)]) &&
                   r[size_t(k)] == std::floor(r[size_t(k)]) && std::fabs(r[size_t(k)]) < 9.0e15;
      }
    col.type = integral && !rows.empty() ? ColumnType::Int64 : ColumnType::Float64;
    t.columns.push_back(std::move(col));
  }
  t.rows = rows.size();
  return t;
}

namespace {

// expat callbacks: FIELD elements give the columns, TD elements the cells of TR rows (TABLEDATA).
struct VoParse {
  std::string path;
  Table table;
  std::vector<bool> numeric;       // per FIELD: a numeric datatype with arraysize 1
  std::vector<std::string> names;  // per FIELD
  int tables = 0;
  bool in_td = false, in_tr = false;
  size_t td = 0;
  std::string text;
  std::string error;
  XML_Parser parser = nullptr;

  void fail(const std::string& e) {
    if (error.empty()) error = e;
    XML_StopParser(parser, XML_FALSE);
  }
};

const char* attr(const char** a, const char* name) {
  for (; a && *a; a += 2)
    if (std::string(a[0]) == name) return a[1];
  return nullptr;
}

std::string local_name(const char* n) {
  const std::string s(n);
  const size_t colon = s.rfind(':');
  return colon == std::string::npos ? s : s.substr(colon + 1);
}

void XMLCALL vo_start(void* data, const char* el, const char** atts) {
  auto& p = *static_cast<VoParse*>(data);
  const std::string name = local_name(el);
  if (name == "TABLE" && ++p.tables > 1) {
    p.fail("several TABLEs: only the first table of a VOTable is read (refused)");
  } else if (name == "FIELD") {
    const char* n = attr(atts, "name");
    const char* type = attr(atts, "datatype");
    const char* size = attr(atts, "arraysize");
    const std::string t = type ? type : "";
    const bool num = (t == "double" || t == "float" || t == "int" || t == "long" || t == "short" ||
                      t == "unsignedByte") &&
                     (size == nullptr || std::string(size) == "1");
    p.names.push_back(n ? n : (attr(atts, "ID") ? attr(atts, "ID") : ""));
    p.numeric.push_back(num);
    if (num) {
      Column c;
      c.name = p.names.back();
      if (const char* u = attr(atts, "unit")) c.unit = u;
      c.type = (t == "double" || t == "float") ? ColumnType::Float64 : ColumnType::Int64;
      p.table.columns.push_back(c);
    }
  } else if (name == "BINARY" || name == "BINARY2" || name == "FITS") {
    p.fail("VOTable " + name + " serialisation is not supported (TABLEDATA only)");
  } else if (name == "TR") {
    p.in_tr = true;
    p.td = 0;
  } else if (name == "TD" && p.in_tr) {
    p.in_td = true;
    p.text.clear();
  }
}

void XMLCALL vo_end(void* data, const char* el) {
  auto& p = *static_cast<VoParse*>(data);
  const std::string name = local_name(el);
  if (name == "TD" && p.in_td) {
    p.in_td = false;
    if (p.td >= p.numeric.size())
      return p.fail("row " + std::to_string(p.table.rows + 1) + ": more TD than FIELDs");
    if (p.numeric[p.td]) {
      size_t col = 0;
      for (size_t k = 0; k < p.td; ++k) col += p.numeric[k];
      std::string s = p.text;
      const size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
      s = b == std::string::npos ? "" : s.substr(b, e - b + 1);
      double v = std::numeric_limits<double>::quiet_NaN();  // empty cell: null
      if (!s.empty() && s != "NaN" && s != "nan") {
        char* end = nullptr;
        v = std::strtod(s.c_str(), &end);
        if (*end != '\0')
          return p.fail("row " + std::to_string(p.table.rows + 1) + ", field " + p.names[p.td] +
                        ": not a number: '" + s + "'");
      }
      Column& c = p.table.columns[col];
      if (std::isnan(v)) c.type = ColumnType::Float64;
      c.values.push_back(v);
    }
    ++p.td;
  } else if (name == "TR" && p.in_tr) {
    p.in_tr = false;
    if (p.td != p.numeric.size())
      return p.fail("row " + std::to_string(p.table.rows + 1) + ": " + std::to_string(p.td) +
                    " TD for " + std::to_string(p.numeric.size()) + " FIELDs");
    ++p.table.rows;
  }
}

void XMLCALL vo_text(void* data, const char* s, int len) {
  auto& p = *static_cast<VoParse*>(data);
  if (p.in_td) p.text.append(s, size_t(len));
}

}  // namespace

Table read_votable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  VoParse p;
  p.path = path;
  std::unique_ptr<XML_ParserStruct, void (*)(XML_Parser)> parser(XML_ParserCreate(nullptr),
                                                                 XML_ParserFree);
  p.parser = parser.get();
  XML_SetUserData(parser.get(), &p);
  XML_SetElementHandler(parser.get(), vo_start, vo_end);
  XML_SetCharacterDataHandler(parser.get(), vo_text);
  std::vector<char> buf(1 << 16);
  for (;;) {
    in.read(buf.data(), std::streamsize(buf.size()));
    const auto n = in.gcount();
    const bool last = n < std::streamsize(buf.size());
    if (XML_Parse(parser.get(), buf.data(), int(n), last) == XML_STATUS_ERROR) {
      if (!p.error.empty()) throw Error(path + ": " + p.error);
      throw Error(path +
                  ": not a valid VOTable: " + XML_ErrorString(XML_GetErrorCode(parser.get())) +
                  " at line " + std::to_string(XML_GetCurrentLineNumber(parser.get())));
    }
    if (last) break;
  }
  if (!p.error.empty()) throw Error(path + ": " + p.error);
  if (p.tables == 0) throw Error(path + ": no TABLE in the VOTable");
  return std::move(p.table);
}

}  // namespace celeris::xmatch
