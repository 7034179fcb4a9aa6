// The finished background map on the device, ready for the subtraction (kernels.hpp
// subtract_background): its meshes and their second derivatives, each image row's spline nodes
// made (row_nodes) and the x weights uploaded. Shared by the GPU front end and the GPU's
// weighted front end.
#pragma once

#include <cuda_runtime.h>

#include "core/cuda/device_buffer.hpp"
#include "extract/gpu/background_finish.hpp"
#include "extract/gpu/kernels.hpp"
#include "extract/stages/background.hpp"

namespace celeris::extract::gpu {

struct BackgroundRows {
  // `back` also receives the mesh statistics (mesh_statistics' modes) before the map is
  // finished; `filled` is the device finish's scratch (background_finish.hpp).
  cuda::DeviceBuffer<float> back, dback, node, dnode, u, xw, filled;
  cuda::DeviceBuffer<int> lo;
  // The x weights in lo and xw, made for this width, nx and mesh_w (host_xw: their host copy).
  int xw_key[3] = {-1, -1, -1};
  XSplineWeights host_xw;
};

// A map finished on the host: queues the uploads and the rows' kernel on `stream`; returns the x
// weights for the subtraction (unused where the map has one mesh column or meshes one pixel
// wide). The map's host vectors must stay unchanged until the stream has passed these copies.
XWeights upload_background_rows(const BackgroundMap& map, const MeshGeometry& g, BackgroundRows& b,
                                cudaStream_t stream);

// The map's grid as the device finishes it, and whether it does (background_finish.hpp; never
// for BACK_TYPE MANUAL, whose subtraction reads no rows).
BackGrid background_grid(const BackgroundMap& map, const Config& config);
bool background_rows_on_device(const BackgroundMap& map, const Config& config);

// A map finished on the device, from the mesh statistics' modes in b.back: the grid finished
// there (finish_back_grid), the x weights, the rows' kernel, all queued on `stream`. The host's
// finish_background of the same statistics gives the same grid. `map`: its layout alone.
XWeights finish_background_rows(const BackgroundMap& map, const MeshGeometry& g,
                                const Config& config, BackgroundRows& b, cudaStream_t stream);

}  // namespace celeris::extract::gpu
