// ASCII catalogs in SExtractor's ASCII / ASCII_HEAD layout. The rows are formatted in blocks on
// all threads (NumberFormat: printf's text through std::to_chars) and written in order: a
// crowded frame's catalog (40k rows of 20 columns) took a third of a second with one snprintf
// per cell, more than the frame's extraction, and bounded a stream of frames.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/table.hpp"
#include "core/number_format.hpp"
#include "core/table_ascii.hpp"

namespace celeris {

namespace {

bool is_integer(ColumnType t) {
  return t == ColumnType::Int16 || t == ColumnType::Int32 || t == ColumnType::Int64;
}

}  // namespace

// The cells are written one after the other into a buffer on the stack (NumberFormat::write),
// which goes to `out` whenever it may not hold the next.
void append_ascii_rows(const Table& table, const std::vector<NumberFormat>& formats, size_t first,
                       size_t last, std::string& out) {
  constexpr size_t kBuffer = 16 * NumberFormat::kCellRoom;
  char buf[kBuffer];
  char* p = buf;
  const auto flush = [&] {
    out.append(buf, static_cast<size_t>(p - buf));
    p = buf;
  };
  for (size_t r = first; r < last; ++r) {
    bool start = true;
    for (size_t ci = 0; ci < table.columns.size(); ++ci) {
      const Column& c = table.columns[ci];
      for (int k = 0; k < c.repeat; ++k) {
        if (static_cast<size_t>(buf + kBuffer - p) < NumberFormat::kCellRoom) flush();
        if (char* end = formats[ci].write(c.at(r, k), p, !start)) {
          p = end;
        } else {  // a long cell of a format outside the fast road
          flush();
          formats[ci].append(c.at(r, k), out, !start);
        }
        start = false;
      }
    }
    if (p == buf + kBuffer) flush();
    *p++ = '\n';
  }
  flush();
}

namespace {

// printf's text appended to `out`, as long as it takes.
template <typename... Args>
void append_printf(std::string& out, const char* format, Args... args) {
  const int n = std::snprintf(nullptr, 0, format, args...);
  if (n <= 0) return;
  const size_t at = out.size();
  out.resize(at + static_cast<size_t>(n) + 1);
  std::snprintf(out.data() + at, static_cast<size_t>(n) + 1, format, args...);
  out.resize(at + static_cast<size_t>(n));
}

}  // namespace

std::string ascii_header_text(const Table& table) {
  std::string out;
  int col = 1;
  for (const auto& c : table.columns) {
    if (c.unit.empty())
      append_printf(out, "# %3d %-22.22s %-58.58s\n", col, c.name.c_str(), c.description.c_str());
    else
      append_printf(out, "# %3d %-22.22s %-58.58s [%s]\n", col, c.name.c_str(),
                    c.description.c_str(), c.unit.c_str());
    col += c.repeat;
  }
  return out;
}

std::vector<NumberFormat> ascii_column_formats(const Table& table) {
  std::vector<NumberFormat> formats;
  for (const auto& c : table.columns) {
    const bool integer = is_integer(c.type);
    formats.emplace_back(c.print_format.empty() ? (integer ? "%d" : "%.10g") : c.print_format,
                         integer);
  }
  return formats;
}

namespace {

// A row's length, about (each cell its width, or 12 characters, and a blank), so that a block's
// text is allocated once rather than grown and copied as its rows are added.
size_t row_chars(const Table& table, const std::vector<NumberFormat>& formats) {
  size_t chars = 1;
  for (size_t ci = 0; ci < table.columns.size(); ++ci)
    chars += static_cast<size_t>(table.columns[ci].repeat) *
             (static_cast<size_t>(std::max(formats[ci].width(), 12)) + 1);
  return chars;
}

constexpr size_t kBlockRows = 2048;

// Block b's rows (kBlockRows of them, fewer in the last) as text into `text`, emptied first.
void format_block(const Table& table, const std::vector<NumberFormat>& formats, size_t row_chars,
                  size_t b, std::string& text) {
  const size_t first = b * kBlockRows;
  text.clear();
  text.reserve(kBlockRows * row_chars);
  append_ascii_rows(table, formats, first, std::min(table.rows, first + kBlockRows), text);
}

}  // namespace

void write_ascii_table(const std::string& path, const Table& table, bool header) {
  write_atomically(path, [&](const std::string& tmp) {
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(tmp.c_str(), "w"), &std::fclose);
    if (!f) throw Error(path + ": cannot create catalog file");
    if (header) {
      const std::string text = ascii_header_text(table);
      if (std::fwrite(text.data(), 1, text.size(), f.get()) != text.size())
        throw Error(path + ": write error");
    }
    const std::vector<NumberFormat> formats = ascii_column_formats(table);
    const size_t chars = row_chars(table, formats);
    // Rounds of blocks: the text in memory stays a few MB whatever the table's length.
    constexpr size_t kBlocksPerRound = 64;
    const size_t nblocks = (table.rows + kBlockRows - 1) / kBlockRows;
    std::vector<std::string> text(std::min(nblocks, kBlocksPerRound));
    bool failed = false;
    for (size_t b0 = 0; b0 < nblocks; b0 += kBlocksPerRound) {
      const size_t nb = std::min(kBlocksPerRound, nblocks - b0);
      // Each block is written, in order, as soon as it and those before it are formatted: the
      // file's write runs beside the formatting of the blocks after it.
#pragma omp parallel for ordered schedule(dynamic, 1) if (nb > 1)
      for (size_t j = 0; j < nb; ++j) {
        format_block(table, formats, chars, b0 + j, text[j]);
#pragma omp ordered
        if (!failed && std::fwrite(text[j].data(), 1, text[j].size(), f.get()) != text[j].size())
          failed = true;
      }
      if (failed) throw Error(path + ": write error");
    }
    if (std::fflush(f.get()) != 0 || std::ferror(f.get())) throw Error(path + ": write error");
  });
}

size_t ascii_table_chars(const Table& table, bool header) {
  const size_t rows = table.rows * row_chars(table, ascii_column_formats(table));
  return header ? rows + 96 * table.columns.size() : rows;
}

std::string ascii_table_text(const Table& table, bool header) {
  std::string out = header ? ascii_header_text(table) : std::string();
  const std::vector<NumberFormat> formats = ascii_column_formats(table);
  const size_t nblocks = (table.rows + kBlockRows - 1) / kBlockRows;
  std::vector<std::string> text(nblocks);
  const size_t chars = row_chars(table, formats);
#pragma omp parallel for schedule(dynamic, 1) if (nblocks > 1)
  for (size_t j = 0; j < nblocks; ++j) format_block(table, formats, chars, j, text[j]);
  size_t total = out.size();
  for (const std::string& t : text) total += t.size();
  out.reserve(total);
  for (const std::string& t : text) out += t;
  return out;
}

void write_text_file(const std::string& path, const std::string& text) {
  write_atomically(path, [&](const std::string& tmp) {
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(tmp.c_str(), "w"), &std::fclose);
    if (!f) throw Error(path + ": cannot create catalog file");
    if (std::fwrite(text.data(), 1, text.size(), f.get()) != text.size() ||
        std::fflush(f.get()) != 0 || std::ferror(f.get()))
      throw Error(path + ": write error");
  });
}

}  // namespace celeris
