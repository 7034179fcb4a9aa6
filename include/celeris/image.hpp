// 2-D images stored row-major (C order): pixel (x, y) at data[y * width + x], x the fast (FITS
// NAXIS1) axis, both 0-based. Catalog columns convert to FITS 1-based pixels (x + 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#if __cplusplus >= 202002L
#include <span>
#endif
#include <vector>

namespace celeris {

// Non-owning view of an image; cheap to copy, usable on host and (with device pointers) device.
template <class T>
struct ImageView {
  T* data = nullptr;
  int64_t width = 0;
  int64_t height = 0;

  // A view of mutable pixels converts to a view of const pixels.
  constexpr operator ImageView<const T>() const { return {data, width, height}; }

  constexpr T& operator()(int64_t x, int64_t y) const { return data[y * width + x]; }
  constexpr int64_t size() const { return width * height; }
  constexpr T* row(int64_t y) const { return data + y * width; }
#if __cplusplus >= 202002L  // (CUDA sources are compiled as C++17)
  std::span<T> span() const {
    return {data, static_cast<size_t>(size())};
  }
#endif
};

namespace detail {
// Buffers of at least kLargeBytes: 2 MB aligned, on transparent huge pages where the kernel
// allows (src/core/large_alloc.cpp).
inline constexpr size_t kLargeBytes = size_t(4) << 20;
void* allocate_large(size_t bytes);
void free_large(void* p) noexcept;
}  // namespace detail

// Allocator whose value-less construction leaves trivial types uninitialised, so that an image
// about to be overwritten is not first filled with zeros (a full pass over memory). With `Large`,
// buffers of kLargeBytes or more come from detail::allocate_large (huge pages, reused at the same
// size): for images, allocated whole at a size that repeats from frame to frame, not for vectors
// grown by push_back, whose every reallocation would take fresh huge pages.
template <class T, bool Large = true>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U, Large>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U, Large>&) noexcept {}
  T* allocate(size_t n) {
    if (!Large || n * sizeof(T) < detail::kLargeBytes) return std::allocator<T>::allocate(n);
    return static_cast<T*>(detail::allocate_large(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    if (!Large || n * sizeof(T) < detail::kLargeBytes)
      std::allocator<T>::deallocate(p, n);
    else
      detail::free_large(p);
  }
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// Owning image.
template <class T>
class Image {
 public:
  using Storage = std::vector<T, DefaultInitAllocator<T>>;

  Image() = default;
  Image(int64_t width, int64_t height, T fill = T{})
      : width_(width), height_(height), pix_(static_cast<size_t>(width * height), fill) {}
  // Pixels left uninitialised: for images every pixel of which is written next.
  static Image uninitialized(int64_t width, int64_t height) {
    Image im;
    im.width_ = width;
    im.height_ = height;
    im.pix_.resize(static_cast<size_t>(width * height));
    return im;
  }

  int64_t width() const { return width_; }
  int64_t height() const { return height_; }
  int64_t size() const { return width_ * height_; }
  bool empty() const { return pix_.empty(); }

  T& operator()(int64_t x, int64_t y) { return pix_[static_cast<size_t>(y * width_ + x)]; }
  const T& operator()(int64_t x, int64_t y) const {
    return pix_[static_cast<size_t>(y * width_ + x)];
  }
  T* data() { return pix_.data(); }
  const T* data() const { return pix_.data(); }
  Storage& pixels() { return pix_; }
  const Storage& pixels() const { return pix_; }

  ImageView<T> view() { return {pix_.data(), width_, height_}; }
  ImageView<const T> view() const { return {pix_.data(), width_, height_}; }
  ImageView<const T> cview() const { return {pix_.data(), width_, height_}; }

 private:
  int64_t width_ = 0;
  int64_t height_ = 0;
  Storage pix_;
};

}  // namespace celeris
