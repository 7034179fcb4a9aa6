// The benchmarks' "--key value" options after their positional arguments: each pair is given
// to `take(key, value)`, which returns false for a key it does not know; an unknown key or a key
// without its value is an error naming it (never skipped).
#pragma once

#include <string>

#include "celeris/error.hpp"

namespace celeris::bench {

template <class Take>
void parse_options(int argc, char** argv, int first, Take&& take) {
  for (int i = first; i < argc; i += 2) {
    const std::string key = argv[i];
    if (i + 1 >= argc) throw Error("option " + key + " needs a value");
    if (!take(key, std::string(argv[i + 1]))) throw Error("unknown option " + key);
  }
}

}  // namespace celeris::bench
