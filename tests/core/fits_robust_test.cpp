// Bad FITS input found by fuzzing (issue 18), each generated here byte by byte: every case must
// end in one short celeris::Error line, never a crash, a hang or an allocation the file cannot
// back; and the good files beside them must still read.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/fits.hpp"
#include "celeris/table.hpp"
#include "celeris/wcs.hpp"
#include "celeris/xmatch.hpp"
#include "fits_bytes.hpp"

namespace fs = std::filesystem;
using celeris::Error;
using namespace celeris::test;

namespace {

fs::path tmpdir() {
  fs::path d = fs::temp_directory_path() / ("celeris_fits_robust_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// A w x h BITPIX -32 image (big-endian floats) with extra header cards.
std::string image_file(int w, int h, const std::vector<std::string>& extra, float value = 100.0f,
                       size_t data_pixels = size_t(-1)) {
  std::vector<std::string> cards = {card("SIMPLE", "T"), card("BITPIX", "-32"), card("NAXIS", "2"),
                                    card("NAXIS1", std::to_string(w)),
                                    card("NAXIS2", std::to_string(h))};
  cards.insert(cards.end(), extra.begin(), extra.end());
  const size_t n = std::min(data_pixels, static_cast<size_t>(w) * h);
  std::string data(n * 4, '\0');
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  for (size_t i = 0; i < n; ++i)
    for (int b = 0; b < 4; ++b) data[i * 4 + b] = static_cast<char>(bits >> (24 - 8 * b));
  return header(cards) + padded(data);
}

// A primary HDU and a 2-column (RA, DEC as doubles) binary table of `rows` rows, of which only
// min(rows, 3) are present in the file.
std::string table_file(const std::string& ttype1, long long rows,
                       const std::vector<std::string>& extra = {}) {
  std::string prim =
      header({card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "0"), card("EXTEND", "T")});
  std::vector<std::string> cards = {card("XTENSION", "'BINTABLE'"),
                                    card("BITPIX", "8"),
                                    card("NAXIS", "2"),
                                    card("NAXIS1", "16"),
                                    card("NAXIS2", std::to_string(rows)),
                                    card("PCOUNT", "0"),
                                    card("GCOUNT", "1"),
                                    card("TFIELDS", "2"),
                                    card("TTYPE1", ttype1),
                                    card("TFORM1", "'D'"),
                                    card("TTYPE2", "'DEC'"),
                                    card("TFORM2", "'D'")};
  cards.insert(cards.end(), extra.begin(), extra.end());
  std::string data;
  for (long long r = 0; r < std::min(rows, 3LL); ++r)
    for (double v : {10.0 + r * 1e-4, 20.0}) {
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      for (int b = 0; b < 8; ++b) data += static_cast<char>(bits >> (56 - 8 * b));
    }
  return prim + header(cards) + padded(data);
}

const std::vector<std::string> kWcs = {card("CTYPE1", "'RA---TAN'"), card("CTYPE2", "'DEC--TAN'"),
                                       card("CRVAL1", "10.0"),       card("CRVAL2", "20.0"),
                                       card("CRPIX1", "8"),          card("CRPIX2", "8"),
                                       card("CD1_1", "-0.0001"),     card("CD2_2", "0.0001")};

// The error of `f`, checked to be one short line naming `want`.
template <class F>
std::string one_line_error(F&& f, const std::string& want) {
  try {
    f();
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_LE(m.size(), 240u) << m;
    for (unsigned char c : m) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << m;
    EXPECT_NE(m.find(want), std::string::npos) << "'" << want << "' not in: " << m;
    return m;
  }
  ADD_FAILURE() << "no celeris::Error (expected one naming " << want << ")";
  return {};
}

}  // namespace

// CFITSIO 4.2.0 copies an unquoted TTYPEn value into a 70-byte buffer: 70 digits abort it.
TEST(FitsRobust, SeventyCharacterUnquotedColumnNameIsRefused) {
  const fs::path p = tmpdir() / "ttype70.fits";
  write_bytes(p, table_file(std::string(70, '1'), 3));
  one_line_error([&] { celeris::read_fits_table(p.string()); }, "TTYPE1");
  one_line_error([&] { celeris::xmatch::fits_positions(p.string(), "RA", "DEC", 100); },
                 "unquoted value");
  // A quoted name of the same length is legal FITS and still read.
  write_bytes(p, table_file("'" + std::string(66, 'x') + "'", 3));
  EXPECT_EQ(celeris::read_fits_table(p.string()).rows, 3u);
}

TEST(FitsRobust, StringWithoutClosingQuoteIsRefused) {
  const fs::path p = tmpdir() / "quote.fits";
  write_bytes(p, table_file("'RA", 3));
  one_line_error([&] { celeris::read_fits_table(p.string()); }, "closing quote");
}

// One byte outside printable ASCII reaches wcslib's lexer otherwise (0x80 in place of RADESYS's
// closing quote made it loop forever), plain or gzipped.
TEST(FitsRobust, NonAsciiHeaderByteIsRefusedPlainAndGzip) {
  auto cards = kWcs;
  cards.push_back(std::string("RADESYS = 'FK5     \x80").append(60, ' '));
  const std::string bytes = image_file(16, 16, cards);
  const fs::path plain = tmpdir() / "radesys.fits", gz = tmpdir() / "radesys.fits.gz";
  write_bytes(plain, bytes);
  write_gzip(gz, bytes);
  for (const fs::path& p : {plain, gz}) {
    const std::string m = one_line_error([&] { celeris::read_fits_image(p.string()); }, "0x80");
    EXPECT_NE(m.find("RADESYS"), std::string::npos) << m;
    EXPECT_NE(m.find("HDU 1"), std::string::npos) << m;
  }
}

TEST(FitsRobust, WcsRefusesNonAsciiHeaderItIsGiven) {
  auto cards = kWcs;
  cards.push_back(card("RADESYS", "'FK5     \x80"));
  const celeris::FitsHeader h(cards);
  const auto start = std::chrono::steady_clock::now();
  one_line_error([&] { celeris::Wcs::from_header(h); }, "not printable");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(celeris::Wcs::from_header(celeris::FitsHeader(kWcs)).has_value());
}

// A 17 KB table claiming 1e9 rows made xmatch allocate 7.8 GB before failing.
TEST(FitsRobust, TableRowsBeyondTheFileAreRefusedBeforeAllocating) {
  const fs::path p = tmpdir() / "rows.fits";
  write_bytes(p, table_file("'RA'", 1000000000LL));
  const auto start = std::chrono::steady_clock::now();
  one_line_error([&] { celeris::read_fits_table(p.string()); }, "more than the file holds");
  one_line_error([&] { celeris::xmatch::fits_positions(p.string(), "RA", "DEC", 100); }, "HDU 2");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// CFITSIO 4.2.0 lets TFIELDS > 999 through without an error and callocs 160 bytes per column
// (found by the fits_table fuzzer: TFIELDS of about 1.4e14).
TEST(FitsRobust, TfieldsBeyondTheStandardIsRefused) {
  for (const std::string tfields : {"1000", "140723041451712", "-1"}) {
    std::string bytes = table_file("'RA'", 3);
    const std::string two = card("TFIELDS", "2"), bad = card("TFIELDS", tfields);
    const size_t at = bytes.find(two);
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at, two.size(), bad);
    const fs::path p = tmpdir() / "tfields.fits";
    write_bytes(p, bytes);
    one_line_error([&] { celeris::read_fits_table(p.string()); }, "TFIELDS = " + tfields);
    one_line_error([&] { celeris::xmatch::fits_positions(p.string(), "RA", "DEC", 64); },
                   "TFIELDS = " + tfields);
  }
}

// Found by the fuzz step: "TFIELDS 1= 40723041451712" has no "= " in columns 9-10, so the header
// check took it for commentary, but CFITSIO reads the value after its '=' as TFIELDS.
TEST(FitsRobust, SizeKeywordWithItsEqualsSignPastColumn9IsJudgedAsCfitsioReadsIt) {
  std::string bytes = table_file("'RA'", 3);
  const std::string two = card("TFIELDS", "2");
  const size_t at = bytes.find(two);
  ASSERT_NE(at, std::string::npos);
  std::string odd = "TFIELDS 1= 40723041451712";
  odd.resize(80, ' ');
  bytes.replace(at, two.size(), odd);
  const fs::path p = tmpdir() / "tfields_past_9.fits";
  write_bytes(p, bytes);
  one_line_error([&] { celeris::read_fits_table(p.string()); }, "TFIELDS = 40723041451712");
  // The same card with a value CFITSIO accepts still reads.
  odd = "TFIELDS 1= 2";
  odd.resize(80, ' ');
  bytes.replace(at, odd.size(), odd);
  write_bytes(p, bytes);
  EXPECT_NO_THROW(celeris::read_fits_table(p.string()));
}

// Found by the fits_table fuzzer: CFITSIO takes a block whose first card is
// "XTENSIONUN= 'BINTABLE'" for an extension (the header check did not, and let it through to a
// calloc of 2e16 bytes). Such a header is now checked: without its END it is refused; whole, it
// is read as CFITSIO reads it.
TEST(FitsRobust, ExtensionNamedPastItsEighthColumnIsChecked) {
  std::string bytes = table_file("'RA'", 3);
  const std::string first = card("XTENSION", "'BINTABLE'");
  const size_t at = bytes.find(first);
  ASSERT_NE(at, std::string::npos);
  std::string odd = "XTENSIONUN= 'BINTABLE'";
  odd.resize(80, ' ');
  bytes.replace(at, first.size(), odd);
  const fs::path p = tmpdir() / "xtension_un.fits";
  write_bytes(p, bytes);
  const celeris::Table t = celeris::read_fits_table(p.string());
  EXPECT_EQ(t.rows, 3u);
  std::string no_end = bytes;
  const size_t end = no_end.find("END     ", at);
  ASSERT_NE(end, std::string::npos);
  no_end.replace(end, 3, "   ");
  write_bytes(p, no_end);
  one_line_error([&] { celeris::read_fits_table(p.string()); }, "HDU 2");
  one_line_error([&] { celeris::xmatch::fits_positions(p.string(), "RA", "DEC", 64); }, "HDU 2");
}

TEST(FitsRobust, ImageSizeBeyondTheFileIsRefusedPlainAndGzip) {
  const std::string bytes = image_file(100000, 100000, {}, 1.0f, 10);
  const fs::path plain = tmpdir() / "naxis.fits", gz = tmpdir() / "naxis.fits.gz";
  write_bytes(plain, bytes);
  write_gzip(gz, bytes);
  for (const fs::path& p : {plain, gz})
    one_line_error([&] { celeris::read_fits_image(p.string()); }, "more than the file holds");
  // Sizes whose product overflows 64 bits.
  write_bytes(plain, header({card("SIMPLE", "T"), card("BITPIX", "-64"), card("NAXIS", "3"),
                             card("NAXIS1", "4294967296"), card("NAXIS2", "4294967296"),
                             card("NAXIS3", "4294967296")}));
  one_line_error([&] { celeris::read_fits_image(plain.string()); }, "too large");
  write_bytes(plain, header({card("SIMPLE", "T"), card("BITPIX", "7"), card("NAXIS", "0")}));
  one_line_error([&] { celeris::read_fits_image(plain.string()); }, "BITPIX");
  write_bytes(plain, header({card("SIMPLE", "T"), card("BITPIX", "-32"), card("NAXIS", "2"),
                             card("NAXIS1", "1e3"), card("NAXIS2", "4")}));
  one_line_error([&] { celeris::read_fits_image(plain.string()); }, "NAXIS1");
}

TEST(FitsRobust, HeaderWithoutEndIsRefused) {
  const fs::path p = tmpdir() / "noend.fits";
  std::string h = header({card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "0")});
  h.replace(h.find("END "), 3, "   ");
  write_bytes(p, h);
  one_line_error([&] { celeris::read_fits_image(p.string()); }, "no END card");
}

