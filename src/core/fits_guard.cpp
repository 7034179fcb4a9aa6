// check_fits_headers: every HDU's header read with zlib (plain files pass through gzread
// unchanged), checked card by card, and its data size checked against what the file holds.
#include "fits_guard.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "celeris/error.hpp"

namespace celeris {

namespace {

constexpr size_t kCard = 80, kBlock = 2880;
// No FITS number, logical or complex value needs more; CFITSIO copies unquoted values into
// buffers of 70 bytes with the terminator (a column name of 70 digits overflows one).
constexpr size_t kMaxUnquoted = 60;

struct GzCloser {
  void operator()(gzFile_s* g) const { gzclose(g); }
};

// The facts of one header that size its data.
struct HduSizes {
  std::optional<long long> bitpix, naxis, pcount, gcount, tfields;
  std::array<std::optional<long long>, 1000> naxisn{};
};

std::string trimmed(std::string_view s) {
  const size_t b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return {};
  const size_t e = s.find_last_not_of(' ');
  return std::string(s.substr(b, e - b + 1));
}

class HeaderChecker {
 public:
  HeaderChecker(const std::string& file, int hdu) : file_(file), hdu_(hdu) {}

  [[noreturn]] void fail(size_t card_index, std::string_view key, const std::string& what) const {
    std::string where =
        file_ + ": HDU " + std::to_string(hdu_) + ", card " + std::to_string(card_index + 1);
    const std::string k = trimmed(key);
    if (!k.empty()) where += " (" + printable_excerpt(k, 8) + ")";
    throw Error(where + ": " + what);
  }

  // One card; returns true at END.
  bool card(size_t index, std::string_view c, HduSizes& sizes) {
    for (size_t i = 0; i < kCard; ++i) {
      const unsigned char ch = static_cast<unsigned char>(c[i]);
      if (ch < 0x20 || ch > 0x7e) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", ch);
        fail(index, c.substr(0, 8),
             std::string("byte ") + hex + " at column " + std::to_string(i + 1) +
                 " is not printable ASCII, as FITS headers must be");
      }
    }
    const std::string_view key = c.substr(0, 8);
    if (key == "END     ") return true;
    if (c.substr(8, 2) != "= ") {
      size_key_past_column_10(index, c, sizes);
      return false;  // commentary card, or a value CFITSIO finds elsewhere
    }
    const std::string_view value = c.substr(10);
    const size_t first = value.find_first_not_of(' ');
    if (first == std::string_view::npos) return false;  // undefined value
    if (value[first] == '\'') {
      size_t i = first + 1;
      for (; i < value.size(); ++i) {
        if (value[i] != '\'') continue;
        if (i + 1 < value.size() && value[i + 1] == '\'') {
          ++i;  // '' is a quote inside the string
          continue;
        }
        break;
      }
      if (i >= value.size())
        fail(index, key,
             "string value without its closing quote: " + printable_excerpt(trimmed(value), 40));
      return false;
    }
    const std::string token = unquoted_token(value, first);
    if (token.size() > kMaxUnquoted)
      fail(index, key,
           "unquoted value of " + std::to_string(token.size()) +
               " characters (a string value must be quoted): " + printable_excerpt(token, 40));
    record_size_key(index, key, token, sizes);
    return false;
  }

 private:
  // CFITSIO (fitscore.c ffpsvc) also reads a value after the first '=' of a card whose columns
  // 9-10 are not "= " (but for COMMENT, HISTORY, CONTINUE, HIERARCH and blank names), naming the
  // card by its characters before the first blank or '=' (getkey.c ffgknm): "TFIELDS 1= 4e13" is
  // TFIELDS = 4e13 to it. Such a card naming a size keyword is judged as CFITSIO will read it.
  void size_key_past_column_10(size_t index, std::string_view c, HduSizes& sizes) const {
    const std::string_view key = c.substr(0, 8);
    if (key == "COMMENT " || key == "HISTORY " || key == "CONTINUE" || key == "        " ||
        c.substr(0, 9) == "HIERARCH ")
      return;
    const size_t eq = c.find('=');
    if (eq == std::string_view::npos) return;
    const std::string_view name = c.substr(0, std::min(c.find_first_of(" ="), size_t(8)));
    const std::string_view value = c.substr(eq + 1);
    const size_t first = value.find_first_not_of(' ');
    if (first == std::string_view::npos || value[first] == '\'') return;
    record_size_key(index, name, unquoted_token(value, first), sizes);
  }

