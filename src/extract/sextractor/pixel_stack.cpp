#include "extract/sextractor/pixel_stack.hpp"

namespace celeris::extract {

std::string pixel_stack_warning(const PixelStackOverflow& o) {
  // scan.c's words and its 1-based position, so that the two logs can be compared.
  return "Pixel stack overflow at position " + std::to_string(o.x + 1) + "," +
         std::to_string(o.y + 1) + " (MEMORY_PIXSTACK)";
}

}  // namespace celeris::extract
