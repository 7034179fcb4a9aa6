#include "clean.hpp"

namespace celeris::extract {

void clean_objects(std::vector<Detection>&, std::vector<Shape>&, const CleanParams&) {}

}  // namespace celeris::extract
