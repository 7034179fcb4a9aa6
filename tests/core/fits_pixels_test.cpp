// The direct pixel reader (core/fits_pixels.hpp) against CFITSIO's, its reference: the same file
// read plain (direct) and gzip-compressed (CFITSIO decompresses it in memory, so the direct
// reader declines and CFITSIO reads), every BITPIX, with and without BSCALE/BZERO and BLANK, in a
// primary HDU and in a second extension, with NaN, infinities, zeros of both signs, denormals
// and BLANK values among random pixels. The images must be equal to the bit, read into the
// image or into memory the caller gives (read_fits_image_into), or left as stored there and
// finished afterwards (convert_stored_in_place).
#include "core/fits_pixels.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "celeris/fits.hpp"
#include "core/fits_util.hpp"
#include "fits_bytes.hpp"

namespace fs = std::filesystem;
using namespace celeris::test;

namespace {

template <typename U>
void put_big_endian(U v, std::string& out) {
  for (int b = static_cast<int>(sizeof(U)) - 1; b >= 0; --b)
    out += static_cast<char>((v >> (8 * b)) & 0xFF);
}

// w x h pixels of `bitpix`, random with special values mixed in, as big-endian bytes.
std::string pixel_bytes(int bitpix, size_t n, long long blank, std::mt19937_64& rng) {
  std::string out;
  std::uniform_int_distribution<int> pick(0, 19);
  for (size_t i = 0; i < n; ++i) {
    const int k = pick(rng);
    const uint64_t r = rng();
    switch (bitpix) {
      case 8:
        put_big_endian<uint8_t>(k == 0 ? static_cast<uint8_t>(blank) : static_cast<uint8_t>(r),
                                out);
        break;
      case 16:
        put_big_endian<uint16_t>(k == 0 ? static_cast<uint16_t>(blank) : static_cast<uint16_t>(r),
                                 out);
        break;
      case 32:
        put_big_endian<uint32_t>(k == 0 ? static_cast<uint32_t>(blank) : static_cast<uint32_t>(r),
                                 out);
        break;
      case 64:
        put_big_endian<uint64_t>(k == 0 ? static_cast<uint64_t>(blank) : r >> (r & 31), out);
        break;
      case -32: {
        const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  0.0f,
                                  -0.0f,
                                  std::numeric_limits<float>::denorm_min(),
                                  -1e-40f};
        float v = std::ldexp(static_cast<float>(static_cast<int32_t>(r)) / 2e9f,
                             static_cast<int>(r >> 40) % 60 - 30);
        if (k < 7) v = specials[k];
        put_big_endian<uint32_t>(std::bit_cast<uint32_t>(v), out);
        break;
      }
      case -64: {
        const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                                   std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(),
                                   0.0,
                                   -0.0,
                                   std::numeric_limits<double>::denorm_min(),
                                   1e-310};
        double v = std::ldexp(static_cast<double>(static_cast<int64_t>(r)) / 9e18,
                              static_cast<int>(r >> 50) % 80 - 40);
        if (k < 7) v = specials[k];
        put_big_endian<uint64_t>(std::bit_cast<uint64_t>(v), out);
        break;
      }
    }
  }
  out.resize((out.size() + 2879) / 2880 * 2880, '\0');
  return out;
}

std::string image_hdu(bool primary, int bitpix, int w, int h, const std::vector<std::string>& extra,
                      const std::string& data) {
  std::vector<std::string> cards = {primary ? card("SIMPLE", "T") : card("XTENSION", "'IMAGE'"),
                                    card("BITPIX", std::to_string(bitpix)), card("NAXIS", "2"),
                                    card("NAXIS1", std::to_string(w)),
                                    card("NAXIS2", std::to_string(h))};
  if (!primary) {
    cards.push_back(card("PCOUNT", "0"));
    cards.push_back(card("GCOUNT", "1"));
  }
  cards.insert(cards.end(), extra.begin(), extra.end());
  return header(cards) + data;
}

