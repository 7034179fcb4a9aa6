// Helpers for the libFuzzer targets: the parsers read files, so each input is written to a
// scratch file of this process (one per name) before the parser is called.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace celeris::fuzz {

// Path of this process's scratch file `name` (e.g. "in.fits") in $TMPDIR or /tmp.
inline std::string scratch(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/celeris-fuzz-" + std::to_string(::getpid()) +
         "-" + name;
}

inline std::string write_scratch(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = scratch(name);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

}  // namespace celeris::fuzz
