// Deblending's pixel assignment on the GPU (deblend_children_gpu.hpp): one block per split
// detection walks its pixels in order, a block's width at a time; each thread takes a pixel's
// profile weights (stages/deblend_profile.hpp, glibc's expf from its exception lists), a block
// scan numbers the pixels that take a draw, so that each reads the rand() value the host's
// loop would give it (the detection's first draw, plus the draws before it), and the pixel's
// child is written. Plain C++17 on raw device pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/glibc_float_math.hpp"
#include "extract/stages/deblend_profile.hpp"

namespace celeris::extract::gpu {

// One split detection, as uploaded.
struct ChildrenDetection {
  int64_t pixel_begin = 0;  // its pixels' entries in ChildrenArgs::x, y, in_core and chosen
  int64_t first_draw = 0;   // its first value in ChildrenArgs::random
  int64_t draws = 0;        // the draws the host's plan counted (no more are read)
  int32_t pixels = 0;
  int32_t child_begin = 0;  // its children in ChildrenArgs::children
  int32_t children = 0;
};

struct ChildrenArgs {
  const ChildrenDetection* detections = nullptr;
  int64_t count = 0;
  const int32_t* x = nullptr;
  const int32_t* y = nullptr;
  const uint8_t* in_core = nullptr;  // per pixel: in a child's core (no choice to make)
  const DeblendChild* children = nullptr;
  const int32_t* random = nullptr;  // the rand() stream's values the stage takes
  int32_t rand_max = 0;
  glibcmath::ExceptionLists lists;  // device addresses (expf's two)
  int32_t* chosen = nullptr;        // per pixel: its child, -1 in a core
  int64_t* draws = nullptr;         // per detection: the draws its pixels took
  // Per detection (zeroed before the launch): 1 when a weight's expf fell outside the lists'
  // range (a child whose ellipse gives dist <= -70) or more draws were due than counted: the
  // host then makes its choices.
  uint8_t* unsure = nullptr;
};

void choose_children(const ChildrenArgs& a, cudaStream_t s);

}  // namespace celeris::extract::gpu
