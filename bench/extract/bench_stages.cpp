// Times the extraction of one frame stage by stage, on the CPU and with the GPU front end, in one
// process: the first run of each device is a warm-up (the GPU's context is made there), then the
// median of --repeat runs per stage and in total, host memory to catalog (Objects) in host
// memory. With the GPU, the measurement's photometry (APER, AUTO, FLUX_RADIUS) runs there too:
// its host setup, upload (image, blanking codes, shapes), kernel and download are listed before
// the "measure" stage that contains them, and summed on a line of their own. The catalogs are
// compared column by column.
//   bench_extract_stages IMAGE.fits [--repeat N] [--threads N]
//                        [--devices cpu,cuda,cuda-pinned,cuda-resident] [--chunk-objects N]
// --chunk-objects: objects per chunk of the pipelined deblending and cleaning
// (src/extract/back_end.hpp; Config::back_end_chunk_objects, 0 its default).
// --gpu-children 1: deblending's pixel assignment on the GPU (Config::gpu_deblend_children).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../common/median.hpp"
#include "../common/options.hpp"
#include "../common/process_usage.hpp"
#include "celeris/device_image.hpp"
#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/fits.hpp"
#include "celeris/malloc_policy.hpp"
#include "extract/gpu/front_end.hpp"

using namespace celeris;

namespace {

using celeris::bench::median;

bool same(const extract::Objects& a, const extract::Objects& b) {
  return a.x == b.x && a.y == b.y && a.flux_iso == b.flux_iso && a.flux_auto == b.flux_auto &&
         a.fluxerr_auto == b.fluxerr_auto && a.kron_radius == b.kron_radius &&
         a.flux_aper == b.flux_aper && a.fluxerr_aper == b.fluxerr_aper &&
         a.flux_radius == b.flux_radius && a.flags == b.flags && a.a == b.a && a.fwhm == b.fwhm &&
         a.background == b.background;
}

}  // namespace

int main(int argc, char** argv) try {
  keep_freed_heap_memory();  // as the command-line tool (malloc_policy.hpp)
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s IMAGE.fits [--repeat N] [--threads N] [--devices "
                 "cpu,cuda,cuda-pinned,cuda-resident] [--chunk-objects N] [--gpu-children 0|1]\n",
                 argv[0]);
    return 2;
  }
  int repeat = 5, threads = 0;
  int64_t chunk_objects = 0;
  bool gpu_children = false;
  std::string devices = "cpu,cuda,cuda-pinned,cuda-resident";
  bench::parse_options(argc, argv, 2, [&](const std::string& key, const std::string& value) {
    if (key == "--repeat")
      repeat = std::stoi(value);
    else if (key == "--threads")
      threads = std::stoi(value);
    else if (key == "--devices")
      devices = value;
    else if (key == "--chunk-objects")
      chunk_objects = std::stoll(value);
    else if (key == "--gpu-children")
      gpu_children = std::stoi(value) != 0;
    else
      return false;
    return true;
  });
  const FitsImage img = read_fits_image(argv[1]);
  std::printf("%s: %lld x %lld, %d repeats, threads %d (0: all)\n", argv[1],
              static_cast<long long>(img.pixels.width()),
              static_cast<long long>(img.pixels.height()), repeat, threads);
  extract::MeasureRequest req;
  req.n_apertures = 1;
  std::vector<extract::Objects> catalogs;
  std::stringstream list(devices);
  for (std::string d; std::getline(list, d, ',');) {
    // cuda-pinned: the frame page-locked beforehand (as a stream of frames does); cuda-resident:
    // uploaded beforehand (extract(DeviceImage), the frame already in device memory).
    const bool pinned = d == "cuda-pinned", resident = d == "cuda-resident";
    extract::Config config;
    config.threads = threads;
    config.back_end_chunk_objects = chunk_objects;
    config.gpu_deblend_children = gpu_children;
    config.device = resolve_backend(parse_backend(pinned || resident ? "cuda" : d));
    std::shared_ptr<void> lock;
    if (pinned) lock = lock_host_memory(img.pixels.data(), img.pixels.size() * sizeof(float));
    if (pinned && !lock) throw Error("cuda-pinned: the frame could not be page-locked");
    DeviceImage on_device;
    if (resident) on_device = DeviceImage::upload(img.pixels.view());
    std::map<std::string, std::vector<double>> stages;
    std::vector<std::string> order;
    std::vector<double> totals, faults, cpu;
    extract::Result r;
    for (int k = 0; k <= repeat; ++k) {
      const bench::ProcessUsage u0 = bench::process_usage();
      const auto t0 = std::chrono::steady_clock::now();
      r = resident ? extract::extract(on_device, config, req)
                   : extract::extract(img.pixels.view(), config, req);
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (k == 0) continue;  // warm-up
      totals.push_back(t);
      const bench::ProcessUsage u1 = bench::process_usage();
      faults.push_back(static_cast<double>(u1.minor_faults - u0.minor_faults));
      cpu.push_back(u1.user_seconds + u1.system_seconds - u0.user_seconds - u0.system_seconds);
      for (const auto& [name, s] : r.info.stage_seconds) {
        if (!stages.count(name)) order.push_back(name);
        stages[name].push_back(s);
      }
    }
    std::printf("device %-5s objects %zu (detections %zu), total %.2f ms (median)\n", d.c_str(),
                r.objects.size(), r.info.n_detections, 1e3 * median(totals));
    // First touches of fresh memory: each a trap to the kernel (to the hypervisor's as well on a
    // virtual machine), and a page zeroed.
    std::printf("  %-24s %9.0f (median; the result's destruction included)\n",
                "page faults per frame", median(faults));
    // Core time per frame: what a stream of frames on the same cores pays for each (the frames
    // per second a stream can reach is at most the cores over it).
    std::printf("  %-24s %9.1f ms (median; user + system, all threads)\n", "CPU time per frame",
                1e3 * median(cpu));
    for (const auto& name : order)
      std::printf("  %-24s %9.3f ms\n", name.c_str(), 1e3 * median(stages[name]));
    if (stages.count("gpu measure kernel")) {
      double sum = 0;
      for (const char* step : {"gpu measure upload", "gpu measure kernel", "gpu measure download"})
        sum += median(stages[step]);
      std::printf("  %-24s %9.3f ms (upload + kernel + download)\n", "gpu measure, device",
                  1e3 * sum);
    }
    if (d != "cpu")  // the plan against what the device holds after the runs
      std::printf("  %-24s %9.0f MiB planned per frame, %.0f MiB in use after the runs\n",
                  "gpu memory",
                  static_cast<double>(
                      extract::gpu::frame_device_bytes(static_cast<int64_t>(img.pixels.size()))) /
                      (1 << 20),
                  static_cast<double>(extract::gpu::device_memory_in_use()) / (1 << 20));
    catalogs.push_back(std::move(r.objects));
  }
  for (size_t i = 1; i < catalogs.size(); ++i)
    std::printf("catalog %zu %s catalog 0\n", i,
                same(catalogs[0], catalogs[i]) ? "==" : "DIFFERS FROM");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_extract_stages: %s\n", e.what());
  return 1;
}
