// The objects' shapes and isophotal sums on the GPU (shapes_gpu.hpp): one thread per object runs
// the CPU's own per-pixel loops (stages/shape_sums.hpp, stages/iso_sums.hpp) over the object's
// pixels, read from the front end's device images at each pixel's index. Plain C++17 on raw
// device pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/glibc_float_math.hpp"
#include "extract/stages/background_bilinear.hpp"
#include "extract/stages/fwhm_sums.hpp"
#include "extract/stages/iso_finish.hpp"
#include "extract/stages/iso_sums.hpp"
#include "extract/stages/shape.hpp"
#include "extract/stages/shape_sums.hpp"

namespace celeris::extract::gpu {

// The FWHM fit's pixels of one object (fwhm_sums.hpp fwhm_cut) about its barycentre.
struct FwhmInput {
  double mx = 0, my = 0;  // the barycentre (finish_shape)
  double sat = 0;
  float thresh0 = 0;  // not positive: no fit (the sums stay 0)
  float bkg = 0;      // BACKGROUND (iso_background)
  float dthresh = 0;  // the object's detection threshold (object_dthresh)
};

struct ShapeArgs {
  int64_t objects = 0;
  const int64_t* offset = nullptr;  // objects + 1: object k's pixels at [offset[k], offset[k + 1])
  const int32_t* index = nullptr;   // each pixel's y * width + x
  const uint8_t* fixed_centre = nullptr;  // per object (deblended children): moments about (cx, cy)
  const double *cx = nullptr, *cy = nullptr;
  const float *value = nullptr, *cvalue = nullptr;  // the device images, width x height
  int width = 0;
  float detect_thresh = 0;
  // With weights (iso.weighted, pixel_thresholds): each pixel's variance and detection threshold
  // (thresh null: detect_thresh for every pixel), device images width x height.
  const float *var = nullptr, *thresh = nullptr;
  bool pixel_thresholds = false;
  IsoSumParams iso;
  bool clean = true;  // CLEAN's threshold (mthresh), with DETECT_MINAREA `minarea` <= kMaxMinarea
  int minarea = 5;
  int64_t max_pixels = 0;  // objects of more pixels are left alone (the host measures them)
  // Scratch: room for every object's index, and a counter (shape_sums lists the larger objects).
  int32_t* large = nullptr;
  unsigned* large_count = nullptr;
  ShapeSums* shape = nullptr;  // outputs, per object
  // With `finished`: each object's shape finished there instead of its sums in `shape`
  // (finish_shape_with, theta left to the host's shape_theta), the area correction's log
  // glibc's from `lists` (log_cap: the host's log of its cap, shape_finish::kRatioCap).
  Shape* finished = nullptr;
  glibcmath::ExceptionLists lists;
  double log_cap = 0;
  IsoSums* sums = nullptr;
  float* mthresh = nullptr;
  // With fwhm_in: each object's FWHM fit inputs there too (its barycentre, BACKGROUND from the
  // mesh grid `back`, on the device, and the fit's bounds with SATUR_LEVEL `satur_level`), as the
  // host's finish makes them (shapes_gpu.cpp).
  FwhmInput* fwhm_in = nullptr;
  MeshGrid back;
  double satur_level = 0;
};

// The largest DETECT_MINAREA whose CLEAN heap a thread keeps (larger: the host measures).
constexpr int kMaxMinarea = 64;

// Objects of this many pixels or more are summed by a warp that first reads their pixels into
// shared memory; the others by a thread each, reading each pixel as the sums reach it.
constexpr int64_t kWarpObjectPixels = 64;

// The objects' sums: the smaller objects' on `stream`, the larger ones' on `warp_stream` at the
// same time (the caller orders both after the inputs' upload, and what reads the sums after
// both).
void shape_sums(const ShapeArgs& args, cudaStream_t stream, cudaStream_t warp_stream);

// The isophotal finish of the same objects as ShapeArgs (stages/iso_finish.hpp, as finish_iso):
// the FWHM fit's sums (stages/fwhm_sums.hpp), an object per warp over its pixels in order,
// glibc's log reproduced (core/glibc_float_math.hpp), then the object's Iso from them and
// ShapeArgs' outputs (its finished shape, its sums and CLEAN's threshold). Objects of more than
// `max_pixels` pixels are left alone, as in shape_sums.
struct IsoFinishArgs {
  int64_t objects = 0;
  const int64_t* offset = nullptr;
  const int32_t* index = nullptr;
  const float* value = nullptr;
  int width = 0;
  int64_t max_pixels = 0;
  const FwhmInput* in = nullptr;
  glibcmath::ExceptionLists lists;  // device addresses
  const Shape* shapes = nullptr;
  const IsoSums* sums = nullptr;
  const float* mthresh = nullptr;
  IsoFinishParams finish;
  Iso* isos = nullptr;  // the output, per object
};

void finish_isos(const IsoFinishArgs& args, cudaStream_t stream);

}  // namespace celeris::extract::gpu
