// Errors raised at the library's API edge. Every failure a user can cause (bad file, bad
// parameter, bad data) is a celeris::Error whose what() is one line naming the problem.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace celeris {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A short, printable excerpt of input text for an error message: about `max` characters (then
// "..."), control characters and bytes outside printable ASCII written as \xNN, so that an error
// quoting a junk line stays one short line.
std::string printable_excerpt(std::string_view text, size_t max = 60);

}  // namespace celeris
