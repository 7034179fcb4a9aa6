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

struct File::Impl {};
File::File(const std::string& path) {
  refuse(path);
}
File::~File() = default;
uint64_t File::rows() const {
  return 0;
}
Table File::schema() const {
  return {};
}
void File::read(const std::vector<std::string>&, Table&) const {}

}  // namespace celeris::xmatch::parquet_file