  // An unquoted value: from its first character to the comment's '/', blanks trimmed.
  static std::string unquoted_token(std::string_view value, size_t first) {
    const size_t slash = value.find('/', first);
    return trimmed(value.substr(first, slash == std::string_view::npos ? slash : slash - first));
  }

  void record_size_key(size_t index, std::string_view key, const std::string& token,
                       HduSizes& sizes) const {
    const std::string k = trimmed(key);
    std::optional<long long>* slot = nullptr;
    if (k == "BITPIX")
      slot = &sizes.bitpix;
    else if (k == "NAXIS")
      slot = &sizes.naxis;
    else if (k == "PCOUNT")
      slot = &sizes.pcount;
    else if (k == "GCOUNT")
      slot = &sizes.gcount;
    else if (k == "TFIELDS")
      slot = &sizes.tfields;
    else if (k.size() > 5 && k.compare(0, 5, "NAXIS") == 0 &&
             k.find_first_not_of("0123456789", 5) == std::string::npos && k.size() <= 8) {
      const long n = std::stol(k.substr(5));
      if (n >= 1 && n <= 999) slot = &sizes.naxisn[static_cast<size_t>(n)];
    }
    if (!slot || slot->has_value()) return;  // the first occurrence rules, as in CFITSIO
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(token.c_str(), &end, 10);
    if (token.empty() || *end != '\0' || errno == ERANGE)
      fail(index, key, "not an integer: " + printable_excerpt(token, 30));
    *slot = v;
  }

  std::string file_;
  int hdu_;
};

// Bytes of data (without padding) the header describes (FITS 4.0 eqs. 1 and 2); throws on
// values the standard does not allow or a product that does not fit in 63 bits.
uint64_t data_bytes(const std::string& file, int hdu, const HduSizes& s) {
  const std::string where = file + ": HDU " + std::to_string(hdu) + ": ";
  if (!s.bitpix || !s.naxis) throw Error(where + "header lacks BITPIX or NAXIS");
  const long long bp = *s.bitpix;
  if (bp != 8 && bp != 16 && bp != 32 && bp != 64 && bp != -32 && bp != -64)
    throw Error(where + "BITPIX = " + std::to_string(bp) + " is not a FITS value");
  if (*s.naxis < 0 || *s.naxis > 999)
    throw Error(where + "NAXIS = " + std::to_string(*s.naxis) + " is outside 0..999");
  // CFITSIO 4.2 means to refuse TFIELDS > 999 but its test returns without an error status
  // (getkey.c, ffgttb: `*status == BAD_TFIELDS`), then callocs that many column structures.
  if (s.tfields && (*s.tfields < 0 || *s.tfields > 999))
    throw Error(where + "TFIELDS = " + std::to_string(*s.tfields) + " is outside 0..999");
  if (*s.naxis == 0) return 0;
  constexpr uint64_t kLimit = uint64_t(1) << 62;
  uint64_t n = 1;
  // Random groups (NAXIS1 = 0) leave NAXIS1 out of the product.
  const bool groups = s.naxisn[1].value_or(-1) == 0 && hdu == 1;
  for (long long i = 1; i <= *s.naxis; ++i) {
    const auto& a = s.naxisn[static_cast<size_t>(i)];
    if (!a) throw Error(where + "header lacks NAXIS" + std::to_string(i));
    if (*a < 0)
      throw Error(where + "NAXIS" + std::to_string(i) + " = " + std::to_string(*a) +
                  " is negative");
    if (i == 1 && groups) continue;
    if (*a != 0 && n > kLimit / static_cast<uint64_t>(*a))
      throw Error(where + "NAXISn product is too large to be real");
    n *= static_cast<uint64_t>(*a);
  }
  const long long pcount = s.pcount.value_or(0), gcount = s.gcount.value_or(1);
  if (pcount < 0 || gcount < 0) throw Error(where + "PCOUNT or GCOUNT is negative");
  if (n > kLimit - static_cast<uint64_t>(pcount))
    throw Error(where + "data size is too large to be real");
  n += static_cast<uint64_t>(pcount);
  if (gcount != 0 && n > kLimit / static_cast<uint64_t>(gcount) / 8)
    throw Error(where + "data size is too large to be real");
  return n * static_cast<uint64_t>(gcount) * static_cast<uint64_t>(bp < 0 ? -bp : bp) / 8;
}

}  // namespace

