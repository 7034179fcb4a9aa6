// Pixels left as the file stores them: a read that is asked to (read_fits_image_into's
// `leave_stored`) skips the byte swap and scaling of BITPIX -32, 32 and 16 images and says here
// how to finish them, so that the GPU, which receives the frame anyway, does it beside the upload
// (core/cuda/stored_pixels.hpp). The swap was a fifth of a stream reader's time and 5% of a
// stream's host CPU (stop 48's profile); a BITPIX 16 frame also goes up in half the bytes.
// Plain C++, no CFITSIO: the CUDA side includes it.
#pragma once

#include <cstdint>

namespace celeris {

struct StoredPixels {
  // Converted: the memory holds the image's floats. Float32 / Int32 / Int16: it holds the file's
  // big-endian values (BITPIX -32 / 32 / 16), each to become fits_pixels.cpp's pixel(), packed
  // from the start of the floats' memory (Int16: in its first half).
  enum class Type : uint8_t { Converted, Float32, Int32, Int16 };
  Type type = Type::Converted;
  float bscale = 1.0f, bzero = 0.0f;  // as the reader scales: in single precision
  bool has_blank = false;             // BLANK, for Int32
  long long blank = 0;

  bool converted() const { return type == Type::Converted; }
  // Bytes a stored value takes (4 once converted).
  int value_bytes() const { return type == Type::Int16 ? 2 : 4; }
};

}  // namespace celeris
