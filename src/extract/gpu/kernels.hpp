// The GPU front end's kernels (kernels.cu), launched on a stream by front_end.cpp. Plain C++17
// declarations on raw device pointers, so that the C++20 driver and nvcc both read them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/cuda/read_back.hpp"

namespace celeris::extract::gpu {

struct MeshGeometry {
  int width = 0, height = 0;  // image
  int mesh_w = 0, mesh_h = 0;
  int nx = 0, ny = 0;
};

// Per mesh, mode and sigma of its pixels (background.cpp batch_statistics): kBadMesh for both
// where fewer than half the pixels are valid. `scratch`: mesh_scratch_bytes(g) bytes. The meshes
// of mesh rows row0 .. row1 - 1 (-1: to the last), which read only image rows row0 * mesh_h ..
// row1 * mesh_h - 1.
size_t mesh_scratch_bytes(const MeshGeometry& g);
void mesh_statistics(const float* image, const MeshGeometry& g, void* scratch, float* back,
                     float* sigma, cudaStream_t stream, int row0 = 0, int row1 = -1);

// For every image row y, the row of nx spline nodes and their x-derivatives (height x nx each).
void row_nodes(const float* map, const float* d2map, const MeshGeometry& g, float* node,
               float* dnode, float* u, cudaStream_t stream);

// value = image - background map, per pixel (BackgroundMap::back_line).
struct XWeights {
  const int* lo;
  const float *cdx, *cdx2m1, *dx, *dx2m1;
};
void subtract_background(const float* image, const float* node, const float* dnode,
                         const XWeights& xw, const MeshGeometry& g, bool manual, float manual_value,
                         float* value, cudaStream_t stream);

// The detection image (filter.cpp detection_image); `kernel` on the device, kw x kh. With
// `mark_masked` false, the plain convolution (filter.cpp convolve: a variance map's).
void filter(const float* value, const float* kernel, int kw, int kh, int width, int height,
            float* filtered, cudaStream_t stream, bool mark_masked = true);

// 8-connected components of the pixels not NaN in `value` and above `threshold` in `cvalue`
// (above thresh[p] instead, each pixel its own, where `thresh` is given: weight maps):
// parent[p] = the component's first pixel in raster order, -1 off the mask; count[root] and
// last[root] (its last pixel in raster order) for each root. count and last are set here.
void label(const float* value, const float* cvalue, float threshold, int width, int height,
           int32_t* parent, int32_t* count, int32_t* last, cudaStream_t stream,
           const float* thresh = nullptr);

// The pixels of components of at least `minarea` pixels, sorted by their component's last
// pixel (SExtractor's completion order), in raster order within each: `pixels` and `keys` (the
// component's last pixel) receive them; returns how many (read back through `readback`, which
// waits on no copy engine). `scratch` / `scratch_bytes`: see component_scratch_bytes.
size_t component_scratch_bytes(int64_t n);
int64_t sorted_components(const int32_t* parent, const int32_t* count, const int32_t* last,
                          int64_t n, int minarea, void* scratch, int32_t* pixels, int32_t* keys,
                          cuda::MappedValues<int64_t>& readback, cudaStream_t stream);

// The pixels of `image` that are not NaN into *host_count (page-locked), once the stream has
// come this far (`counter`: one device word of scratch).
void count_valid(const float* image, int64_t n, unsigned long long* counter,
                 unsigned long long* host_count, cudaStream_t stream);

}  // namespace celeris::extract::gpu
