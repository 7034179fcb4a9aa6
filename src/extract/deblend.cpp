#include "deblend.hpp"

namespace celeris::extract {

std::vector<Detection> deblend(const Detection& object, const DeblendParams&) {
  return {object};
}

}  // namespace celeris::extract
