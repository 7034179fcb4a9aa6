// The block-wise FITS table reader and writer the streamed cross-match uses: a table written in
// blocks is byte-identical to write_fits_table's, and row ranges read back equal the whole read.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "celeris/table.hpp"
#include "celeris/xmatch.hpp"

namespace fs = std::filesystem;
using namespace celeris;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Rows [first, first + n) of `t`.
Table slice(const Table& t, size_t first, size_t n) {
  Table s;
  s.rows = n;
  for (const Column& c : t.columns) {
    Column o = c;
    o.values.assign(c.values.begin() + std::ptrdiff_t(first * c.repeat),
                    c.values.begin() + std::ptrdiff_t((first + n) * c.repeat));
    s.columns.push_back(std::move(o));
  }
  return s;
}

}  // namespace

TEST(FitsTableBlocks, WriterMatchesWholeWriteAndReaderMatchesWholeRead) {
  const fs::path dir = fs::temp_directory_path() / "celeris_xmatch_fits_blocks";
  fs::remove_all(dir);
  fs::create_directories(dir);
  xmatch::CatalogParams params;
  params.rows = 7777;
  Table t = xmatch::simulate_catalog(params);
  Column v;  // a vector column with a unit and NaNs
  v.name = "FLUX_APER";
  v.unit = "count";
  v.type = ColumnType::Float32;
  v.repeat = 3;
  for (size_t r = 0; r < t.rows * 3; ++r) v.values.push_back(r % 11 == 0 ? NAN : float(r) * 0.5f);
  t.columns.push_back(v);

  FitsTableOptions opt;
  opt.extname = "XMATCH";
  write_fits_table((dir / "whole.fits").string(), t, opt);
  {
    FitsTableWriter w((dir / "blocks.fits").string(), t, opt);
    const size_t cuts[] = {0, 1, 1000, 1000, 5000, t.rows};  // includes an empty block
    for (size_t k = 0; k + 1 < std::size(cuts); ++k)
      w.append(slice(t, cuts[k], cuts[k + 1] - cuts[k]));
    EXPECT_EQ(w.rows(), t.rows);
    EXPECT_FALSE(fs::exists(dir / "blocks.fits"));  // temporary name until finish()
    w.finish();
  }
  EXPECT_EQ(slurp(dir / "whole.fits"), slurp(dir / "blocks.fits"));
  {
    FitsTableWriter w((dir / "abandoned.fits").string(), t, opt);
    w.append(slice(t, 0, 10));
  }
  EXPECT_FALSE(fs::exists(dir / "abandoned.fits"));

  const Table whole = read_fits_table((dir / "whole.fits").string());
  const FitsTableReader reader((dir / "whole.fits").string());
  ASSERT_EQ(reader.schema().rows, whole.rows);
  ASSERT_EQ(reader.schema().columns.size(), whole.columns.size());
  Table part;
  for (size_t first : {size_t(0), size_t(123), whole.rows - 7}) {
    reader.read(first, 7, part);
    ASSERT_EQ(part.rows, 7u);
    for (size_t c = 0; c < whole.columns.size(); ++c) {
      EXPECT_EQ(part.columns[c].name, whole.columns[c].name);
      EXPECT_EQ(part.columns[c].type, whole.columns[c].type);
      for (size_t k = 0; k < part.columns[c].values.size(); ++k) {
        const double a = whole.columns[c].values[first * whole.columns[c].repeat + k];
        const double b = part.columns[c].values[k];
        EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << c << " " << k;
      }
    }
  }
  EXPECT_THROW(reader.read(whole.rows - 1, 2, part), std::exception);
  fs::remove_all(dir);
}
