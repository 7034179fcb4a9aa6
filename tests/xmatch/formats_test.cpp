// Input formats and frames of xmatch: SExtractor ASCII_HEAD catalogs (round trip through the
// writer `celeris extract` uses), VOTable (the shared real catalog and small hand-written ones),
// Galactic coordinates (reference directions, and separations kept by the rotation).
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "celeris/error.hpp"
#include "celeris/table.hpp"
#include "celeris/xmatch.hpp"
#include "xmatch/sexagesimal.hpp"

using namespace celeris::xmatch;
namespace fs = std::filesystem;

namespace {

struct XMatchFormatsFiles : ::testing::Test {
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("celeris_xmatch_formats_" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
  }
};

double angle_deg(double ra1, double dec1, double ra2, double dec2) {
  const double d = M_PI / 180;
  const double c = std::sin(dec1 * d) * std::sin(dec2 * d) +
                   std::cos(dec1 * d) * std::cos(dec2 * d) * std::cos((ra1 - ra2) * d);
  return std::acos(std::fmin(1.0, c)) / d;
}

}  // namespace

// write_ascii_table's ASCII_HEAD (celeris extract's CATALOG_TYPE ASCII_HEAD) read back:
// names, units, a vector column numbered by element, integer and float columns, values.
TEST_F(XMatchFormatsFiles, AsciiHeadRoundTrip) {
  celeris::Table t;
  t.rows = 3;
  t.columns.push_back(
      {"NUMBER", "", "Running object number", celeris::ColumnType::Int32, 1, "%10d", {1, 2, 3}});
  t.columns.push_back({"FLUX_APER",
                       "count",
                       "Flux vector within fixed circular aperture(s)",
                       celeris::ColumnType::Float64,
                       2,
                       "%12.4f",
                       {1.5, 2.5, 3.25, 4.0, -5.125, 6.5}});
  t.columns.push_back({"ALPHA_J2000",
                       "deg",
                       "Right ascension of barycenter (J2000)",
                       celeris::ColumnType::Float64,
                       1,
                       "%13.7f",
                       {359.9999, 0.0001, 12.5}});
  t.columns.push_back({"DELTA_J2000",
                       "deg",
                       "Declination of barycenter (J2000)",
                       celeris::ColumnType::Float64,
                       1,
                       "%13.7f",
                       {-89.9, 0.5, 45.25}});
  const std::string path = (dir / "cat.txt").string();
  celeris::write_ascii_table(path, t, true);
  const celeris::Table got = read_catalog(path);
  ASSERT_EQ(got.rows, 3u);
  ASSERT_EQ(got.columns.size(), 4u);
  EXPECT_EQ(got.columns[0].name, "NUMBER");
  EXPECT_EQ(got.columns[0].type, celeris::ColumnType::Int64);
  EXPECT_EQ(got.columns[1].name, "FLUX_APER");
  EXPECT_EQ(got.columns[1].unit, "count");
  EXPECT_EQ(got.columns[1].repeat, 2);
  EXPECT_EQ(got.columns[1].values, t.columns[1].values);
  EXPECT_EQ(got.columns[2].values, t.columns[2].values);
  EXPECT_EQ(got.columns[3].description, "Declination of barycenter (J2000)");
  const auto [ra, dec] = find_radec_columns(got, "", "", path);
  EXPECT_EQ(ra, "ALPHA_J2000");
  EXPECT_EQ(dec, "DELTA_J2000");

  // A short row and a non-number are errors naming the line.
  const std::string head =
      "#   1 NUMBER   Running\n#   2 X_WORLD  x [deg]\n#   3 Y_WORLD  y [deg]\n";
  EXPECT_THROW(read_catalog(write("short.cat", head + "1 10.0 20.0\n2 10.0\n")), celeris::Error);
  try {
    read_catalog(write("text.cat", head + "1 10.0 20.0\n2 abc 3\n"));
    FAIL();
  } catch (const celeris::Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 5"), std::string::npos) << e.what();
  }
}

