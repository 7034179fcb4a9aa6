// Background and background-RMS maps (SExtractor manual §"Background"; back.c).
//
// The image is cut into meshes of back_width x back_height pixels. In each mesh the mode of the
// pixel distribution is estimated from a sigma-clipped histogram; bad meshes are replaced by
// their nearest good neighbours; the mesh grid is median-filtered; the full-resolution maps are
// bicubic-spline interpolations of the grid.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "extract/stages/background_bilinear.hpp"
#include "extract/stages/background_grid.hpp"

namespace celeris::extract {

// Interpolation weights along x of one map row, identical for every row (interpolate_line):
// for column j, the left node lo[j] and the spline weights SExtractor computes there.
struct XSplineWeights {
  std::vector<int> lo;
  std::vector<float> cdx, cdx2m1, dx, dx2m1;  // 1 - dx, (1 - dx)^2 - 1, dx, dx^2 - 1
};

// The x weights of a map of nx mesh columns mesh_w pixels wide over `width` pixels.
XSplineWeights x_spline_weights(int nx, int mesh_w, int width);

struct BackgroundMap {
  int width = 0, height = 0;         // image size
  int mesh_w = 0, mesh_h = 0;        // mesh size
  int nx = 0, ny = 0;                // mesh grid
  std::vector<float> back, sigma;    // per mesh, after filtering
  std::vector<float> dback, dsigma;  // spline second derivatives along y (divided by 6)
  float global_back = 0.0f, global_rms = 0.0f;
  bool manual = false;  // BACK_TYPE MANUAL: subtract manual_value everywhere
  float manual_value = 0.0f;
  XSplineWeights xweights;  // filled by the estimators; recomputed per row when empty

  // Full-resolution rows of the interpolated maps.
  void back_line(int y, float* out) const;
  void rms_line(int y, float* out) const;
  // The mesh grid's values, as BACKGROUND's interpolation reads them (background_bilinear.hpp).
  MeshGrid grid() const { return {back.data(), nx, ny, mesh_w, mesh_h}; }
  // Bilinear interpolation of the mesh grid at a pixel: SExtractor's BACKGROUND column.
  float back_bilinear(int x, int y) const { return extract::back_bilinear(grid(), x, y); }
};

// The mesh grid of an image, every mesh still marked bad (kBadMesh): what the mesh statistics
// (CPU or GPU) fill in.
BackgroundMap mesh_layout(int64_t width, int64_t height, const Config& config);
// From the per-mesh statistics (kBadMesh where a mesh has too few valid pixels): bad meshes
// filled from their nearest good ones, the grid median-filtered, the global values and the
// splines; BACK_TYPE MANUAL then makes the subtracted map the constant BACK_VALUE.
void finish_background(BackgroundMap& m, const Config& config);

// SExtractor's fqmedian: the middle value, the mean (in double) of the two middle values for an
// even count. Reorders `v`.
float median_of(std::vector<float>& v);

// Estimates the background of `image` (NaN = masked). Meshes are processed in parallel.
BackgroundMap estimate_background(ImageView<const float> image, const Config& config);

// The background (clipped-histogram mode) and sigma of a list of pixels taken as one mesh, in
// the list's order: SExtractor's local background (BACKPHOTO_TYPE LOCAL, back.c localback).
// `pixels` must be non-empty and hold no NaN.
struct ListBackground {
  float back = 0.0f, sigma = 0.0f;
};
// Buffers of the histogram-mode estimate, reused from mesh to mesh (one per thread).
struct MeshScratch {
  std::vector<int> histo;
  std::vector<int64_t> c0, c1, c2;  // cumulative counts, counts x bin, counts x bin^2
};
ListBackground list_background(std::span<const float> pixels, MeshScratch& scratch);

// A constant map (BACK_TYPE MANUAL), RMS still measured from the image.
BackgroundMap constant_background(ImageView<const float> image, const Config& config, float value);

// The background stage: the map BACK_TYPE asks for, and the image less the map (NaN stays NaN),
// computed row by row in `threads` threads, in `reuse` (the image's own memory) when given.
BackgroundMap background_map(ImageView<const float> image, const Config& config);
Image<float> subtract_background(ImageView<const float> image, const BackgroundMap& map,
                                 Image<float>* reuse, int threads);

}  // namespace celeris::extract