bool same_bits(const celeris::Image<float>& a, const celeris::Image<float>& b, std::string& why) {
  if (a.width() != b.width() || a.height() != b.height()) {
    why = "sizes differ";
    return false;
  }
  for (size_t i = 0; i < a.width() * a.height(); ++i) {
    const float x = a.data()[i], y = b.data()[i];
    if ((std::isnan(x) && std::isnan(y)) ||
        std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y))
      continue;
    why = "pixel " + std::to_string(i) + ": " + std::to_string(x) + " != " + std::to_string(y);
    return false;
  }
  return true;
}

}  // namespace

TEST(FitsPixels, DirectReadEqualsCfitsioEveryBitpixScalingAndBlank) {
  const fs::path dir =
      fs::temp_directory_path() / ("celeris_fits_pixels_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::mt19937_64 rng(2026);
  // 520 x 510: two of the reader's 2^18-pixel slices, the second partial.
  const int w = 520, h = 510;
  int cases = 0;
  for (int bitpix : {8, 16, 32, 64, -32, -64})
    for (int scaled = 0; scaled < 2; ++scaled)
      for (int with_blank = 0; with_blank < 2; ++with_blank)
        for (int in_extension = 0; in_extension < 2; ++in_extension) {
          if (with_blank && bitpix < 0) continue;  // BLANK is for integer images
          const long long blank = bitpix == 8 ? 7 : -1234;
          std::vector<std::string> extra;
          if (scaled) {
            extra.push_back(card("BSCALE", "0.37"));
            extra.push_back(card("BZERO", "32768.5"));
          }
          if (with_blank) extra.push_back(card("BLANK", std::to_string(blank)));
          const std::string data = pixel_bytes(bitpix, static_cast<size_t>(w) * h, blank, rng);
          std::string bytes;
          if (in_extension)
            bytes = header({card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "0"),
                            card("EXTEND", "T")}) +
                    image_hdu(false, 16, 10, 3, {}, std::string(2880, '\0')) +
                    image_hdu(false, bitpix, w, h, extra, data);
          else
            bytes = image_hdu(true, bitpix, w, h, extra, data);
          const std::string name = "b" + std::to_string(bitpix) + "_" + std::to_string(scaled) +
                                   std::to_string(with_blank) + std::to_string(in_extension);
          const fs::path plain = dir / (name + ".fits"), gz = dir / (name + ".fits.gz");
          write_bytes(plain, bytes);
          write_gzip(gz, bytes);
          const std::string sel = in_extension ? "[2]" : "";
          // The direct reader takes the plain file and declines the compressed one.
          for (const auto& [path, direct] : {std::pair{plain, true}, std::pair{gz, false}}) {
            celeris::FitsFile f = celeris::FitsFile::open_read(path.string() + sel);
            celeris::Image<float> img = celeris::Image<float>::uninitialized(w, h);
            EXPECT_EQ(celeris::read_pixels_direct(f.get(), bitpix, 1.0, 0.0, img, path.string()),
                      direct)
                << path;
          }
          const celeris::FitsImage a = celeris::read_fits_image(plain.string() + sel);
          const celeris::FitsImage b = celeris::read_fits_image(gz.string() + sel);
          std::string why;
          EXPECT_TRUE(same_bits(a.pixels, b.pixels, why)) << name << ": " << why;
          // Into memory the caller gives (a stream's page-locked buffer), direct and through
          // CFITSIO: the same bits, and nothing in image.pixels.
          for (const fs::path& path : {plain, gz}) {
            celeris::Image<float> given = celeris::Image<float>::uninitialized(w, h);
            const celeris::FitsImageRead into =
                celeris::read_fits_image_into(path.string() + sel, [&](int64_t iw, int64_t ih) {
                  EXPECT_EQ(iw, w);
                  EXPECT_EQ(ih, h);
                  return given.data();
                });
            EXPECT_TRUE(into.image.pixels.empty());
            EXPECT_EQ(into.pixels.data, given.data());
            EXPECT_EQ(into.image.bitpix, bitpix);
            EXPECT_TRUE(same_bits(a.pixels, given, why)) << name << " into: " << why;
            EXPECT_TRUE(into.stored.converted());
            // Left as stored (a stream for the GPU): BITPIX -32, 32 and 16 read directly hold
            // the file's bytes, packed, the others are converted; finished on the host, the
            // same bits.
            celeris::Image<float> raw = celeris::Image<float>::uninitialized(w, h);
            celeris::FitsImageRead left = celeris::read_fits_image_into(
                path.string() + sel, [&](int64_t, int64_t) { return raw.data(); }, true);
            const bool stays = path == plain && (bitpix == 32 || bitpix == -32 || bitpix == 16);
            EXPECT_EQ(!left.stored.converted(), stays) << name;
            if (stays) {
              const size_t value_bytes = bitpix == 16 ? 2 : 4;
              EXPECT_EQ(left.stored.value_bytes(), static_cast<int>(value_bytes));
              EXPECT_EQ(
                  std::memcmp(raw.data(), data.data(), static_cast<size_t>(w) * h * value_bytes), 0)
                  << name;
              EXPECT_EQ(left.stored.type, bitpix == 32   ? celeris::StoredPixels::Type::Int32
                                          : bitpix == 16 ? celeris::StoredPixels::Type::Int16
                                                         : celeris::StoredPixels::Type::Float32);
              EXPECT_EQ(left.stored.has_blank, with_blank == 1);
              celeris::convert_stored_in_place(left.pixels, left.stored);
              EXPECT_TRUE(left.stored.converted());
            }
            EXPECT_TRUE(same_bits(a.pixels, raw, why)) << name << " left stored: " << why;
          }
          ++cases;
        }
  EXPECT_EQ(cases, 40);
  fs::remove_all(dir);
}

