// The direct reader: CFITSIO reads an image through its small I/O buffers on one thread (some
// 40 ms for a 4096^2 float frame from the page cache, a third of the GPU path's frame). Here
// CFITSIO still parses the header and says where the data start; the pixels are read with
// pread in slices, one per thread, and converted where they land: BITPIX -32 and 32 read into
// the output and byte-swapped there, the other types through a slice-sized buffer, in one
// pass that also applies read_fits_image's masking (no second pass over the image).
#include "core/fits_pixels.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "celeris/error.hpp"
#include "core/stored_value.hpp"

namespace celeris {

namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

template <typename U>
U byteswapped(U v) {
  if constexpr (sizeof(U) == 1)
    return v;
  else if constexpr (sizeof(U) == 2)
    return __builtin_bswap16(v);
  else if constexpr (sizeof(U) == 4)
    return __builtin_bswap32(v);
  else
    return __builtin_bswap64(v);
}

template <typename Raw>
using Bits = StoredBits<Raw>;

static_assert(std::bit_cast<uint32_t>(kMaxPixelValue) == kMaxPixelBits);
static_assert(std::bit_cast<uint32_t>(std::numeric_limits<float>::quiet_NaN()) == kNanPixelBits);

// The pixel of one stored value, its bits as read from the file (big-endian): stored_value.hpp's
// rule, which the GPU's finish of stored pixels applies too.
template <typename Raw>
float pixel(Bits<Raw> stored, float bs, float bz, bool has_blank, long long blank) {
  return stored_pixel<Raw>(byteswapped(stored), bs, bz, has_blank, blank);
}

// GCC's -O2 cost model leaves the loops below scalar: omp simd asks for them. (Clang vectorises
// at -O2 on its own, and warns where it cannot honour the request.)
#if defined(__GNUC__) && !defined(__clang__)
#define CELERIS_SIMD _Pragma("omp simd")
#else
#define CELERIS_SIMD
#endif

// Stored values from a separate buffer (types of 1, 2 and 8 bytes).
template <typename Raw>
void convert(const unsigned char* __restrict in, size_t count, float bs, float bz, bool has_blank,
             long long blank, float* __restrict out) {
  CELERIS_SIMD
  for (size_t i = 0; i < count; ++i) {
    Bits<Raw> stored;
    std::memcpy(&stored, in + i * sizeof(Raw), sizeof(Raw));
    out[i] = pixel<Raw>(stored, bs, bz, has_blank, blank);
  }
}

// Stored values of 4 bytes read into the output itself: each replaced by its pixel where it lies
// (the same address read then written: no copy, and the loop still vectorises).
template <typename Raw>
[[gnu::always_inline]] inline void convert_in_place(float* data, size_t count, float bs, float bz,
                                                    bool has_blank, long long blank) {
  static_assert(sizeof(Raw) == sizeof(float));
  CELERIS_SIMD
  for (size_t i = 0; i < count; ++i) {
    uint32_t stored;
    std::memcpy(&stored, data + i, sizeof stored);
    data[i] = pixel<Raw>(stored, bs, bz, has_blank, blank);
  }
}

// The two in-place conversions compiled twice, chosen when the program loads: x86-64's baseline
// has no byte shuffle, so there the byte swap stays scalar (some 2 ns a pixel); AVX2's vpshufb
// swaps 8 pixels at once. (AVX2 brings no FMA: a * b + c rounds as in the baseline build.)
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define CELERIS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CELERIS_CLONES
#endif
CELERIS_CLONES void floats_in_place(float* data, size_t count, float bs, float bz) {
  convert_in_place<float>(data, count, bs, bz, false, 0);
}
CELERIS_CLONES void int32s_in_place(float* data, size_t count, float bs, float bz, bool has_blank,
                                    long long blank) {
  convert_in_place<int32_t>(data, count, bs, bz, has_blank, blank);
}
#undef CELERIS_CLONES
#undef CELERIS_SIMD

// Reads `bytes` at `offset` into `to`; false when the file ends first.
bool pread_all(int fd, unsigned char* to, size_t bytes, long long offset) {
  size_t got = 0;
  while (got < bytes) {
    const ssize_t r = ::pread(fd, to + got, bytes - got, static_cast<off_t>(offset) + got);
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

// `stored`: 4-byte and 2-byte integer types are left as read (packed from the output's start),
// and *stored says how to finish them.
template <typename Raw>
void read_slices(int fd, long long offset, double bscale, double bzero, bool has_blank,
                 long long blank, ImageView<float> out, const std::string& path,
                 StoredPixels* stored) {
  const size_t total = static_cast<size_t>(out.size());
  // Pixels per pread: 1 MB of float, converted while it is still in the core's cache.
  constexpr size_t kSlice = size_t(1) << 18;
  constexpr bool kInPlace = sizeof(Raw) == sizeof(float);
  // Left stored: the values read, packed, into the output's memory (2-byte ones in its first half).
  constexpr bool kCanLeave = kInPlace || std::is_same_v<Raw, int16_t>;
  const bool leave = kCanLeave && stored;
  const size_t nslices = (total + kSlice - 1) / kSlice;
  const float bs = static_cast<float>(bscale), bz = static_cast<float>(bzero);
  bool failed = false;
#pragma omp parallel if (nslices > 1)
  {
    std::vector<unsigned char> buf(kInPlace || leave ? 0 : kSlice * sizeof(Raw));
#pragma omp for schedule(dynamic, 1)
    for (size_t s = 0; s < nslices; ++s) {
      const size_t first = s * kSlice, count = std::min(kSlice, total - first);
      float* dst = out.data + first;
      unsigned char* to = kInPlace ? reinterpret_cast<unsigned char*>(dst)
                          : leave ? reinterpret_cast<unsigned char*>(out.data) + first * sizeof(Raw)
                                  : buf.data();
      if (!pread_all(fd, to, count * sizeof(Raw), offset + first * sizeof(Raw))) {
#pragma omp atomic write
        failed = true;
        continue;
      }
      if (leave) continue;
      if constexpr (std::is_same_v<Raw, float>)
        floats_in_place(dst, count, bs, bz);
      else if constexpr (kInPlace)
        int32s_in_place(dst, count, bs, bz, has_blank, blank);
      else
        convert<Raw>(buf.data(), count, bs, bz, has_blank, blank, dst);
    }
  }
  if (failed) throw Error(path + ": reading pixels: the file ends before the image's data");
  if (leave)
    *stored = {std::is_same_v<Raw, float>     ? StoredPixels::Type::Float32
               : std::is_same_v<Raw, int16_t> ? StoredPixels::Type::Int16
                                              : StoredPixels::Type::Int32,
               bs, bz, has_blank, blank};
}

}  // namespace

bool read_pixels_direct(fitsfile* f, int bitpix, double bscale, double bzero, ImageView<float> out,
                        const std::string& path, StoredPixels* stored) {
  if (stored) *stored = {};
  int status = 0;
  if (fits_is_compressed_image(f, &status) || status) return false;
  char urltype[FLEN_FILENAME] = {0}, opened[FLEN_FILENAME] = {0}, name[FLEN_FILENAME] = {0};
  fits_url_type(f, urltype, &status);
  fits_file_name(f, opened, &status);  // as opened, with its [..] selectors
  fits_parse_rootname(opened, name, &status);
  LONGLONG headstart = 0, datastart = 0, dataend = 0;
  fits_get_hduaddrll(f, &headstart, &datastart, &dataend, &status);
  if (status || std::strcmp(urltype, "file://") != 0) return false;
  long long blank = 0;
  bool has_blank = false;
  if (bitpix > 0) {
    fits_read_key(f, TLONGLONG, "BLANK", &blank, nullptr, &status);
    if (status == KEY_NO_EXIST)
      status = 0;
    else if (status)
      return false;  // a BLANK CFITSIO reads its own way
    else
      has_blank = true;
  }
  Fd fd{::open(name, O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0) return false;
  // The offsets must be the file's own (CFITSIO reads a compressed or filtered file from a
  // copy in memory): the HDU's first card is where CFITSIO says.
  char card[9] = {0};
  if (::pread(fd.fd, card, 8, static_cast<off_t>(headstart)) != 8) return false;
  if (std::strncmp(card, "SIMPLE  ", 8) != 0 && std::strncmp(card, "XTENSION", 8) != 0)
    return false;
  switch (bitpix) {
    case BYTE_IMG:
      read_slices<unsigned char>(fd.fd, datastart, bscale, bzero, has_blank, blank, out, path,
                                 stored);
      return true;
    case SHORT_IMG:
      read_slices<int16_t>(fd.fd, datastart, bscale, bzero, has_blank, blank, out, path, stored);
      return true;
    case LONG_IMG:
      read_slices<int32_t>(fd.fd, datastart, bscale, bzero, has_blank, blank, out, path, stored);
      return true;
    case LONGLONG_IMG:
      read_slices<int64_t>(fd.fd, datastart, bscale, bzero, has_blank, blank, out, path, stored);
      return true;
    case FLOAT_IMG:
      read_slices<float>(fd.fd, datastart, bscale, bzero, false, 0, out, path, stored);
      return true;
    case DOUBLE_IMG:
      read_slices<double>(fd.fd, datastart, bscale, bzero, false, 0, out, path, stored);
      return true;
    default:
      return false;
  }
}

void convert_stored_in_place(ImageView<float> pixels, StoredPixels& stored) {
  if (stored.converted()) return;
  const size_t total = static_cast<size_t>(pixels.size());
  constexpr size_t kSlice = size_t(1) << 18;
  const size_t nslices = (total + kSlice - 1) / kSlice;
  // 2-byte values grow into the floats' places: read from a copy (a frame sent to the CPU only).
  std::vector<unsigned char> packed;
  if (stored.type == StoredPixels::Type::Int16) {
    const auto* from = reinterpret_cast<const unsigned char*>(pixels.data);
    packed.assign(from, from + total * sizeof(int16_t));
  }
#pragma omp parallel for schedule(dynamic, 1) if (nslices > 1)
  for (size_t k = 0; k < nslices; ++k) {
    const size_t first = k * kSlice, count = std::min(kSlice, total - first);
    if (stored.type == StoredPixels::Type::Int16)
      convert<int16_t>(packed.data() + first * sizeof(int16_t), count, stored.bscale, stored.bzero,
                       stored.has_blank, stored.blank, pixels.data + first);
    else if (stored.type == StoredPixels::Type::Float32)
      floats_in_place(pixels.data + first, count, stored.bscale, stored.bzero);
    else
      int32s_in_place(pixels.data + first, count, stored.bscale, stored.bzero, stored.has_blank,
                      stored.blank);
  }
  stored = {};
}

}  // namespace celeris
