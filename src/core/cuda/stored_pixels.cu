// stored_pixels.hpp's kernel. Each step is the host's, spelled with intrinsics that round as its
// separate multiply and add do (__fmul_rn and __fadd_rn are never contracted into an FMA).
#include "core/cuda/stored_pixels.hpp"

#include <algorithm>
#include <cstdint>

#include "celeris/fits.hpp"
#include "core/cuda/cuda_check.hpp"

namespace celeris::cuda {

namespace {

// kMaxPixelValue's bits, and the quiet NaN the host writes (std::numeric_limits<float>).
constexpr uint32_t kMaxBits = 0x7149F2CAu;
constexpr uint32_t kNanBits = 0x7FC00000u;

enum class Kind { Float32, Int32, Int16 };

template <Kind kKind>
__global__ void convert_kernel(const void* from, uint32_t* to, size_t count, float bs, float bz,
                               bool has_blank, long long blank) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    float v;
    bool null;
    if constexpr (kKind == Kind::Int16) {
      const uint16_t word = static_cast<const uint16_t*>(from)[i];
      const int16_t raw = static_cast<int16_t>(static_cast<uint16_t>((word >> 8) | (word << 8)));
      v = __fadd_rn(__fmul_rn(__int2float_rn(raw), bs), bz);
      null = has_blank && static_cast<long long>(raw) == blank;
    } else {
      // Big-endian to the device's order.
      const uint32_t bits = __byte_perm(static_cast<const uint32_t*>(from)[i], 0, 0x0123);
      if constexpr (kKind == Kind::Float32) {
        // CFITSIO's test of the exponent: all ones is null, all zeros (zero, denormal) reads
        // as 0.
        const uint32_t e = (bits >> 23) & 0xFFu;
        v = __fadd_rn(__fmul_rn(__uint_as_float(e != 0 ? bits : 0u), bs), bz);
        null = e == 0xFFu;
      } else {
        const int32_t raw = static_cast<int32_t>(bits);
        v = __fadd_rn(__fmul_rn(__int2float_rn(raw), bs), bz);
        null = has_blank && static_cast<long long>(raw) == blank;
      }
    }
    const uint32_t vb = __float_as_uint(v);
    to[i] = !null && (vb & 0x7FFFFFFFu) <= kMaxBits ? vb : kNanBits;
  }
}

}  // namespace

void convert_stored(const void* from, float* to, size_t count, const StoredPixels& stored,
                    cudaStream_t stream) {
  static_assert(kMaxPixelValue == 1e30f, "kMaxBits is 1e30f's");
  if (stored.converted() || count == 0) return;
  constexpr int kThreads = 256;
  // A few waves of blocks, each thread a handful of values: the kernel is bound by memory.
  const unsigned blocks =
      static_cast<unsigned>(std::min<size_t>((count + kThreads - 1) / kThreads, 4096));
  uint32_t* words = reinterpret_cast<uint32_t*>(to);
  const float bs = stored.bscale, bz = stored.bzero;
  const bool has_blank = stored.has_blank;
  const long long blank = stored.blank;
  switch (stored.type) {
    case StoredPixels::Type::Float32:
      convert_kernel<Kind::Float32>
          <<<blocks, kThreads, 0, stream>>>(from, words, count, bs, bz, false, 0);
      break;
    case StoredPixels::Type::Int32:
      convert_kernel<Kind::Int32>
          <<<blocks, kThreads, 0, stream>>>(from, words, count, bs, bz, has_blank, blank);
      break;
    case StoredPixels::Type::Int16:
      convert_kernel<Kind::Int16>
          <<<blocks, kThreads, 0, stream>>>(from, words, count, bs, bz, has_blank, blank);
      break;
    case StoredPixels::Type::Converted:
      return;
  }
  cuda_check_launch("convert_kernel");
}

}  // namespace celeris::cuda