// The shared real VOTable (astropy-data's Spitzer catalog: 224 rows, Galactic l/b): read, its
// positions found by name as Galactic, and a self-match in ICRS equal to the brute force on the
// Galactic positions (the rotation keeps every separation).
TEST(XMatchFormats, SharedVotableGalactic) {
  const std::string path = std::string(CELERIS_TEST_DATA) + "/catalogs/spitzer_example_catalog.xml";
  if (!fs::exists(path)) GTEST_SKIP() << path << " absent";
  const celeris::Table t = read_catalog(path);
  ASSERT_EQ(t.rows, 224u);
  ASSERT_EQ(t.columns.size(), 16u);
  EXPECT_EQ(t.columns[0].name, "l");
  EXPECT_EQ(t.columns[0].unit, "deg");
  EXPECT_DOUBLE_EQ(t.columns[0].values[0], 18.384316999999999);
  EXPECT_DOUBLE_EQ(t.columns[1].values[0], 0.24038100000000001);
  const auto [l, b] = find_radec_columns(t, "", "", path);
  EXPECT_TRUE(galactic_by_name(l, b));
  const SkyPoints gal = table_positions(t, l, b, path);
  SkyPoints icrs = gal;
  galactic_to_icrs(icrs);
  Options o;
  o.radius_arcsec = 30;
  const auto got = self_pairs(icrs, o);
  const auto want = brute_force_pairs(gal, gal, 30, true);
  ASSERT_GT(want.size(), 10u);
  std::set<std::pair<int64_t, int64_t>> g, w;
  for (const Pair& p : got) g.insert({p.i, p.j});
  for (const Pair& p : want) w.insert({p.i, p.j});
  EXPECT_EQ(g, w);
  for (size_t k = 0; k < std::min(got.size(), want.size()); ++k)
    if (got[k].i == want[k].i && got[k].j == want[k].j)
      EXPECT_NEAR(got[k].sep_arcsec, want[k].sep_arcsec, 1e-8);
}

