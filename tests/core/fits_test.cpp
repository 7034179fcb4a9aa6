// FITS image reading: BITPIX, scaling, BLANK, HDU selection, compression, and bad input.
#include <fitsio.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "celeris/error.hpp"
#include "celeris/fits.hpp"
#include "celeris/table.hpp"

namespace fs = std::filesystem;
using celeris::Error;

namespace {

fs::path tmpdir() {
  fs::path d = fs::temp_directory_path() / ("celeris_fits_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// Writes a w x h image of the given BITPIX with optional BZERO/BSCALE/BLANK through CFITSIO,
// from raw values (before scaling).
void write_raw(const std::string& path, int bitpix, int w, int h, const std::vector<double>& raw,
               double bzero = 0, double bscale = 1, const long long* blank = nullptr,
               bool extension = false, const char* extname = nullptr) {
  fitsfile* f = nullptr;
  int status = 0;
  fits_create_file(&f, ("!" + path).c_str(), &status);
  long naxes[2] = {w, h};
  if (extension) fits_create_img(f, 8, 0, nullptr, &status);
  fits_create_img(f, bitpix, 2, naxes, &status);
  if (extname) fits_update_key(f, TSTRING, "EXTNAME", const_cast<char*>(extname), nullptr, &status);
  if (bzero != 0 || bscale != 1) {
    fits_update_key(f, TDOUBLE, "BZERO", &bzero, nullptr, &status);
    fits_update_key(f, TDOUBLE, "BSCALE", &bscale, nullptr, &status);
    fits_set_bscale(f, 1.0, 0.0, &status);
  }
  if (blank) {
    long long b = *blank;
    fits_update_key(f, TLONGLONG, "BLANK", &b, nullptr, &status);
  }
  fits_write_img(f, TDOUBLE, 1, static_cast<LONGLONG>(raw.size()), const_cast<double*>(raw.data()),
                 &status);
  fits_close_file(f, &status);
  ASSERT_EQ(status, 0);
}

}  // namespace

TEST(FitsImage, AllBitpixWithScaling) {
  const auto dir = tmpdir();
  const std::vector<double> raw = {0, 1, 2, 3, 4, 5, 100, 120};
  for (int bitpix : {8, 16, 32, 64, -32, -64}) {
    const std::string p = (dir / ("b" + std::to_string(bitpix + 100) + ".fits")).string();
    write_raw(p, bitpix, 4, 2, raw, 10.0, 0.5);
    const auto img = celeris::read_fits_image(p);
    ASSERT_EQ(img.pixels.width(), 4);
    ASSERT_EQ(img.pixels.height(), 2);
    EXPECT_EQ(img.bitpix, bitpix);
    for (int i = 0; i < 8; ++i)
      EXPECT_FLOAT_EQ(img.pixels.data()[i], static_cast<float>(raw[i] * 0.5 + 10.0)) << bitpix;
    // Row-major: pixel (x=1, y=1) is raw[5].
    EXPECT_FLOAT_EQ(img.pixels(1, 1), static_cast<float>(5 * 0.5 + 10.0));
  }
  fs::remove_all(dir);
}

// SExtractor scales in single precision (raw converted to float, times (float)BSCALE, plus
// (float)BZERO); CFITSIO would scale in double and round once. gc_2mass_j's BSCALE is such a case:
// on some 16-bit values the two differ by one ulp, which changes SExtractor's deblending.
TEST(FitsImage, ScalingInSinglePrecisionAsSExtractor) {
  const auto dir = tmpdir();
  const double bscale = 0.045777764213996, bzero = 1500.0;
  std::vector<double> raw;
  for (int v = -32768; v < 32768; v += 7) raw.push_back(v);
  const int w = static_cast<int>(raw.size());
  const std::string p = (dir / "s16.fits").string();
  write_raw(p, 16, w, 1, raw, bzero, bscale);
  const auto img = celeris::read_fits_image(p);
  const float bs = static_cast<float>(bscale), bz = static_cast<float>(bzero);
  int differs_from_double = 0;
  for (int i = 0; i < w; ++i) {
    const float expected = static_cast<float>(raw[i]) * bs + bz;
    ASSERT_EQ(img.pixels.data()[i], expected) << "raw " << raw[i];
    differs_from_double += expected != static_cast<float>(raw[i] * bscale + bzero);
  }
  EXPECT_GT(differs_from_double, 0);  // the test distinguishes the two arithmetics
  fs::remove_all(dir);
}

TEST(FitsImage, BlankAndNanAreMasked) {
  const auto dir = tmpdir();
  const long long blank = -999;
  write_raw((dir / "i.fits").string(), 16, 3, 1, {1, -999, 3}, 0, 1, &blank);
  auto img = celeris::read_fits_image((dir / "i.fits").string());
  EXPECT_FALSE(std::isnan(img.pixels(0, 0)));
  EXPECT_TRUE(std::isnan(img.pixels(1, 0)));
  write_raw((dir / "f.fits").string(), -32, 3, 1, {1, NAN, INFINITY});
  img = celeris::read_fits_image((dir / "f.fits").string());
  EXPECT_TRUE(std::isnan(img.pixels(1, 0)));
  EXPECT_TRUE(std::isnan(img.pixels(2, 0)));  // infinities are masked too
  fs::remove_all(dir);
}

TEST(FitsImage, ExtensionByNumberAndNameAndFirstImage) {
  const auto dir = tmpdir();
  const std::string p = (dir / "mef.fits").string();
  write_raw(p, -32, 2, 2, {1, 2, 3, 4}, 0, 1, nullptr, true, "SCI");
  EXPECT_FLOAT_EQ(celeris::read_fits_image(p + "[1]").pixels(1, 1), 4.0f);
  EXPECT_FLOAT_EQ(celeris::read_fits_image(p + "[SCI]").pixels(0, 1), 3.0f);
  const auto img = celeris::read_fits_image(p);  // empty primary: first image extension
  EXPECT_EQ(img.hdu, 2);
  EXPECT_THROW(celeris::read_fits_image(p + "[7]"), Error);
  EXPECT_THROW(celeris::read_fits_image(p + "[NOPE]"), Error);
  fs::remove_all(dir);
}

TEST(FitsImage, CompressedAndGzip) {
  const auto dir = tmpdir();
  const std::string p = (dir / "c.fits").string();
  std::vector<double> raw(64 * 64);
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<double>(i % 97);
  write_raw(p, 16, 64, 64, raw);
  // Tile-compress with CFITSIO's own copy, and gzip with the system gzip.
  fitsfile *in = nullptr, *out = nullptr;
  int status = 0;
  fits_open_file(&in, p.c_str(), READONLY, &status);
  fits_create_file(&out, ("!" + (dir / "c.fits.fz").string() + "[compress R]").c_str(), &status);
  fits_copy_hdu(in, out, 0, &status);
  fits_close_file(out, &status);
  fits_close_file(in, &status);
  ASSERT_EQ(status, 0);
  const auto fz = celeris::read_fits_image((dir / "c.fits.fz").string());
  EXPECT_FLOAT_EQ(fz.pixels(5, 3), static_cast<float>((3 * 64 + 5) % 97));
  ASSERT_EQ(std::system(("gzip -kf " + p).c_str()), 0);
  const auto gz = celeris::read_fits_image(p + ".gz");
  EXPECT_FLOAT_EQ(gz.pixels(5, 3), static_cast<float>((3 * 64 + 5) % 97));
  fs::remove_all(dir);
}

TEST(FitsImage, BadInputGivesOneLineErrors) {
  const auto dir = tmpdir();
  auto message = [](const std::string& p) {
    try {
      celeris::read_fits_image(p);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message((dir / "missing.fits").string()).find("no such file"), std::string::npos);
  std::ofstream((dir / "text.fits").string()) << "this is not a FITS file at all\n";
  EXPECT_NE(message((dir / "text.fits").string()).find("FITS"), std::string::npos);
  // Truncated: a valid header with missing data.
  write_raw((dir / "t.fits").string(), -32, 100, 100, std::vector<double>(10000, 1.0));
  fs::resize_file(dir / "t.fits", 2880 + 1000);
  EXPECT_NE(message((dir / "t.fits").string()), "no error");
  write_raw((dir / "one.fits").string(), -32, 5, 1, {1, 2, 3, 4, 5});
  {  // a 1-D image
    fitsfile* f = nullptr;
    int status = 0;
    long n = 5;
    fits_create_file(&f, ("!" + (dir / "1d.fits").string()).c_str(), &status);
    fits_create_img(f, -32, 1, &n, &status);
    float v[5] = {1, 2, 3, 4, 5};
    fits_write_img(f, TFLOAT, 1, 5, v, &status);
    fits_close_file(f, &status);
    long cube[3] = {4, 4, 3};
    fits_create_file(&f, ("!" + (dir / "3d.fits").string()).c_str(), &status);
    fits_create_img(f, -32, 3, cube, &status);
    float c[48] = {0};
    fits_write_img(f, TFLOAT, 1, 48, c, &status);
    fits_close_file(f, &status);
  }
  EXPECT_NE(message((dir / "1d.fits").string()).find("2-D"), std::string::npos);
  EXPECT_NE(message((dir / "3d.fits").string()).find("cube"), std::string::npos);
  for (const auto& m :
       {message((dir / "missing.fits").string()), message((dir / "1d.fits").string())})
    EXPECT_EQ(m.find('\n'), std::string::npos);
  fs::remove_all(dir);
}

// FITS_LDAC: LDAC_IMHEAD holds every image header card, then the summary cards, then END, each
// in its own 80-character element of the (80, N) cell (SCAMP and PSFEx read them there).
TEST(FitsTable, LdacImageHeaderHoldsEveryCard) {
  auto pad = [](std::string c) {
    c.resize(80, ' ');
    return c;
  };
  const std::vector<std::string> image_cards = {
      pad("SIMPLE  =                    T"), pad("BITPIX  =                  -32"),
      pad("NAXIS   =                    2"), pad("NAXIS1  =                   64"),
      pad("NAXIS2  =                   48"), pad("GAIN    =                  2.5 / e-/ADU")};
  celeris::FitsTableOptions opt;
  opt.ldac = true;
  opt.image_header = celeris::FitsHeader(image_cards);
  opt.extra_cards = {"SEXBKGND=                 12.5 / Median background level (ADU)"};
  celeris::Table t;
  t.rows = 2;
  t.columns.push_back({"NUMBER", "", "", celeris::ColumnType::Int32, 1, "%10d", {1, 2}});
  const std::string path = (tmpdir() / "ldac.cat").string();
  celeris::write_fits_table(path, t, opt);

  fitsfile* f = nullptr;
  int status = 0;
  fits_open_file(&f, path.c_str(), READONLY, &status);
  fits_movnam_hdu(f, BINARY_TBL, const_cast<char*>("LDAC_IMHEAD"), 0, &status);
  int naxis = 0;
  long dims[2] = {0, 0};
  fits_read_tdim(f, 1, 2, &naxis, dims, &status);
  ASSERT_EQ(status, 0);
  ASSERT_EQ(naxis, 2);
  EXPECT_EQ(dims[0], 80);
  ASSERT_EQ(dims[1], 8);  // 6 image cards, 1 summary card, END
  std::vector<std::string> got(8, std::string(81, '\0'));
  std::vector<char*> ptr;
  for (auto& s : got) ptr.push_back(s.data());
  fits_read_col(f, TSTRING, 1, 1, 1, 8, nullptr, ptr.data(), nullptr, &status);
  fits_close_file(f, &status);
  ASSERT_EQ(status, 0);
  auto trimmed = [](const std::string& s) {
    std::string r(s.c_str());
    while (!r.empty() && r.back() == ' ') r.pop_back();
    return r;
  };
  for (size_t i = 0; i < image_cards.size(); ++i)
    EXPECT_EQ(trimmed(got[i]), trimmed(image_cards[i])) << "card " << i;
  EXPECT_EQ(trimmed(got[6]), trimmed(opt.extra_cards[0]));
  EXPECT_EQ(trimmed(got[7]), "END");
}

// ---- float64 pixels (read_fits_pixels_f64) ---------------------------------------------------

TEST(FitsImageF64, WideTypesComeBackExactly) {
  const auto dir = tmpdir();
  EXPECT_TRUE(celeris::fits_bitpix_wider_than_float(-64));
  EXPECT_TRUE(celeris::fits_bitpix_wider_than_float(64));
  EXPECT_TRUE(celeris::fits_bitpix_wider_than_float(32));
  for (int b : {8, 16, -32}) EXPECT_FALSE(celeris::fits_bitpix_wider_than_float(b)) << b;

  // BITPIX -64: values float32 would round, a NaN and an infinity (masked).
  const std::vector<double> v = {14.02571706,         -1.0 / 3.0, 1e-300,
                                 123456789.123456789, NAN,        -INFINITY};
  const std::string p64 = (dir / "d.fits").string();
  write_raw(p64, -64, 3, 2, v);
  const celeris::FitsImage img = celeris::read_fits_image(p64);
  const celeris::Image<double> d = celeris::read_fits_pixels_f64(img);
  ASSERT_EQ(d.width(), 3);
  ASSERT_EQ(d.height(), 2);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d.data()[i], v[i]) << i;  // bit for bit
    EXPECT_NE(double(img.pixels.data()[i]), v[i]) << "float32 would round value " << i;
  }
  EXPECT_TRUE(std::isnan(d(1, 1)));
  EXPECT_TRUE(std::isnan(d(2, 1)));

  // BITPIX 32 with BZERO/BSCALE: the physical value in double (raw * BSCALE + BZERO).
  const std::vector<double> raw = {-2147483647.0, 16777217.0, 123456789.0, 0.0};
  const std::string p32 = (dir / "i.fits").string();
  write_raw(p32, 32, 2, 2, raw, 0.25, 1e-3);
  const celeris::Image<double> s = celeris::read_fits_pixels_f64(celeris::read_fits_image(p32));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(s.data()[i], raw[i] * 1e-3 + 0.25) << i;

  // The HDU read is the one read_fits_image chose (first image after an empty primary).
  const std::string pe = (dir / "e.fits").string();
  write_raw(pe, -64, 3, 2, v, 0, 1, nullptr, true, "SCI");
  const celeris::FitsImage ext = celeris::read_fits_image(pe);
  EXPECT_EQ(ext.hdu, 2);
  EXPECT_EQ(celeris::read_fits_pixels_f64(ext).data()[0], v[0]);
  EXPECT_EQ(celeris::read_fits_pixels_f64(celeris::read_fits_image(pe + "[SCI]")).data()[3], v[3]);
  EXPECT_THROW(celeris::read_fits_pixels_f64(celeris::FitsImage{}), celeris::Error);
  fs::remove_all(dir);
}
