// Internal CUDA layer: pixels uploaded as the file stores them (core/stored_pixels.hpp) finished
// on the device, each to the float the host's reader gives (fits_pixels.cpp pixel(): the byte
// swap, CFITSIO's null test, value * BSCALE + BZERO in single precision without a fused
// multiply-add, BLANK and magnitudes beyond kMaxPixelValue as NaN), to the bit.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "core/stored_pixels.hpp"

namespace celeris::cuda {

// The `count` stored values at `from` (stored.value_bytes() each) converted into the floats at
// `to` on `stream`; `from` may be `to` for 4-byte values (in place). Nothing when
// stored.converted().
void convert_stored(const void* from, float* to, size_t count, const StoredPixels& stored,
                    cudaStream_t stream);

}  // namespace celeris::cuda
