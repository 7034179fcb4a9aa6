// A queue of at most `capacity` items between two threads of a pipeline (frames read ahead of
// their extraction, extracted ahead of their writing): push blocks while it is full, pop while it
// is empty; close() ends it (pop then returns nothing once it is drained).
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace celeris {

template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity ? capacity : 1) {}

  void push(T item) {
    std::unique_lock<std::mutex> lock(m_);
    not_full_.wait(lock, [&] { return items_.size() < capacity_ || closed_; });
    if (closed_) return;  // the consumer is gone: the item is dropped
    items_.push_back(std::move(item));
    not_empty_.notify_one();
  }
  std::optional<T> pop() {
    std::unique_lock<std::mutex> lock(m_);
    not_empty_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }
  void close() {
    std::lock_guard<std::mutex> lock(m_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable not_full_, not_empty_;
  std::deque<T> items_;
  size_t capacity_;
  bool closed_ = false;
};

}  // namespace celeris