void check_fits_headers(const std::string& file) {
  std::unique_ptr<gzFile_s, GzCloser> gz(gzopen(file.c_str(), "rb"));
  if (!gz) throw Error(file + ": cannot read");
  gzbuffer(gz.get(), 1 << 17);
  std::array<char, kBlock> block{};
  for (int hdu = 1;; ++hdu) {
    HduSizes sizes;
    HeaderChecker checker(file, hdu);
    size_t index = 0;
    bool end = false;
    while (!end) {
      const int got = gzread(gz.get(), block.data(), static_cast<unsigned>(kBlock));
      if (got < 0) throw Error(file + ": HDU " + std::to_string(hdu) + ": corrupt compressed data");
      if (got == 0 && index == 0 && hdu > 1) return;  // the end of the last HDU
      if (static_cast<size_t>(got) < kBlock) {
        // CFITSIO ignores a short tail after the last HDU; a header cut short is an error.
        if (index == 0 && hdu > 1) return;
        throw Error(file + ": HDU " + std::to_string(hdu) +
                    ": header truncated (no END card before the end of the file)");
      }
      // After the last HDU, CFITSIO stops at anything that is not an extension (zero blocks
      // some writers leave behind): so does this check. CFITSIO takes a block for an extension
      // from its first eight bytes, "XTENSION", with an '=' after them anywhere on the card
      // ("XTENSIONUN= 'BINTABLE'" is one to it; found by the fits_table fuzzer, whose input then
      // had CFITSIO calloc 2e16 bytes): any such block is checked as a header here.
      if (index == 0 && hdu > 1 && std::string_view(block.data(), 8) != "XTENSION") return;
      for (size_t c = 0; c < kBlock / kCard && !end; ++c, ++index)
        end = checker.card(index, std::string_view(block.data() + c * kCard, kCard), sizes);
    }
    const uint64_t bytes = data_bytes(file, hdu, sizes);
    if (bytes == 0) continue;
    // The last byte of the data must exist: seek (decompressing, for gzip) and read it.
    const uint64_t padded = (bytes + kBlock - 1) / kBlock * kBlock;
    const z_off_t here = gztell(gz.get());
    char last = 0;
    const bool present =
        bytes - 1 <= static_cast<uint64_t>(std::numeric_limits<z_off_t>::max() - here) &&
        gzseek(gz.get(), static_cast<z_off_t>(bytes - 1), SEEK_CUR) >= 0 &&
        gzread(gz.get(), &last, 1) == 1;
    if (!present)
      throw Error(file + ": HDU " + std::to_string(hdu) + ": header announces " +
                  std::to_string(bytes) + " bytes of data, more than the file holds (truncated?)");
    if (padded > bytes && gzseek(gz.get(), static_cast<z_off_t>(padded - bytes), SEEK_CUR) < 0)
      return;
  }
}

}  // namespace celeris
