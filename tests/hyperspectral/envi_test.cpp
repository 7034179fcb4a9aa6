// ENVI reader and writer: round trips over every interleave, data type and byte order, header
// carry-over, band selection, and the errors a user can cause.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <tuple>

#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "test_util.hpp"

namespace celeris::hyperspectral {
namespace {

using testing::random_cube;
using testing::ScratchDir;

// Values every data type holds exactly: integers 0..200 (uint8 included), plus negatives and
// fractions for the signed and floating types.
Cube exact_cube(int data_type) {
  Cube c(5, 7, 3);
  for (size_t i = 0; i < c.data.size(); ++i) {
    float v = static_cast<float>((i * 37) % 201);
    if (data_type == 2 || data_type == 3 || data_type == 14) v -= 100;
    if (data_type == 4 || data_type == 5) v = v / 8.0f - 11.25f;
    c.data[i] = v;
  }
  c.wavelengths = {0.4, 0.9, 1.4, 1.9, 2.4};
  c.wavelength_units = "Micrometers";
  c.band_names = {"b one", "b two", "b three", "b four", "b five"};
  return c;
}

class EnviRoundTrip : public ::testing::TestWithParam<std::tuple<std::string, int, int>> {};

TEST_P(EnviRoundTrip, ValuesShapeAndMetadataSurvive) {
  const auto& [interleave, data_type, byte_order] = GetParam();
  ScratchDir dir;
  const Cube c = exact_cube(data_type);
  EnviWriteOptions opt;
  opt.interleave = interleave;
  opt.data_type = data_type;
  opt.byte_order = byte_order;
  write_envi(dir / "c.hdr", c, opt);
  for (const std::string& name : {std::string("c.hdr"), std::string("c.img")}) {
    const Cube r = read_envi(dir / name);
    ASSERT_EQ(r.bands, c.bands);
    ASSERT_EQ(r.lines, c.lines);
    ASSERT_EQ(r.samples, c.samples);
    EXPECT_EQ(r.data, c.data);
    EXPECT_EQ(r.wavelengths, c.wavelengths);
    EXPECT_EQ(r.band_names, c.band_names);
    EXPECT_EQ(r.wavelength_units, "Micrometers");
    EXPECT_EQ(r.source.envi_data_type, data_type);
    EXPECT_EQ(r.source.envi_interleave, interleave);
  }
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, EnviRoundTrip,
                         ::testing::Combine(::testing::Values("bsq", "bil", "bip"),
                                            ::testing::Values(1, 2, 3, 4, 5, 12, 13, 14, 15),
                                            ::testing::Values(0, 1)));

// A hand-written BIL file, big-endian int16 with a header offset, checks the layout rules
// independently of the writer.
TEST(Envi, ReadsHandWrittenBilBigEndianWithOffset) {
  ScratchDir dir;
  const int S = 3, L = 2, B = 2;
  {
    std::ofstream h(dir / "x.hdr");
    h << "ENVI\ndescription = {hand\n made}\nsamples = 3\nlines   = 2\nbands = 2\n"
         "header offset = 4\ndata type = 2\ninterleave = BIL\nbyte order = 1\n"
         "wavelength = {500,\n 600}\nsensor type = Unknown\n";
  }
  {
    std::ofstream d(dir / "x.raw", std::ios::binary);
    d.write("HEAD", 4);
    for (int l = 0; l < L; ++l)
      for (int b = 0; b < B; ++b)
        for (int s = 0; s < S; ++s) {
          const int16_t v = static_cast<int16_t>(-(100 * b + 10 * l + s));
          const unsigned char be[2] = {static_cast<unsigned char>((v >> 8) & 0xff),
                                       static_cast<unsigned char>(v & 0xff)};
          d.write(reinterpret_cast<const char*>(be), 2);
        }
  }
  const Cube c = read_envi(dir / "x.hdr");
  ASSERT_EQ(c.bands, 2);
  ASSERT_EQ(c.lines, 2);
  ASSERT_EQ(c.samples, 3);
  for (int b = 0; b < B; ++b)
    for (int l = 0; l < L; ++l)
      for (int s = 0; s < S; ++s) EXPECT_EQ(c.at(b, l, s), -(100 * b + 10 * l + s));
  EXPECT_EQ(c.wavelengths, (std::vector<double>{500, 600}));
  // Uninterpreted keys are carried over to a written copy.
  write_envi(dir / "y.hdr", c);
  const Cube y = read_envi(dir / "y.hdr");
  bool sensor = false, description = false;
  for (const auto& [k, v] : y.source.envi_fields) {
    sensor |= (k == "sensor type" && v == "Unknown");
    description |= (k == "description" && v.find("hand") != std::string::npos);
  }
  EXPECT_TRUE(sensor);
  EXPECT_TRUE(description);
  EXPECT_EQ(y.data, c.data);
}

TEST(Envi, BandSelectionKeepsNamesWavelengthsAndPerBandLists) {
  ScratchDir dir;
  Cube c = exact_cube(4);
  c.source.envi_fields.emplace_back("fwhm", "{1, 2, 3, 4, 5}");
  c.source.envi_fields.emplace_back("default bands", "{1, 2, 3}");
  write_envi(dir / "c.hdr", c);
  ReadOptions ro;
  ro.bands = "2,4-5";
  const Cube r = read_cube(dir / "c.hdr", ro);
  ASSERT_EQ(r.bands, 3);
  EXPECT_EQ(r.band_names, (std::vector<std::string>{"b two", "b four", "b five"}));
  EXPECT_EQ(r.wavelengths, (std::vector<double>{0.9, 1.9, 2.4}));
  for (int l = 0; l < c.lines; ++l)
    for (int s = 0; s < c.samples; ++s) EXPECT_EQ(r.at(2, l, s), c.at(4, l, s));
  bool fwhm = false;
  for (const auto& [k, v] : r.source.envi_fields) {
    EXPECT_NE(k, "default bands");
    if (k == "fwhm") {
      fwhm = true;
      EXPECT_EQ(v, "{2, 4, 5}");
    }
  }
  EXPECT_TRUE(fwhm);
}

TEST(Envi, BandListParsing) {
  EXPECT_EQ(parse_band_list("1-3,5", 5), (std::vector<int>{0, 1, 2, 4}));
  EXPECT_EQ(parse_band_list(" 4 , 2 ", 5), (std::vector<int>{3, 1}));
  EXPECT_THROW(parse_band_list("0-2", 5), Error);
  EXPECT_THROW(parse_band_list("1-6", 5), Error);
  EXPECT_THROW(parse_band_list("3-1", 5), Error);
  EXPECT_THROW(parse_band_list("1,1", 5), Error);
  EXPECT_THROW(parse_band_list("a", 5), Error);
  EXPECT_THROW(parse_band_list("1,,2", 5), Error);
}

TEST(Envi, ClearErrors) {
  ScratchDir dir;
  EXPECT_THROW(read_envi(dir / "missing.hdr"), Error);
  EXPECT_THROW(read_cube(dir / "missing.img"), Error);
  const Cube c = random_cube(2, 3, 4, 1);
  write_envi(dir / "c.hdr", c);
  // Data file shorter than the header says.
  std::filesystem::resize_file(dir / "c.img", 2 * 3 * 4 * 4 - 4);
  try {
    read_envi(dir / "c.hdr");
    FAIL() << "no error for a short data file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bytes"), std::string::npos) << e.what();
  }
  // Unknown and complex data types, unknown interleave, missing keys, not a header.
  auto header = [&](const std::string& body) {
    std::ofstream h(dir / "bad.hdr");
    h << body;
    std::ofstream d(dir / "bad.img", std::ios::binary);
    d << std::string(64, '\0');
  };
  header("ENVI\nsamples = 2\nlines = 2\nbands = 2\ndata type = 7\n");
  EXPECT_THROW(read_envi(dir / "bad.hdr"), Error);
  header("ENVI\nsamples = 2\nlines = 2\nbands = 2\ndata type = 6\n");
  EXPECT_THROW(read_envi(dir / "bad.hdr"), Error);
  header("ENVI\nsamples = 2\nlines = 2\nbands = 2\ndata type = 4\ninterleave = xyz\n");
  EXPECT_THROW(read_envi(dir / "bad.hdr"), Error);
  header("ENVI\nsamples = 2\nbands = 2\ndata type = 4\n");
  EXPECT_THROW(read_envi(dir / "bad.hdr"), Error);
  header("NOT ENVI\nsamples = 2\n");
  EXPECT_THROW(read_envi(dir / "bad.hdr"), Error);
  header("ENVI\nsamples = 2\nlines = 2\nbands = 4\ndata type = 4\nwavelength = {1, 2}\n");
  EXPECT_THROW(read_envi(dir / "bad.hdr"), Error);
  header("ENVI\nsamples = 2\nlines = 2\nbands = 4\ndata type = 4\n");
  EXPECT_NO_THROW(read_envi(dir / "bad.hdr"));  // 2*2*4*4 = 64 bytes: consistent
  EnviWriteOptions bad;
  bad.data_type = 99;
  EXPECT_THROW(write_envi(dir / "w.hdr", c, bad), Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "w.hdr"));
  EXPECT_FALSE(std::filesystem::exists(dir / "w.img"));
}

TEST(Envi, IntegerOutputIsRoundedAndClamped) {
  ScratchDir dir;
  Cube c(1, 1, 4);
  c.data = {-3.6f, 2.5f, 300.0f, NAN};
  EnviWriteOptions opt;
  opt.data_type = 1;
  write_envi(dir / "u8.hdr", c, opt);
  EXPECT_EQ(read_envi(dir / "u8.hdr").data, (std::vector<float>{0, 2, 255, 0}));
}

TEST(Envi, WritePathRules) {
  EXPECT_EQ(envi_paths_for_write("a/x.hdr"),
            std::make_pair(std::string("a/x.hdr"), std::string("a/x.img")));
  EXPECT_EQ(envi_paths_for_write("a/x.dat"),
            std::make_pair(std::string("a/x.hdr"), std::string("a/x.dat")));
  EXPECT_EQ(envi_paths_for_write("a/x"),
            std::make_pair(std::string("a/x.hdr"), std::string("a/x")));
}

}  // namespace
}  // namespace celeris::hyperspectral
