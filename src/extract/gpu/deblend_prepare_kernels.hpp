// The deblending's candidates prepared on the device where the front end left the detections
// (gpu/front_end.cpp), so that their trees are built while the host gathers the detections: for
// each detection that may split (two peaks or more, as the GPU counted them) and that the tree
// kernels take, its levels (deblend_levels.cuh, the host's bit for bit where sure), its box, its
// contrast's share (CandidateLevels::value0), whether its sums above the first level are exact
// in any order (OrderFreeSum) and its pixels' cells in the box's grid: the inputs the tree
// builder otherwise stages on the host (deblend_trees_gpu.cpp add). A candidate with an unsure
// level, an inexact sum or too large a box is left to the host, as is every detection the kernel
// does not take. Plain C++17 on raw device pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "extract/gpu/deblend_tree_kernels.hpp"

namespace celeris::extract::gpu {

// The most levels a prepared candidate may have (more: every candidate to the host).
constexpr int kPrepareMaxLevels = 64;
// The size classes the tree kernels are launched in (deblend_trees_gpu.cpp kClasses).
constexpr int kPrepareClasses = 2;

// What the kernel counts, in PrepareArgs::counts.
enum PrepareCount : int {
  kPrepared = 0,                                 // candidates taken (slots given)
  kClassCount = 1,                               // + class: candidates of the class
  kClassPixels = kClassCount + kPrepareClasses,  // + class: its largest candidate's pixels
  kClassCells = kClassPixels + kPrepareClasses,  // + class: its largest grid's cells
  kPrepareCounts = kClassCells + kPrepareClasses
};

struct PrepareArgs {
  // The detections as the front end gathered them: per pixel (in chain order, detection after
  // detection) its column, row, value and filtered value; per detection its pixels' offsets
  // (detections + 1 entries) and its peaks, min(2, count_peaks).
  const int32_t* x = nullptr;
  const int32_t* y = nullptr;
  const float* value = nullptr;
  const float* cvalue = nullptr;
  const int32_t* offsets = nullptr;
  const uint8_t* peaks = nullptr;
  int64_t detections = 0;
  // The stage's parameters (DeblendParams): t0 is the detection threshold.
  int nthresh = 0;
  double mincont = 0;
  float t0 = 0;
  // The tree kernels' limits: class k takes candidates of up to class_pixels[k] pixels (the last
  // class's is the most any takes), and no grid of more than max_cells cells.
  int class_pixels[kPrepareClasses] = {0, 0};
  int max_cells = 0;
  // Out, per detection: its slot (-1: not taken). Per slot: the candidate, its value0, its
  // nthresh levels. Per class k: its slots at launch[k * detections ...] (in no fixed order).
  // Per pixel of a taken candidate: its cell, its filtered value and (cell_value non-null) its
  // value, at the detections' own pixel indexes.
  int32_t* slot = nullptr;
  TreeCandidate* candidates = nullptr;
  double* value0 = nullptr;
  float* thresh = nullptr;
  int32_t* launch = nullptr;
  int32_t* cell = nullptr;
  float* cell_cvalue = nullptr;
  float* cell_value = nullptr;
  int32_t* counts = nullptr;  // kPrepareCounts entries, zeroed before the launch
};

// One warp per detection.
void prepare_candidates(const PrepareArgs& args, cudaStream_t stream);

}  // namespace celeris::extract::gpu
