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

template <bool kFloat>
__global__ void convert_kernel(uint32_t* words, size_t count, float bs, float bz, bool has_blank,
                               long long blank) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    const uint32_t bits = __byte_perm(words[i], 0, 0x0123);  // big-endian to the device's order
    float v;
    bool null;
    if constexpr (kFloat) {
      // CFITSIO's test of the exponent: all ones is null, all zeros (zero, denormal) reads as 0.
      const uint32_t e = (bits >> 23) & 0xFFu;
      v = __fadd_rn(__fmul_rn(__uint_as_float(e != 0 ? bits : 0u), bs), bz);
      null = e == 0xFFu;
    } else {
      const int32_t raw = static_cast<int32_t>(bits);
      v = __fadd_rn(__fmul_rn(__int2float_rn(raw), bs), bz);
      null = has_blank && static_cast<long long>(raw) == blank;
    }
    const uint32_t vb = __float_as_uint(v);
    words[i] = !null && (vb & 0x7FFFFFFFu) <= kMaxBits ? vb : kNanBits;
  }
}

}  // namespace

void convert_stored(float* pixels, size_t count, const StoredPixels& stored, cudaStream_t stream) {
  static_assert(kMaxPixelValue == 1e30f, "kMaxBits is 1e30f's");
  if (stored.converted() || count == 0) return;
  constexpr int kThreads = 256;
  // A few waves of blocks, each thread a handful of words: the kernel is bound by memory.
  const unsigned blocks =
      static_cast<unsigned>(std::min<size_t>((count + kThreads - 1) / kThreads, 4096));
  uint32_t* words = reinterpret_cast<uint32_t*>(pixels);
  if (stored.type == StoredPixels::Type::Float32)
    convert_kernel<true>
        <<<blocks, kThreads, 0, stream>>>(words, count, stored.bscale, stored.bzero, false, 0);
  else
    convert_kernel<false><<<blocks, kThreads, 0, stream>>>(
        words, count, stored.bscale, stored.bzero, stored.has_blank, stored.blank);
  cuda_check_launch("convert_kernel");
}

}  // namespace celeris::cuda
