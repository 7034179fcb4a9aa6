// Internal CUDA layer: ContextPool<C>, a GPU stage's contexts (each a stream and the buffers it
// grows frame after frame), one per caller at a time. A stream of frames runs a stage on several
// back workers at once; with one context behind a mutex each waited for the others' whole calls,
// host work included (the shapes' finish reads the context's page-locked results: 15.9 ms a
// crowded 4096^2 frame waiting for it with four workers on the H200's host, stop 41). A caller
// takes a context, free or new, and gives it back when its handle goes; the pool keeps those
// given back, so a process makes about as many as it ever ran the stage at once. A stage keeps
// its pool in a static that is never destroyed (`static ContextPool<C>* pool = new ...`): the
// contexts' CUDA resources would outlive the runtime's teardown at exit. Plain C++.
#pragma once

#include <memory>

#include "core/cuda/buffer_pool.hpp"

namespace celeris::cuda {

template <class C>
class ContextPool {
 public:
  // `make` builds a context (default: C's default constructor).
  template <class Make>
  std::shared_ptr<C> take(Make&& make) {
    return pool_.take([](const C&) { return true; }, make);
  }
  std::shared_ptr<C> take() {
    return take([] { return std::make_unique<C>(); });
  }

 private:
  // Kept without limit: a context given back is kept, never freed, while the pool lives.
  BufferPool<C> pool_{static_cast<size_t>(-1)};
};

}  // namespace celeris::cuda
