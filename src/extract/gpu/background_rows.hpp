// The finished background map on the device, ready for the subtraction (kernels.hpp
// subtract_background): its meshes and their second derivatives uploaded, each image row's
// spline nodes made (row_nodes) and the x weights uploaded. Shared by the GPU front end and the
// GPU's weighted front end.
#pragma once

#include <cuda_runtime.h>

#include "core/cuda/device_buffer.hpp"
#include "extract/gpu/kernels.hpp"
#include "extract/stages/background.hpp"

namespace celeris::extract::gpu {

struct BackgroundRows {
  // `back` also receives the mesh statistics (mesh_statistics' modes) before the map is
  // finished on the host.
  cuda::DeviceBuffer<float> back, dback, node, dnode, u, xw;
  cuda::DeviceBuffer<int> lo;
};

// Queues the uploads and the rows' kernel on `stream`; returns the x weights for the
// subtraction (unused where the map has one mesh column or meshes one pixel wide). The map's
// host vectors must stay unchanged until the stream has passed these copies.
XWeights upload_background_rows(const BackgroundMap& map, const MeshGeometry& g, BackgroundRows& b,
                                cudaStream_t stream);

}  // namespace celeris::extract::gpu
