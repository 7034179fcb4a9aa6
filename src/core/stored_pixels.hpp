// Pixels left as the file stores them: a read that is asked to (read_fits_image_into's
// `leave_stored`) skips the byte swap and scaling of BITPIX -32 and 32 images and says here how
// to finish them, so that the GPU, which receives the frame anyway, does it beside the upload
// (core/cuda/stored_pixels.hpp). The swap was a fifth of a stream reader's time and 5% of a
// stream's host CPU (stop 48's profile). Plain C++, no CFITSIO: the CUDA side includes it.
#pragma once

#include <cstdint>

namespace celeris {

struct StoredPixels {
  // Converted: the memory holds the image's floats. Float32 / Int32: it holds the file's
  // big-endian 4-byte values (BITPIX -32 / 32), each to become fits_pixels.cpp's pixel().
  enum class Type : uint8_t { Converted, Float32, Int32 };
  Type type = Type::Converted;
  float bscale = 1.0f, bzero = 0.0f;  // as the reader scales: in single precision
  bool has_blank = false;             // BLANK, for Int32
  long long blank = 0;

  bool converted() const { return type == Type::Converted; }
};

}  // namespace celeris
