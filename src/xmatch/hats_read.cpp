// Rows of a HATS catalog (include/celeris/xmatch_hats.hpp): the whole table for the output, or
// the RA/Dec columns a partition at a time for the join, through parquet_file.
#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch_hats.hpp"
#include "parquet_file.hpp"

namespace celeris::xmatch {

namespace {

bool same_name(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The schema's column named `name` (any case), exactly as the file spells it.
std::string file_column(const Table& schema, const std::string& name, const std::string& file) {
  for (const Column& c : schema.columns)
    if (same_name(c.name, name)) return c.name;
  throw Error(file + ": no numeric column " + name);
}

std::vector<std::string> all_files(const HatsCatalog& cat) {
  std::vector<std::string> files;
  for (const HatsPartition& p : cat.partitions)
    files.insert(files.end(), p.files.begin(), p.files.end());
  return files;
}

// The positions of a HATS catalog, file by file. File row counts come from the footers, so a
// slice of the rows opens only the files that hold it. A region scan (scan_pixels) skips the
// files whose partition pixel lies outside the region, but only once a full read of the file
// has found every row inside that pixel: HATS writers promise it, and a row outside would
// otherwise be lost to the region that holds it (a full read checks, then skipping is exact).
// Not for concurrent scans (the checks are remembered in the object).
class HatsPositions final : public PositionSource {
 public:
  HatsPositions(const HatsCatalog& cat, const std::string& ra, const std::string& dec) {
    for (const HatsPartition& p : cat.partitions)
      for (const std::string& f : p.files) {
        files_.push_back(f);
        order_.push_back(p.order);
        pix_.push_back(p.pix);
      }
    inside_.assign(files_.size(), -1);
    first_.push_back(0);
    // One footer per file for the row counts: a slice of the rows then opens only its files.
    for (const std::string& f : files_)
      first_.push_back(first_.back() + parquet_file::File(f).rows());
    const Table schema = parquet_file::File(files_.front()).schema();
    ra_ = file_column(schema, ra, files_.front());
    dec_ = file_column(schema, dec, files_.front());
  }
  size_t rows() const override { return size_t(first_.back()); }
  // A full scan also checks every file's rows against its partition pixel (scan_pixels then
  // skips the files found inside).
  void scan(const Visit& visit) const override {
    for (size_t k = 0; k < files_.size(); ++k) read_file(k, first_[k], first_[k + 1], visit, true);
  }
  void scan_rows(size_t begin, size_t count, const Visit& visit) const override {
    const uint64_t end = std::min<uint64_t>(first_.back(), uint64_t(begin) + count);
    for (size_t k = 0; k < files_.size(); ++k) {
      const uint64_t lo = std::max<uint64_t>(first_[k], begin), hi = std::min(first_[k + 1], end);
      if (lo < hi) read_file(k, lo, hi, visit, false);  // other files are not opened
    }
  }
  void scan_pixels(int order, const std::vector<uint8_t>& wanted,
                   const Visit& visit) const override {
    for (size_t k = 0; k < files_.size(); ++k)
      if (inside_[k] != 1 || overlaps(k, order, wanted))
        read_file(k, first_[k], first_[k + 1], visit, true);
  }

 private:
  // Rows [lo, hi) of file k (catalog rows), validated; with `check_inside`, the file's rows are
  // also checked against its partition pixel (once).
  void read_file(size_t k, uint64_t lo, uint64_t hi, const Visit& visit, bool check_inside) const {
    Table t;
    parquet_file::File(files_[k]).read({ra_, dec_}, t);
    if (uint64_t(t.rows) != first_[k + 1] - first_[k])
      throw Error(files_[k] + ": row count differs from its footer");
    const double* ra = t.columns[0].values.data();
    const double* dec = t.columns[1].values.data();
    for (size_t r = 0; r < t.rows; ++r) check_sky_position(ra[r], dec[r], r, files_[k], ra_, dec_);
    if (check_inside && inside_[k] < 0) {
      int outside = 0;
      const int order = order_[k];
      const int64_t pix = pix_[k];
#pragma omp parallel for reduction(+ : outside) schedule(static)
      for (int64_t r = 0; r < int64_t(t.rows); ++r)
        outside += healpix::radec2pix_nest(order, ra[r], dec[r]) != pix;
      inside_[k] = outside == 0 ? 1 : 0;
    }
    visit(size_t(lo), ra + (lo - first_[k]), dec + (lo - first_[k]), size_t(hi - lo));
  }
  // Whether file k's partition pixel meets the wanted pixels at `order`.
  bool overlaps(size_t k, int order, const std::vector<uint8_t>& wanted) const {
    if (order_[k] >= order) return wanted[size_t(pix_[k] >> (2 * (order_[k] - order)))] != 0;
    const int64_t n = int64_t(1) << (2 * (order - order_[k])), first = pix_[k] * n;
    for (int64_t q = first; q < first + n; ++q)
      if (wanted[size_t(q)]) return true;
    return false;
  }

  std::vector<std::string> files_;
  std::vector<int> order_;              // the partition of file k: Norder
  std::vector<int64_t> pix_;            // and Npix
  std::vector<uint64_t> first_;         // first_[k]: the catalog row of file k's first row
  mutable std::vector<int8_t> inside_;  // every row of file k in its pixel: 1 yes, 0 no, -1 unread
  std::string ra_, dec_;
};

}  // namespace

bool parquet_available() {
  return parquet_file::available();
}

Table hats_schema(const std::string& path) {
  const HatsCatalog cat = open_hats(path);
  const std::vector<std::string> files = all_files(cat);
  Table schema = parquet_file::File(files.front()).schema();
  schema.rows = 0;  // not counted: that would open every file
  return schema;
}

Table read_hats_table(const std::string& path, const std::vector<std::string>& columns) {
  const HatsCatalog cat = open_hats(path);
  const std::vector<std::string> files = all_files(cat);
  const Table first = parquet_file::File(files.front()).schema();
  std::vector<std::string> all, names;
  for (const Column& c : first.columns) all.push_back(c.name);
  for (const std::string& c : columns) names.push_back(file_column(first, c, files.front()));
  if (columns.empty()) names = all;
  Table out;
  for (const std::string& n : names)
    for (const Column& c : first.columns)
      if (c.name == n) out.columns.push_back(c);
  Table part;
  for (const std::string& f : files) {
    const parquet_file::File file(f);
    const Table schema = file.schema();
    std::vector<std::string> these;
    for (const Column& c : schema.columns) these.push_back(c.name);
    if (these != all)
      throw Error(f + ": numeric columns differ from those of " + files.front() +
                  " (partitions of one catalog must have the same columns)");
    file.read(names, part);
    for (size_t k = 0; k < names.size(); ++k) {
      Column& c = out.columns[k];
      const Column& p = part.columns[k];
      c.values.insert(c.values.end(), p.values.begin(), p.values.end());
      // A partition holding nulls (or a wider type) makes the whole column Float64.
      if (p.type != c.type) c.type = ColumnType::Float64;
    }
    out.rows += part.rows;
  }
  return out;
}

namespace {

class HatsRows final : public RowFetcher {
 public:
  explicit HatsRows(const std::string& path) : files_(all_files(open_hats(path))) {
    schema_ = parquet_file::File(files_.front()).schema();
    for (const Column& c : schema_.columns) names_.push_back(c.name);
    first_.push_back(0);
    Table part;
    for (const std::string& f : files_) {
      const parquet_file::File file(f);
      std::vector<std::string> these;
      for (const Column& c : file.schema().columns) these.push_back(c.name);
      if (these != names_)
        throw Error(f + ": numeric columns differ from those of " + files_.front() +
                    " (partitions of one catalog must have the same columns)");
      file.read(names_, part);
      // As read_hats_table: a partition holding nulls (or a wider type) makes the column Float64.
      for (size_t k = 0; k < names_.size(); ++k)
        if (part.columns[k].type != schema_.columns[k].type)
          schema_.columns[k].type = ColumnType::Float64;
      first_.push_back(first_.back() + part.rows);
    }
    schema_.rows = size_t(first_.back());
  }
  const Table& schema() const override { return schema_; }
  Table fetch(const std::vector<int64_t>& wanted) const override {
    Table out;
    out.rows = wanted.size();
    for (const Column& c : schema_.columns) {
      Column o = c;
      o.values.assign(wanted.size() * size_t(c.repeat), 0.0);
      out.columns.push_back(std::move(o));
    }
    for (size_t n = 0; n < wanted.size(); ++n) {
      const uint64_t row = uint64_t(wanted[n]);
      if (row >= first_.back()) throw Error("HATS row " + std::to_string(row) + " out of range");
      const size_t k =
          size_t(std::upper_bound(first_.begin(), first_.end(), row) - first_.begin()) - 1;
      if (k != cached_) {
        parquet_file::File(files_[k]).read(names_, cache_);
        if (uint64_t(cache_.rows) != first_[k + 1] - first_[k])
          throw Error(files_[k] + ": row count changed while the output was written");
        cached_ = k;
      }
      const size_t at = size_t(row - first_[k]);
      for (size_t c = 0; c < out.columns.size(); ++c) {
        const size_t rep = size_t(out.columns[c].repeat);
        std::copy_n(cache_.columns[c].values.begin() + std::ptrdiff_t(at * rep), rep,
                    out.columns[c].values.begin() + std::ptrdiff_t(n * rep));
      }
    }
    return out;
  }

 private:
  std::vector<std::string> files_, names_;
  std::vector<uint64_t> first_;  // first_[k]: the catalog row of file k's first row
  Table schema_;
  mutable size_t cached_ = size_t(-1);
  mutable Table cache_;
};

}  // namespace

std::unique_ptr<RowFetcher> hats_rows(const std::string& path) {
  return std::make_unique<HatsRows>(path);
}

std::unique_ptr<PositionSource> hats_positions(const std::string& path, const std::string& ra,
                                               const std::string& dec) {
  return std::make_unique<HatsPositions>(open_hats(path), ra, dec);
}

}  // namespace celeris::xmatch
