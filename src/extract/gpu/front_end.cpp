// The GPU front end's driver (front_end.hpp): buffers, the order of the kernels on one stream,
// the small CPU steps between them (the mesh grid's filling, filtering and splines, which are
// the CPU path's own functions) and the detections' chain order on the host.
#include "extract/gpu/front_end.hpp"

#include <chrono>
#include <cmath>

#include "celeris/error.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/kernels.hpp"
#include "extract/stages/detect.hpp"

namespace celeris::extract::gpu {

bool available() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return n > 0;
}

FrontEnd front_end(ImageView<const float> image, const Config& config, const FilterParams& filter,
                   int host_threads) {
  cuda::cuda_require_device("--device cuda");
  const int w = static_cast<int>(image.width), h = static_cast<int>(image.height);
  const int64_t n = image.size();
  if (n >= (int64_t{1} << 31))
    throw Error("--device cuda: frames of 2^31 pixels or more are not supported yet");
  FrontEnd out;
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  const auto t_setup = Clock::now();
  cuda::Stream stream;
  const cudaStream_t s = stream.get();
  enum Mark { kStart, kUploaded, kMeshes, kSubtracted, kFiltered, kLabelled, kSorted, kMarks };
  cuda::EventTimer timer(kMarks);

  cuda::DeviceBuffer<float> d_image(n), d_value(n);
  const double setup = seconds_since(t_setup);
  timer.mark(kStart, s);
  d_image.upload_async(image.data, n, s);
  timer.mark(kUploaded, s);

  // 1. Mesh statistics on the GPU; the grid's filling, filtering and splines on the CPU.
  BackgroundMap& map = out.background;
  map = mesh_layout(w, h, config);
  const MeshGeometry g{w, h, map.mesh_w, map.mesh_h, map.nx, map.ny};
  const size_t meshes = map.back.size();
  cuda::DeviceBuffer<unsigned char> d_mesh_scratch(mesh_scratch_bytes(g));
  cuda::DeviceBuffer<float> d_back(meshes), d_sigma(meshes), d_dback(meshes);
  mesh_statistics(d_image.data(), g, d_mesh_scratch.data(), d_back.data(), d_sigma.data(), s);
  d_back.download_async(map.back.data(), meshes, s);
  d_sigma.download_async(map.sigma.data(), meshes, s);
  stream.synchronize();
  timer.mark(kMeshes, s);
  finish_background(map, config);

  // 2. The map's rows and the subtraction.
  d_back.upload_async(map.back.data(), meshes, s);
  d_dback.upload_async(map.dback.data(), meshes, s);
  const size_t nodes = static_cast<size_t>(h) * map.nx;
  cuda::DeviceBuffer<float> d_node(nodes), d_dnode(nodes), d_u(nodes);
  const bool spline_x = map.nx >= 2 && map.mesh_w > 1;
  cuda::DeviceBuffer<int> d_lo(spline_x ? w : 0);
  cuda::DeviceBuffer<float> d_xw(spline_x ? 4 * static_cast<size_t>(w) : 0);
  XWeights xw{};
  if (spline_x) {
    d_lo.upload_async(map.xweights.lo.data(), w, s);
    d_xw.upload_async(map.xweights.cdx.data(), w, s, 0);
    d_xw.upload_async(map.xweights.cdx2m1.data(), w, s, w);
    d_xw.upload_async(map.xweights.dx.data(), w, s, 2 * static_cast<size_t>(w));
    d_xw.upload_async(map.xweights.dx2m1.data(), w, s, 3 * static_cast<size_t>(w));
    xw = {d_lo.data(), d_xw.data(), d_xw.data() + w, d_xw.data() + 2 * w, d_xw.data() + 3 * w};
  }
  if (!map.manual)
    row_nodes(d_back.data(), d_dback.data(), g, d_node.data(), d_dnode.data(), d_u.data(), s);
  subtract_background(d_image.data(), d_node.data(), d_dnode.data(), xw, g, map.manual,
                      map.manual_value, d_value.data(), s);
  timer.mark(kSubtracted, s);

  const Thresholds t = detection_thresholds(config, map.global_rms);
  out.detect_thresh = t.detect;
  out.analysis_thresh = t.analysis;

  // 3. Filter (the subtracted image's buffer d_image is free now: it receives the filtered one).
  const float* d_cvalue = d_value.data();
  cuda::DeviceBuffer<float> d_kernel(config.filter ? filter.kernel.size() : 0);
  if (config.filter) {
    d_kernel.upload_async(filter.kernel.data(), filter.kernel.size(), s);
    gpu::filter(d_value.data(), d_kernel.data(), filter.width, filter.height, w, h, d_image.data(),
                s);
    d_cvalue = d_image.data();
  }
  timer.mark(kFiltered, s);

  // 4. Labelling and the components in completion order.
  cuda::DeviceBuffer<int32_t> d_parent(n), d_count(n), d_last(n);
  label(d_value.data(), d_cvalue, out.detect_thresh, w, h, d_parent.data(), d_count.data(),
        d_last.data(), s);
  timer.mark(kLabelled, s);
  cuda::DeviceBuffer<unsigned char> d_comp_scratch(component_scratch_bytes(n));
  // d_count's and d_last's roles end in sorted_components; d_parent is read there too.
  cuda::DeviceBuffer<int32_t> d_pixels(n), d_keys(n);
  const int64_t kept =
      sorted_components(d_parent.data(), d_count.data(), d_last.data(), n, config.detect_minarea,
                        d_comp_scratch.data(), d_pixels.data(), d_keys.data(), s);
  timer.mark(kSorted, s);

  // 5. Back to the host: the two images and the sorted components.
  stream.synchronize();
  const auto t_download = Clock::now();
  out.value = Image<float>::uninitialized(w, h);
  d_value.download_async(out.value.data(), n, s);
  if (config.filter) {
    out.filtered = Image<float>::uninitialized(w, h);
    d_image.download_async(out.filtered.data(), n, s);
  }
  std::vector<int32_t> pixels(kept), keys(kept);
  d_pixels.download_async(pixels.data(), kept, s);
  d_keys.download_async(keys.data(), kept, s);
  stream.synchronize();
  const double download = seconds_since(t_download);
  out.stage_seconds = {{"gpu setup (alloc)", setup},
                       {"gpu upload", timer.seconds(kStart, kUploaded)},
                       {"gpu background meshes", timer.seconds(kUploaded, kMeshes)},
                       {"gpu subtract", timer.seconds(kMeshes, kSubtracted)},
                       {"gpu filter", timer.seconds(kSubtracted, kFiltered)},
                       {"gpu label", timer.seconds(kFiltered, kLabelled)},
                       {"gpu components", timer.seconds(kLabelled, kSorted)}};
  std::vector<int64_t> offset = {0};
  for (int64_t i = 1; i <= kept; ++i)
    if (i == kept || keys[i] != keys[i - 1]) offset.push_back(i);
  const ImageView<const float> cvalue = config.filter ? out.filtered.view() : out.value.view();
  const auto t_chains = Clock::now();
  out.detections =
      detections_from_components(out.value.view(), cvalue, pixels.data(), offset, host_threads);
  out.stage_seconds.emplace_back("gpu download", download);
  out.stage_seconds.emplace_back("host chains", seconds_since(t_chains));
  return out;
}

}  // namespace celeris::extract::gpu