TEST_F(XMatchFormatsFiles, VotableSmallAndRefused) {
  const std::string ok = write("ok.vot", R"(<?xml version="1.0"?>
<VOTABLE version="1.3" xmlns="http://www.ivoa.net/xml/VOTable/v1.3"><RESOURCE><TABLE>
<FIELD name="id" datatype="long"/><FIELD name="name" datatype="char" arraysize="*"/>
<FIELD name="RA" datatype="double" unit="deg"/><FIELD name="DEC" datatype="float" unit="deg"/>
<DATA><TABLEDATA>
<TR><TD>7</TD><TD>star a</TD><TD>10.5</TD><TD>-20.25</TD></TR>
<TR><TD>8</TD><TD></TD><TD> 11.0 </TD><TD></TD></TR>
</TABLEDATA></DATA></TABLE></RESOURCE></VOTABLE>)");
  const celeris::Table t = read_catalog(ok);
  ASSERT_EQ(t.rows, 2u);
  ASSERT_EQ(t.columns.size(), 3u);  // the char column skipped, as read_csv skips text
  EXPECT_EQ(t.columns[0].type, celeris::ColumnType::Int64);
  EXPECT_EQ(t.columns[1].values[1], 11.0);
  EXPECT_TRUE(std::isnan(t.columns[2].values[1]));  // empty cell: null
  // The null Dec is a bad position for matching, named with its row.
  EXPECT_THROW(table_positions(t, "RA", "DEC", ok), celeris::Error);

  const std::string bin = write("bin.vot", R"(<VOTABLE><RESOURCE><TABLE>
<FIELD name="RA" datatype="double"/><DATA><BINARY><STREAM encoding="base64">AAAA</STREAM></BINARY></DATA>
</TABLE></RESOURCE></VOTABLE>)");
  try {
    read_catalog(bin);
    FAIL();
  } catch (const celeris::Error& e) {
    EXPECT_NE(std::string(e.what()).find("BINARY"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_catalog(write("broken.vot", "<VOTABLE><RESOURCE><TABLE><FIELD name=\"a\"")),
               celeris::Error);
  EXPECT_THROW(read_catalog(write("ragged.vot", R"(<VOTABLE><RESOURCE><TABLE>
<FIELD name="a" datatype="double"/><FIELD name="b" datatype="double"/>
<DATA><TABLEDATA><TR><TD>1</TD></TR></TABLEDATA></DATA></TABLE></RESOURCE></VOTABLE>)")),
               celeris::Error);
}

// Reference directions of the Galactic frame in ICRS (Hipparcos, ESA SP-1200 vol. 1 sec. 1.5.3:
// the north Galactic pole at RA 192.85948, Dec +27.12825; the origin l = b = 0 at
// RA 266.40500, Dec -28.93617), to 0.1 arcsec; and separations unchanged by the rotation.
TEST(XMatchFormats, GalacticToIcrs) {
  double ra, dec;
  galactic_to_icrs(0, 90, ra, dec);
  EXPECT_LT(angle_deg(ra, dec, 192.85948, 27.12825) * 3600, 0.1);
  galactic_to_icrs(0, 0, ra, dec);
  EXPECT_LT(angle_deg(ra, dec, 266.40500, -28.93617) * 3600, 0.1);
  galactic_to_icrs(122.93192, 27.12825, ra, dec);  // the ICRS north pole
  EXPECT_GT(dec, 90 - 0.1 / 3600);
  EXPECT_TRUE(galactic_by_name("glon", "GLAT"));
  EXPECT_TRUE(galactic_by_name("l", "b"));
  EXPECT_FALSE(galactic_by_name("RA", "DEC"));
  EXPECT_EQ(parse_frame("Galactic"), Frame::Galactic);
  EXPECT_THROW(parse_frame("ecliptic"), celeris::Error);
}

// Sexagesimal text: colons, blanks and h/d m s marks, signs (also "-00"), hours for RA.
TEST(XMatchFormats, SexagesimalCells) {
  double v = 0;
  ASSERT_TRUE(parse_sexagesimal("12:30:00", true, v));
  EXPECT_DOUBLE_EQ(v, 187.5);
  ASSERT_TRUE(parse_sexagesimal("-00:30:36", false, v));
  EXPECT_DOUBLE_EQ(v, -(30 + 36 / 60.0) / 60.0);
  ASSERT_TRUE(parse_sexagesimal(" +45 06 07.25 ", false, v));
  EXPECT_DOUBLE_EQ(v, 45 + 6 / 60.0 + 7.25 / 3600.0);
  ASSERT_TRUE(parse_sexagesimal("01h02m03.5s", false, v));  // 'h' implies hours
  EXPECT_DOUBLE_EQ(v, 15 * (1 + 2 / 60.0 + 3.5 / 3600.0));
  ASSERT_TRUE(parse_sexagesimal("-5d06m07s", false, v));
  EXPECT_DOUBLE_EQ(v, -(5 + 6 / 60.0 + 7 / 3600.0));
  for (const char* bad : {"", "12:30", "12:60:00", "12:30:61", "1.5:30:00", "12:30:00x", "abc",
                          "12:30:00:00", "-5d06m07s extra"})
    EXPECT_FALSE(parse_sexagesimal(bad, false, v)) << bad;
  EXPECT_FALSE(parse_sexagesimal("5d06m07s", true, v));  // degrees marked where hours are due
}

// A CSV catalog with sexagesimal RA/Dec matches as its decimal-degree twin: same pairs.
TEST_F(XMatchFormatsFiles, SexagesimalCsvMatchesDecimalTwin) {
  std::string sexa = "id,name,RA,DEC\n", deci = "id,RA,DEC\n";
  const double ras[] = {0.0005, 359.9995, 187.5, 187.5004, 10.0};
  const double decs[] = {-0.25, -0.2501, 89.99, 89.9901, -45.5};
  for (int k = 0; k < 5; ++k) {
    const double h = ras[k] / 15;
    const int hh = int(h), mm = int((h - hh) * 60);
    const double ss = ((h - hh) * 60 - mm) * 60;
    const double a = std::fabs(decs[k]);
    const int dd = int(a), dm = int((a - dd) * 60);
    const double ds = ((a - dd) * 60 - dm) * 60;
    char line[256];
    std::snprintf(line, sizeof line, "%d,star%d,%02d:%02d:%09.6f,%s%02d:%02d:%08.5f\n", k, k, hh,
                  mm, ss, decs[k] < 0 ? "-" : "+", dd, dm, ds);
    sexa += line;
    std::snprintf(line, sizeof line, "%d,%.12f,%.12f\n", k, ras[k], decs[k]);
    deci += line;
  }
  const celeris::Table ts = read_catalog(write("sexa.csv", sexa));
  const celeris::Table td = read_catalog(write("deci.csv", deci));
  ASSERT_EQ(ts.columns.size(), 3u);  // id, RA, DEC (the name column is text)
  EXPECT_EQ(ts.columns[1].name, "RA");
  EXPECT_EQ(ts.columns[1].unit, "deg");
  const SkyPoints ps = table_positions(ts, "RA", "DEC", "sexa");
  const SkyPoints pd = table_positions(td, "RA", "DEC", "deci");
  for (size_t k = 0; k < 5; ++k) {
    EXPECT_NEAR(ps.ra[k], pd.ra[k], 1e-8);
    EXPECT_NEAR(ps.dec[k], pd.dec[k], 1e-8);
  }
  Options o;
  o.radius_arcsec = 5;
  const auto a = self_pairs(ps, o), b = self_pairs(pd, o);
  ASSERT_EQ(a.size(), 2u);  // across RA 0/360 and at the pole
  ASSERT_EQ(b.size(), 2u);
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].i, b[k].i);
    EXPECT_EQ(a[k].j, b[k].j);
    EXPECT_NEAR(a[k].sep_arcsec, b[k].sep_arcsec, 1e-4);
  }
}
