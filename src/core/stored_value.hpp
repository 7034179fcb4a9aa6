// One pixel from the value a FITS file stores, its bytes already in the machine's order: the
// rule the host's direct reader (fits_pixels.cpp) and the GPU's finish of stored pixels
// (core/cuda/stored_pixels.cu) both apply, written once. Plain C++17 (nvcc compiles it for the
// device); the CUDA file is built with --fmad=false so that value * bscale + bzero rounds twice
// there too, as on the host (x86-64's baseline and AVX2 builds have no fused multiply-add).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "celeris/host_device.hpp"

namespace celeris {

// The bits of kMaxPixelValue (1e30f) and of the quiet NaN the readers write (checked against
// celeris/fits.hpp and std::numeric_limits in fits_pixels.cpp).
constexpr uint32_t kMaxPixelBits = 0x7149F2CAu;
constexpr uint32_t kNanPixelBits = 0x7FC00000u;

template <class To, class From>
CELERIS_HD inline To bits_as(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

// The unsigned type of Raw's size.
template <typename Raw>
using StoredBits = std::conditional_t<
    sizeof(Raw) == 1, uint8_t,
    std::conditional_t<sizeof(Raw) == 2, uint16_t,
                       std::conditional_t<sizeof(Raw) == 4, uint32_t, uint64_t>>>;

// One stored value scaled in single precision as SExtractor's reader does (value * (float)BSCALE
// + (float)BZERO, the raw value first converted to float, or kept in double for BITPIX -64).
// CFITSIO scales in double and rounds once, which differs by one ulp on some pixels, enough to
// move a deblending threshold.
template <typename Raw>
CELERIS_HD inline float scaled_pixel(Raw raw, float bs, float bz) {
  if constexpr (std::is_same_v<Raw, double>)
    return static_cast<float>(raw * bs + bz);
  else
    return static_cast<float>(raw) * bs + bz;
}

// The pixel of one stored value whose bits are `bits`. CFITSIO's test of a float's or double's
// exponent bits: all ones (NaN, infinity) is null, all zeros (zero, denormal) reads as 0; an
// integer equal to BLANK is null. Null pixels are NaN, the others scaled_pixel, then masked as
// read_fits_image does (magnitudes beyond kMaxPixelValue are NaN). Written with integer masks,
// not ?: on floats: GCC keeps those as branches (floating-point compares may trap), and the host's
// loops would not vectorise. |v| <= kMaxPixelValue is compared on the bits, which order as the
// magnitudes do (NaN and infinity above every finite value).
template <typename Raw>
CELERIS_HD inline float stored_pixel(StoredBits<Raw> bits, float bs, float bz, bool has_blank,
                                     long long blank) {
  using U = StoredBits<Raw>;
  float v;
  bool null;
  if constexpr (std::is_floating_point_v<Raw>) {
    constexpr int kMantissa = std::is_same_v<Raw, float> ? 23 : 52;
    constexpr U kExp = std::is_same_v<Raw, float> ? U(0xFF) : U(0x7FF);
    const U e = (bits >> kMantissa) & kExp;
    v = scaled_pixel<Raw>(bits_as<Raw>(U(bits & (U(0) - U(e != 0)))), bs, bz);
    null = e == kExp;
  } else {
    const Raw raw = static_cast<Raw>(bits);
    v = scaled_pixel<Raw>(raw, bs, bz);
    null = has_blank & (static_cast<long long>(raw) == blank);
  }
  const uint32_t vb = bits_as<uint32_t>(v);
  const uint32_t keep = 0u - static_cast<uint32_t>(!null & ((vb & 0x7FFFFFFFu) <= kMaxPixelBits));
  return bits_as<float>((vb & keep) | (kNanPixelBits & ~keep));
}

}  // namespace celeris
