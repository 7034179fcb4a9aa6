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

// Starts both checks above on a thread of their own (once per process; later calls return at
// once), so that they run while the caller reads a frame and runs its first stages: a GPU
// path's first frame otherwise waits for them where it first asks (the deblending's tree
// builders; 33-93 ms on the H200's host, stop 60). The first caller of either function above
// waits for that thread's answer; the thread is joined at exit.
void check_exception_lists_ahead();

}  // namespace celeris::glibcmath
