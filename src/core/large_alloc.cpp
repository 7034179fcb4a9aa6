// Large pixel buffers on transparent huge pages (see include/celeris/image.hpp): a full image is
// written once right after allocation, and with 4 KB pages its first touch costs one page fault
// per 4 KB (about 15% of a small frame's extraction); 2 MB pages cut that 512-fold.
//
// Freed buffers are kept for reuse, up to kCacheBytes: a stream of frames allocates the same
// images frame after frame, and memory handed back to the kernel must be zeroed by it again on
// the next first touch (the blanking map of a crowded 4096^2 frame: ~40 ms of page clearing).
#include <sys/mman.h>

#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>

#include "celeris/image.hpp"

namespace celeris::detail {

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
size_t rounded(size_t bytes) {
  return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kCacheBytes = 0;  // reuse would hide use-after-free from AddressSanitizer
#else
constexpr size_t kCacheBytes = size_t(1) << 30;
#endif

// Freed blocks, reused only at their exact rounded size (frames of one size ask for the same
// sizes again), and the rounded size of every block handed out.
class BlockCache {
 public:
  void* take(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.find(bytes);
    if (it == free_.end()) return nullptr;
    void* p = it->second;
    free_.erase(it);
    held_ -= bytes;
    return p;
  }
  void lent(void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    size_of_[p] = bytes;
  }
  // Keeps p for reuse when the cache has room; returns false when the caller must free it.
  bool give_back(void* p) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = size_of_.find(p);
    const size_t bytes = it->second;
    size_of_.erase(it);
    if (bytes > kCacheBytes) return false;
    while (held_ + bytes > kCacheBytes) {  // make room: the newest sizes are the likeliest
      auto old = free_.begin();
      std::free(old->second);
      held_ -= old->first;
      free_.erase(old);
    }
    try {
      free_.emplace(bytes, p);
    } catch (...) {
      return false;
    }
    held_ += bytes;
    return true;
  }

 private:
  std::mutex mutex_;
  std::unordered_multimap<size_t, void*> free_;
  std::unordered_map<void*, size_t> size_of_;
  size_t held_ = 0;
};

// Never destroyed: images with static storage may be freed after it would have been.
BlockCache& cache() {
  static BlockCache* c = new BlockCache;
  return *c;
}
}  // namespace

void* allocate_large(size_t bytes) {
  const size_t total = rounded(bytes);
  void* p = cache().take(total);
  if (!p) {
    p = std::aligned_alloc(kHugePage, total);
    if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(p, total, MADV_HUGEPAGE);  // a hint: without THP, ordinary pages
#endif
  }
  cache().lent(p, total);
  return p;
}

void free_large(void* p) noexcept {
  if (p && !cache().give_back(p)) std::free(p);
}

}  // namespace celeris::detail
