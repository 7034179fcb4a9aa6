// `celeris xmatch` and `celeris simulate catalog` end to end: FITS and CSV round trips, and one-
// line errors for bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "celeris/table.hpp"
#include "celeris/xmatch.hpp"

namespace fs = std::filesystem;
using namespace celeris;

namespace {

struct Cli : ::testing::Test {
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("celeris_xmatch_" +
           std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string p(const std::string& name) const { return (dir / name).string(); }
  // Runs the CLI; returns the exit code, stderr in `err`.
  int run(const std::string& args, std::string* err = nullptr) const {
    const std::string errfile = p("stderr.txt");
    const std::string cmd =
        std::string(CELERIS_BIN) + " " + args + " > " + p("stdout.txt") + " 2> " + errfile;
    const int rc = std::system(cmd.c_str());
    if (err) {
      std::ifstream in(errfile);
      std::stringstream s;
      s << in.rdbuf();
      *err = s.str();
    }
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(p(name)) << text;
  }
};

}  // namespace

TEST_F(Cli, SelfMatchFitsRoundTrip) {
  ASSERT_EQ(run("simulate catalog --rows 5000 --seed 3 --dec-min -1 --dec-max 1 --repeats 3 -o " +
                p("cat.fits")),
            0);
  ASSERT_EQ(run("xmatch --self " + p("cat.fits") + " --radius 2arcsec -o " + p("pairs.fits")), 0);
  const Table cat = read_fits_table(p("cat.fits"));
  const Table out = read_fits_table(p("pairs.fits"));
  xmatch::Options o;
  o.radius_arcsec = 2;
  const auto pairs = xmatch::self_pairs(xmatch::table_positions(cat, "RA", "DEC", "cat"), o);
  ASSERT_GT(pairs.size(), 1000u);
  EXPECT_EQ(out.rows, pairs.size());
  ASSERT_NE(out.find("RA_1"), nullptr);
  ASSERT_NE(out.find("ID_2"), nullptr);
  const Column* sep = out.find("Separation");
  ASSERT_NE(sep, nullptr);
  for (size_t r = 0; r < out.rows; ++r) {
    EXPECT_LE(sep->values[r], 2.0);
    EXPECT_LT(out.find("ID_1")->values[r], out.find("ID_2")->values[r]);
  }
}

TEST_F(Cli, TwoCatalogsCsvRoundTrip) {
  write("a.csv", "# left\nname,ra,dec,flux\nx,10.0,20.0,1.5\ny,10.0003,20.0,2\nz,200,-45,3\n");
  write("b.csv", "ID,ALPHA_J2000,DELTA_J2000,flux\n7,10.0001,20.0,9\n8,300,10,8\n");
  ASSERT_EQ(
      run("xmatch " + p("a.csv") + " " + p("b.csv") + " -r 1arcsec --join all1 -o " + p("out.csv")),
      0);
  const Table t = xmatch::read_csv(p("out.csv"));
  ASSERT_EQ(t.rows, 3u);  // x-7 (0.338 arcsec), y-7 (0.677 arcsec), z unmatched
  ASSERT_NE(t.find("flux_1"), nullptr);
  ASSERT_NE(t.find("flux_2"), nullptr);
  ASSERT_NE(t.find("ALPHA_J2000"), nullptr);
  EXPECT_EQ(t.find("ID")->values[0], 7);
  EXPECT_EQ(t.find("ID")->values[1], 7);
  EXPECT_NEAR(t.find("Separation")->values[0], 0.36 * std::cos(20 * M_PI / 180), 1e-3);
  EXPECT_TRUE(std::isnan(t.find("ID")->values[2]));
  EXPECT_TRUE(std::isnan(t.find("Separation")->values[2]));
  // The same match written as FITS holds the same rows.
  ASSERT_EQ(run("xmatch " + p("a.csv") + " " + p("b.csv") + " -r 1arcsec --join all1 -o " +
                p("out.fits")),
            0);
  EXPECT_EQ(read_fits_table(p("out.fits")).rows, 3u);
}

TEST_F(Cli, BadInputsAreOneLineErrors) {
  std::string err;
  write("a.csv", "ra,dec\n10,20\n11,95\n");
  write("b.csv", "x,y\n10,20\n");
  write("empty.csv", "ra,dec\n");
  write("nan.csv", "ra,dec\n1,2\n3,nan\n");
  write("good.csv", "ra,dec\n1,2\n3,4\n");
  EXPECT_EQ(run("xmatch " + p("a.csv") + " " + p("a.csv") + " -o " + p("o.csv"), &err), 1);
  EXPECT_NE(err.find("row 2"), std::string::npos) << err;
  EXPECT_EQ(run("xmatch " + p("nan.csv") + " " + p("nan.csv") + " -o " + p("o.csv"), &err), 1);
  EXPECT_NE(err.find("row 2"), std::string::npos) << err;
  EXPECT_EQ(run("xmatch " + p("b.csv") + " " + p("b.csv") + " -o " + p("o.csv"), &err), 1);
  EXPECT_NE(err.find("no RA/Dec columns"), std::string::npos) << err;
  EXPECT_EQ(
      run("xmatch " + p("good.csv") + " " + p("b.csv") + " --ra2 RA --dec2 y -o " + p("o.csv"),
          &err),
      1);
  EXPECT_NE(err.find("'RA'"), std::string::npos) << err;
  EXPECT_EQ(run("xmatch --self " + p("empty.csv") + " -o " + p("o.csv"), &err), 1);
  EXPECT_NE(err.find("empty"), std::string::npos) << err;
  EXPECT_EQ(
      run("xmatch --self " + p("b.csv") + " --ra1 x --dec1 y -r 2parsec -o " + p("o.csv"), &err),
      1);
  EXPECT_NE(err.find("unit"), std::string::npos) << err;
  ASSERT_EQ(run("simulate image --size 64 -o " + p("img.fits")), 0);
  EXPECT_EQ(run("xmatch --self " + p("img.fits") + " -o " + p("o.csv"), &err), 1);
  EXPECT_NE(err.find("table"), std::string::npos) << err;
  EXPECT_EQ(run("xmatch --self " + p("img.fits[0]") + " -o " + p("o.csv"), &err), 1);
  EXPECT_NE(err.find("not a table"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(p("o.csv")));
}

// --memory: the chunked match writes the same table as the in-memory one (self-match and two
// catalogs with find/join modes), and draws its progress bar on stderr when asked.
TEST_F(Cli, MemoryBoundGivesSameOutput) {
  ASSERT_EQ(run("simulate catalog --rows 20000 --seed 4 --dec-min -3 --dec-max 3 --repeats 2 -o " +
                p("a.fits")),
            0);
  ASSERT_EQ(run("simulate catalog --rows 15000 --seed 5 --dec-min -3 --dec-max 3 --repeats 2 -o " +
                p("b.fits")),
            0);
  const std::vector<std::string> cases = {
      "--self " + p("a.fits") + " --radius 3arcsec",
      p("a.fits") + " " + p("b.fits") + " --radius 1arcmin --find best --join 1or2",
      p("a.fits") + " " + p("b.fits") + " --radius 20arcsec --find best2 --join all2"};
  for (const std::string& args : cases) {
    ASSERT_EQ(run("xmatch " + args + " -o " + p("ref.fits")), 0) << args;
    std::string err;
    ASSERT_EQ(run("xmatch " + args + " --memory 512k --progress -o " + p("chunked.fits"), &err), 0)
        << args << err;
    EXPECT_NE(err.find("100.0%"), std::string::npos) << err;
    const Table ref = read_fits_table(p("ref.fits"));
    const Table got = read_fits_table(p("chunked.fits"));
    ASSERT_GT(ref.rows, 0u) << args;
    ASSERT_EQ(got.rows, ref.rows) << args;
    ASSERT_EQ(got.columns.size(), ref.columns.size()) << args;
    for (size_t c = 0; c < ref.columns.size(); ++c)
      for (size_t r = 0; r < ref.columns[c].values.size(); ++r) {
        const double a = ref.columns[c].values[r], b = got.columns[c].values[r];
        ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b)))
            << args << " column " << ref.columns[c].name << " row " << r;
      }
  }
  std::string err;
  EXPECT_EQ(run("xmatch --self " + p("a.fits") + " --memory 1k -o " + p("x.fits"), &err), 1);
  EXPECT_NE(err.find("too small"), std::string::npos) << err;
}

