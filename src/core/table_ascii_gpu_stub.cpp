// ascii_table_text_gpu in a build without CUDA: never on the GPU (core/table_ascii_gpu.hpp).
#include "core/table_ascii_gpu.hpp"

namespace celeris {

std::optional<std::string> ascii_table_text_gpu(const Table&, bool) {
  return std::nullopt;
}

}  // namespace celeris
