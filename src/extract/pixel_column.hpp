// The objects' pixel columns (objects.hpp ObjectList): vectors that are not zero-filled when they
// grow (each element is written next), and that can start out in storage filled elsewhere. The
// GPU front end's detections come back from the device into page-locked host memory; their
// columns take that memory as it is (lend_column) instead of copying it, 16 bytes a pixel (a
// crowded 4096^2 frame's 0.95 M pixels: 0.6-1.2 ms of the 16 host threads on the H200's host,
// on the GPU path's critical path, stop 56). Plain C++.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "celeris/image.hpp"

namespace celeris::extract {

// A pixel column's allocator. Default: the heap's memory, elements default-initialised. Lent
// storage (`data`, `n` elements, kept alive by `keep`): the first allocation of at most `n`
// elements is `data` itself, and deallocating it lets `keep` go; any later one, or a larger one,
// is the heap's. A column that grows past its lent storage moves to the heap (the vector copies
// its elements, then lets the lent storage go); a copy of a column is on the heap. The
// allocators of columns that never lent anything (every column but the GPU front end's
// detections) hold a null pointer and behave as DefaultInitAllocator's small buffers.
template <class T>
class PixelAllocator : public DefaultInitAllocator<T, false> {  // its construct(): default-init
 public:
  using value_type = T;
  template <class U>
  struct rebind {
    using other = PixelAllocator<U>;
  };
  // A column moved or swapped takes its storage's allocator with it: lent storage is let go by
  // the allocator that lent it (or a copy: copies share one record of the lent storage).
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  using propagate_on_container_copy_assignment = std::false_type;
  using is_always_equal = std::false_type;

  PixelAllocator() noexcept = default;
  PixelAllocator(T* data, size_t n, std::shared_ptr<const void> keep)
      : lent_(data ? std::make_shared<Lent>(Lent{data, n, true, std::move(keep)}) : nullptr) {}
  template <class U>
  PixelAllocator(const PixelAllocator<U>&) noexcept {}  // another element type: lends nothing
  // A vector's copy is on the heap.
  PixelAllocator select_on_container_copy_construction() const noexcept { return {}; }

  T* allocate(size_t n) {
    if (lent_ && lent_->available && n <= lent_->n) {
      lent_->available = false;
      return lent_->data;
    }
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (lent_ && p != nullptr && p == lent_->data) {
      *lent_ = Lent{};  // let go, and never lent again
      return;
    }
    std::allocator<T>().deallocate(p, n);
  }
  // Elements are default-initialised (DefaultInitAllocator::construct): a trivial element is
  // left as its storage holds it.

  // Whether this allocator still holds lent storage (given out or not): for tests.
  bool holds_lent() const { return lent_ && lent_->data; }

  // Equal allocators can let go of each other's storage: two that never held lent storage, or
  // copies of one.
  friend bool operator==(const PixelAllocator& a, const PixelAllocator& b) noexcept {
    return a.lent_ == b.lent_;
  }
  friend bool operator!=(const PixelAllocator& a, const PixelAllocator& b) noexcept {
    return !(a == b);
  }

 private:
  // The lent storage, shared by the allocator's copies (a vector keeps a copy of the allocator
  // it is made with): taken once (available), let go once.
  struct Lent {
    T* data = nullptr;
    size_t n = 0;
    bool available = false;
    std::shared_ptr<const void> keep;
  };
  std::shared_ptr<Lent> lent_;
};

template <class T>
using PixelColumn = std::vector<T, PixelAllocator<T>>;

// Makes `column` the `n` elements at `data`, without copying them: `data` must stay valid and
// unchanged by anyone else while `keep` (or a copy of it) lives; the column keeps a copy until it
// lets the storage go (destroyed, grown past n, or given other storage). Its old storage is
// freed.
template <class T>
void lend_column(PixelColumn<T>& column, T* data, size_t n, std::shared_ptr<const void> keep) {
  PixelColumn<T> lent{PixelAllocator<T>(data, n, std::move(keep))};
  lent.resize(n);
  // The standard library asks for exactly n elements of an empty vector; were it to ask for
  // more, the storage is the heap's, and the elements are copied into it.
  if (n > 0 && lent.data() != data) std::copy(data, data + n, lent.begin());
  column = std::move(lent);
}

}  // namespace celeris::extract