// Magnitudes beyond kMaxPixelValue (1e30) read as NaN, in the direct reader's one pass as through
// CFITSIO: stored floats (BITPIX -32, byte-swapped in place) and scaled integers (BITPIX 16 with
// BSCALE 2^90, exact in float: 807 -> 9.99e29 kept, 808 -> 1.0003e30 masked).
TEST(FitsPixels, ValuesBeyondMaxPixelValueAreMasked) {
  const fs::path dir =
      fs::temp_directory_path() / ("celeris_fits_mask_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> floats = {1e30f, -1e30f, 1.0001e30f, -2e30f, 3e38f, 5.0f, -7.5f, 0.0f};
  const std::vector<float> want_f = {1e30f, -1e30f, nan, nan, nan, 5.0f, -7.5f, 0.0f};
  std::string fdata, idata;
  for (float v : floats) put_big_endian<uint32_t>(std::bit_cast<uint32_t>(v), fdata);
  const std::vector<int16_t> ints = {807, -807, 808, -808, 3, 0, 806, -32768};
  const float s = std::ldexp(1.0f, 90);
  for (int16_t v : ints) put_big_endian<uint16_t>(static_cast<uint16_t>(v), idata);
  const std::vector<float> want_i = {807 * s, -807 * s, nan, nan, 3 * s, 0.0f, 806 * s, nan};
  for (const auto& [bitpix, data, want] :
       {std::tuple{-32, fdata, want_f}, std::tuple{16, idata, want_i}}) {
    const std::vector<std::string> extra =
        bitpix > 0 ? std::vector<std::string>{card("BSCALE", "1237940039285380274899124224.0")}
                   : std::vector<std::string>{};
    const std::string bytes = image_hdu(true, bitpix, 4, 2, extra, padded(data));
    const fs::path plain = dir / ("m" + std::to_string(bitpix) + ".fits");
    const fs::path gz = dir / ("m" + std::to_string(bitpix) + ".fits.gz");
    write_bytes(plain, bytes);
    write_gzip(gz, bytes);
    for (const fs::path& path : {plain, gz}) {
      const celeris::FitsImage im = celeris::read_fits_image(path.string());
      ASSERT_EQ(im.pixels.size(), 8);
      for (size_t i = 0; i < 8; ++i) {
        const float got = im.pixels.data()[i];
        if (std::isnan(want[i]))
          EXPECT_TRUE(std::isnan(got)) << path << " pixel " << i << ": " << got;
        else
          EXPECT_EQ(got, want[i]) << path << " pixel " << i;
      }
    }
  }
  fs::remove_all(dir);
}
