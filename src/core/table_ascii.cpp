// ASCII catalogs in SExtractor's ASCII / ASCII_HEAD layout.
#include <cstdio>
#include <memory>
#include <string>

#include "celeris/error.hpp"
#include "celeris/table.hpp"

namespace celeris {

namespace {

bool is_integer(ColumnType t) {
  return t == ColumnType::Int16 || t == ColumnType::Int32 || t == ColumnType::Int64;
}

// "%10d" -> "%10lld" so that integers print from long long.
std::string widen_int_format(const std::string& f) {
  if (!f.empty() && (f.back() == 'd' || f.back() == 'u'))
    return f.substr(0, f.size() - 1) + "lld";
  return f;
}

}  // namespace

void write_ascii_table(const std::string& path, const Table& table, bool header) {
  write_atomically(path, [&](const std::string& tmp) {
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(tmp.c_str(), "w"), &std::fclose);
    if (!f) throw Error(path + ": cannot create catalog file");
    if (header) {
      int col = 1;
      for (const auto& c : table.columns) {
        if (c.unit.empty())
          std::fprintf(f.get(), "# %3d %-22.22s %-58.58s\n", col, c.name.c_str(),
                       c.description.c_str());
        else
          std::fprintf(f.get(), "# %3d %-22.22s %-58.58s [%s]\n", col, c.name.c_str(),
                       c.description.c_str(), c.unit.c_str());
        col += c.repeat;
      }
    }
    std::vector<std::string> formats;
    for (const auto& c : table.columns) {
      const std::string base = c.print_format.empty()
                                   ? (is_integer(c.type) ? "%d" : "%.10g")
                                   : c.print_format;
      formats.push_back(is_integer(c.type) ? widen_int_format(base) : base);
    }
    std::string line;
    char buf[64];
    for (size_t r = 0; r < table.rows; ++r) {
      line.clear();
      for (size_t ci = 0; ci < table.columns.size(); ++ci) {
        const Column& c = table.columns[ci];
        for (int k = 0; k < c.repeat; ++k) {
          const double v = c.at(r, k);
          if (is_integer(c.type))
            std::snprintf(buf, sizeof buf, formats[ci].c_str(), static_cast<long long>(v));
          else
            std::snprintf(buf, sizeof buf, formats[ci].c_str(), v);
          if (!line.empty()) line += ' ';
          line += buf;
        }
      }
      line += '\n';
      std::fputs(line.c_str(), f.get());
    }
    if (std::fflush(f.get()) != 0 || std::ferror(f.get()))
      throw Error(path + ": write error");
  });
}

}  // namespace celeris
