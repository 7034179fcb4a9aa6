#include "extract/gpu/detections_from_chains.hpp"

#include "celeris/extract.hpp"
#include "core/cuda/buffer_pool.hpp"
#include "extract/gpu/device_memory_plan.hpp"

namespace celeris::extract::gpu {

namespace {

// As many kept as the frames' images (device_memory_plan.hpp kPooledFrames): the same frames
// hold these. Never destroyed (its CUDA resources would outlive the runtime's teardown).
cuda::BufferPool<DetectionPixels>& detection_pixels() {
  static auto* pool = new cuda::BufferPool<DetectionPixels>(kPooledFrames);
  return *pool;
}

}  // namespace

std::shared_ptr<DetectionPixels> take_detection_pixels(size_t pixels, size_t images) {
  return detection_pixels().take(
      [&](const DetectionPixels& p) {
        return p.xy.size() >= 2 * pixels && p.values.size() >= images * pixels;
      },
      [&] {
        auto p = std::make_unique<DetectionPixels>();
        const size_t room = pixels + pixels / 4;
        p->xy.reset(2 * room);
        p->values.reset(images * room);
        return p;
      });
}

void release_idle_detection_pixels() {
  detection_pixels().drop_idle([](DetectionPixels&) {});  // their downloads were waited for
}

ObjectList detections_from_chains(int32_t* xs, int32_t* ys, int64_t n, const int32_t* offset,
                                  const int32_t* ends, size_t nobj, float* value, float* cvalue,
                                  int threads, std::vector<int64_t>& done,
                                  std::shared_ptr<const void> storage) {
  ObjectList out;
  done.resize(nobj);
  const size_t m = static_cast<size_t>(n);
  out.offset.assign(offset, offset + nobj + 1);
  out.flags.resize(nobj);
  out.fixed_centre.assign(nobj, 0);
  out.cx.assign(nobj, 0.0);
  out.cy.assign(nobj, 0.0);
  // The four pixel columns (no weights: var and dthresh stay empty): the buffers themselves where
  // `storage` lends them, else sized without being written (PixelColumn: no zero-fill) and filled
  // in one pass over the pixels by all threads, so that their pages are first touched side by
  // side. (One thread per column took 2.2-4 ms of a crowded 4096^2 frame on the H200's host: the
  // largest column's copy and page faults on one thread.)
  const bool lent = storage != nullptr;
  if (lent) {
    lend_column(out.x, xs, m, storage);
    lend_column(out.y, ys, m, storage);
    lend_column(out.value, value, m, storage);
    lend_column(out.cvalue, cvalue, m, storage);
  } else {
    out.x.resize(m);
    out.y.resize(m);
    out.value.resize(m);
    out.cvalue.resize(m);
  }
#pragma omp parallel num_threads(threads)
  {
    if (!lent) {
#pragma omp for schedule(static)
      for (size_t i = 0; i < m; ++i) {
        out.x[i] = xs[i];
        out.y[i] = ys[i];
        out.value[i] = value[i];
        out.cvalue[i] = cvalue[i];
      }
    }
#pragma omp for schedule(static)
    for (size_t k = 0; k < nobj; ++k) {
      const bool border = ends[k] < 0;
      out.flags[k] = border ? kFlagTruncated : 0;
      done[k] = border ? ~ends[k] : ends[k];
    }
  }
  return out;
}

void append_band_detections(ObjectList& out, std::vector<int64_t>& done, const int32_t* xs,
                            const int32_t* ys, const int32_t* offset, const int32_t* ends,
                            size_t c0, size_t c1, const float* value, const float* cvalue, int y0,
                            int threads) {
  if (c1 <= c0) return;
  const int64_t first = offset[c0], last = offset[c1];
  const size_t at = out.x.size(), m = static_cast<size_t>(last - first);
  out.x.resize(at + m);
  out.y.resize(at + m);
  out.value.resize(at + m);
  out.cvalue.resize(at + m);
  // On all threads, so that the columns' fresh pages are first touched side by side (as
  // detections_from_chains' copies).
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = 0; i < m; ++i) {
    out.x[at + i] = xs[first + static_cast<int64_t>(i)];
    out.y[at + i] = ys[first + static_cast<int64_t>(i)] + y0;
    out.value[at + i] = value[first + static_cast<int64_t>(i)];
    out.cvalue[at + i] = cvalue[first + static_cast<int64_t>(i)];
  }
  for (size_t c = c0; c < c1; ++c) {
    out.offset.push_back(static_cast<int64_t>(at) + offset[c + 1] - first);
    const bool border = ends[c] < 0;
    out.flags.push_back(border ? kFlagTruncated : 0);
    out.fixed_centre.push_back(0);
    out.cx.push_back(0.0);
    out.cy.push_back(0.0);
    done.push_back(border ? ~ends[c] : ends[c]);
  }
}

}  // namespace celeris::extract::gpu