TEST(FitsRobust, OtherCompressionsAreRefusedNotParsedUnchecked) {
  const fs::path p = tmpdir() / "x.fits.bz2";
  write_bytes(p, "BZh91AY&SY" + std::string(100, '\0'));
  one_line_error([&] { celeris::read_fits_image(p.string()); }, "bzip2");
}

// Good files around the checks: gzip, zero blocks after the last HDU; values read back exactly.
TEST(FitsRobust, GoodFilesStillRead) {
  const std::string bytes = image_file(16, 8, kWcs, 42.0f);
  const fs::path gz = tmpdir() / "good.fits.gz", plain = tmpdir() / "good.fits";
  write_gzip(gz, bytes);
  auto img = celeris::read_fits_image(gz.string());
  EXPECT_EQ(img.pixels.width(), 16);
  EXPECT_EQ(img.pixels(3, 5), 42.0f);
  write_bytes(plain, bytes + std::string(2880, '\0'));
  EXPECT_EQ(celeris::read_fits_image(plain.string()).pixels(0, 0), 42.0f);
}

// A pixel of 3.4e38 overflows every sum it enters: read as masked, like an infinity.
TEST(FitsRobust, PixelsBeyondBigAreMasked) {
  const fs::path p = tmpdir() / "big.fits";
  write_bytes(p, image_file(4, 4, {}, 3.4e38f));
  auto img = celeris::read_fits_image(p.string());
  EXPECT_TRUE(std::isnan(img.pixels(1, 1)));
  write_bytes(p, image_file(4, 4, {}, 1e30f));
  EXPECT_EQ(celeris::read_fits_image(p.string()).pixels(1, 1), 1e30f);
}

TEST(FitsRobust, PrintableExcerptIsShortAndPrintable) {
  EXPECT_EQ(celeris::printable_excerpt("abc"), "abc");
  EXPECT_EQ(celeris::printable_excerpt(std::string("a\nb\x01\xff", 5)), "a\\x0Ab\\x01\\xFF");
  const std::string junk(2 << 20, 'x');
  EXPECT_EQ(celeris::printable_excerpt(junk, 60), std::string(60, 'x') + "...");
}