// --memory on FITS inputs streams them (positions by blocks, output in blocks, pairs spilled to a
// temporary file): the output files are byte-identical to the in-memory run's, FITS and CSV, for
// every find mode (best, greedy, best2 and a self-match's best1 re-sort the pairs on disk; --memory
// 6M keeps about 65,000 pairs per sorted run, so the larger cases spill several runs), from FITS
// and from CSV inputs.
TEST_F(Cli, StreamedOutputIsByteIdentical) {
  ASSERT_EQ(run("simulate catalog --rows 120000 --seed 4 --dec-min -5 --dec-max 5 --repeats 2 -o " +
                p("a.fits")),
            0);
  // Same sources, other scatter: many two-catalog matches.
  ASSERT_EQ(run("simulate catalog --rows 60000 --seed 4 --dec-min -5 --dec-max 5 --repeats 2 "
                "--scatter 1.5 -o " +
                p("b.fits")),
            0);
  auto bytes = [&](const std::string& name) {
    std::ifstream in(p(name), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--self " + p("a.fits") + " --radius 3arcsec", "fits"},
      {"--self " + p("a.fits") + " --radius 3arcsec --find best1 --join all1", "csv"},
      {"--self " + p("a.fits") + " --radius 5arcsec --find best --join 1not2", "fits"},
      {p("a.fits") + " " + p("b.fits") + " --radius 3arcsec --find best1 --join 1or2", "fits"},
      {p("a.fits") + " " + p("b.fits") + " --radius 3arcsec --find best --join all2", "csv"},
      {p("b.fits") + " " + p("a.fits") + " --radius 3arcsec --find best2 --join 2not1", "fits"},
      // STILTS best from the larger right side; greedy, on two catalogs and on one.
      {p("b.fits") + " " + p("a.fits") + " --radius 3arcsec --find best --join 1or2", "fits"},
      {p("a.fits") + " " + p("b.fits") + " --radius 3arcsec --find greedy --join all1", "fits"},
      {"--self " + p("a.fits") + " --radius 5arcsec --find greedy", "csv"},
      // CSV inputs: converted to temporary FITS tables block by block, then streamed.
      {"--self " + p("a.csv") + " --radius 3arcsec --find best --join all1", "fits"},
      {p("a.csv") + " " + p("b.fits") + " --radius 3arcsec --join 1or2", "csv"}};
  celeris::xmatch::write_catalog(p("a.csv"), celeris::xmatch::read_catalog(p("a.fits")));
  for (const auto& [args, ext] : cases) {
    ASSERT_EQ(run("xmatch " + args + " -q -o " + p("ref." + ext)), 0) << args;
    std::string err;
    ASSERT_EQ(run("xmatch " + args + " --memory 6M -o " + p("streamed." + ext), &err), 0)
        << args << err;
    std::ifstream summary(p("stdout.txt"));
    std::stringstream s;
    s << summary.rdbuf();
    EXPECT_NE(s.str().find("streamed"), std::string::npos) << args << s.str();
    const std::string ref = bytes("ref." + ext);
    ASSERT_GT(ref.size(), 100000u) << args;
    EXPECT_TRUE(ref == bytes("streamed." + ext)) << args;
  }
  // No temporary file (output or spilled pairs) is left behind.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir))
    files += e.path().string().find(".tmp") != std::string::npos;
  EXPECT_EQ(files, 0u);
  std::string err;
  EXPECT_EQ(run("xmatch --self " + p("a.fits") + " --memory 100k -o " + p("x.fits"), &err), 1);
  EXPECT_NE(err.find("too small"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(p("x.fits")));
}

// A bad position in a streamed (--memory) input is an error naming the file, the row and the
// column, as in memory, and leaves no output.
TEST_F(Cli, StreamedBadPositionNamesFileRowAndColumn) {
  celeris::Table t;
  t.rows = 4;
  celeris::Column ra, dec;
  ra.name = "RA";
  dec.name = "DEC";
  ra.values = {10, 10.001, 10.002, 10.003};
  dec.values = {5, 5, std::nan(""), 5};
  t.columns = {ra, dec};
  celeris::write_fits_table(p("nan.fits"), t);
  std::string err;
  EXPECT_EQ(run("xmatch --self " + p("nan.fits") + " --memory 10M -o " + p("x.fits"), &err), 1);
  EXPECT_NE(err.find("nan.fits: row 3: DEC"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(p("x.fits")));
}

// CSV inputs with a text column (quoted commas), blank cells in an integer column and a comment
// line: streamed (--memory) and in-memory outputs are byte-identical, and a blank integer cell
// reads as NaN (its column is Float64: an integer column cannot hold a blank).
TEST_F(Cli, CsvWithBlanksStreamsLikeInMemory) {
  {
    std::ofstream a(p("a.csv")), b(p("b.csv"));
    a << "# a comment\nname,RA,DEC,flag\n";
    b << "RA,DEC,id\n";
    for (int i = 0; i < 400; ++i) {
      const double ra = 0.001 * i, dec = 0.0005 * (i % 7);
      a << "\"src " << i << ", x\"," << ra << "," << dec << ","
        << (i % 9 ? std::to_string(i % 5) : "") << "\n";
      b << ra + 1e-4 << "," << dec << "," << i << "\n";
    }
  }
  for (const std::string ext : {"csv", "fits"}) {
    const std::string args = p("a.csv") + " " + p("b.csv") + " --radius 2arcsec --join 1or2 -q";
    ASSERT_EQ(run("xmatch " + args + " -o " + p("mem." + ext)), 0);
    ASSERT_EQ(run("xmatch " + args + " --memory 2M -o " + p("str." + ext)), 0);
    std::ifstream m(p("mem." + ext), std::ios::binary), s(p("str." + ext), std::ios::binary);
    std::stringstream ms, ss;
    ms << m.rdbuf();
    ss << s.rdbuf();
    EXPECT_TRUE(ms.str() == ss.str()) << ext;
  }
  const Table t = read_fits_table(p("mem.fits"));
  const Column* flag = t.find("flag");
  ASSERT_NE(flag, nullptr);
  EXPECT_EQ(flag->type, ColumnType::Float64);
  EXPECT_TRUE(std::isnan(flag->values[0]));  // row of source 0: blank flag
  EXPECT_EQ(flag->values[1], 1.0);
}
