#include "celeris/malloc_policy.hpp"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace celeris {

bool keep_freed_heap_memory() {
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if ((tunables && std::strstr(tunables, "glibc.malloc.")) ||
      std::getenv("MALLOC_TRIM_THRESHOLD_") || std::getenv("MALLOC_MMAP_THRESHOLD_"))
    return false;
  // 32 MB: glibc's ceiling for the mmap threshold on 64-bit (larger blocks, the images, have
  // their own cache: large_alloc.cpp). A fixed threshold also stops malloc's own adjustment.
  const bool mmap_ok = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
  const bool trim_ok = mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;  // M_TRIM_THRESHOLD takes an int
  return mmap_ok && trim_ok;
#else
  return false;
#endif
}

}  // namespace celeris
