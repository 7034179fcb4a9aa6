// Large pixel buffers on transparent huge pages (see include/celeris/image.hpp): a full image is
// written once right after allocation, and with 4 KB pages its first touch costs one page fault
// per 4 KB (about 15% of a small frame's extraction); 2 MB pages cut that 512-fold.
#include <sys/mman.h>

#include <cstdlib>
#include <new>

#include "celeris/image.hpp"

namespace celeris::detail {

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
size_t rounded(size_t bytes) {
  return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}
}  // namespace

void* allocate_large(size_t bytes) {
  void* p = std::aligned_alloc(kHugePage, rounded(bytes));
  if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, rounded(bytes), MADV_HUGEPAGE);  // a hint: without THP, ordinary pages
#endif
  return p;
}

void free_large(void* p) noexcept {
  std::free(p);
}

}  // namespace celeris::detail
