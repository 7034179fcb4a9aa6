// The exception lists of core/glibc_float_math.hpp, decoded once from the generated
// glibc_float_math_tables.inc (host memory; a GPU stage uploads them once), and whether this
// process's glibc agrees with them.
#pragma once

#include <string>

#include "core/glibc_float_math.hpp"

namespace celeris::glibcmath {

// The lists, host addresses (decoded on first use, kept for the process).
const ExceptionLists& host_exception_lists();

// Empty when this process's glibc gives, at every listed argument of log (of expf), the result
// the list says (checked once: 65,604 and 167,603 calls, about 5 and 15 ms); else the first
// argument that disagrees. The lists were made against one glibc (the generated file's header
// names it); a GPU stage that reproduces glibc from them must fall back to the host when the
// function it reproduces disagrees.
const std::string& log_exceptions_mismatch();
const std::string& expf_exceptions_mismatch();

}  // namespace celeris::glibcmath
