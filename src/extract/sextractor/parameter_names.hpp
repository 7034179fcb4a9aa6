// Whether a catalog parameter name is one of SExtractor 2.25's (see the .cpp for the list).
#pragma once

#include <string>

namespace celeris::extract {

bool is_sextractor_parameter(const std::string& name);

}  // namespace celeris::extract
