// Errors raised at the library's API edge. Every failure a user can cause (bad file, bad
// parameter, bad data) is a celeris::Error whose what() is one line naming the problem.
#pragma once

#include <stdexcept>
#include <string>

namespace celeris {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace celeris
