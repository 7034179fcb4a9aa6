// Parquet reading in a build without CELERIS_PARQUET: every call is refused with one line that
// says how to enable it (the HATS layout itself is still parsed, so the error names the catalog).
#include "celeris/error.hpp"
#include "parquet_file.hpp"

namespace celeris::xmatch::parquet_file {

namespace {
[[noreturn]] void refuse(const std::string& path) {
  throw Error(path +
              ": Parquet (HATS) input needs a celeris built with -DCELERIS_PARQUET=ON and "
              "pyarrow in the build's Python (scripts/build.sh installs it; docs/xmatch.md)");
}
}  // namespace

bool available() {
  return false;
}
Table schema(const std::string& path) {
  refuse(path);
}
void read(const std::string& path, const std::vector<std::string>&, Table&) {
  refuse(path);
}
uint64_t rows(const std::string& path) {
  refuse(path);
}

}  // namespace celeris::xmatch::parquet_file
