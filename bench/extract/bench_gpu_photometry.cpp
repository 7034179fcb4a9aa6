// Times the GPU photometry (gpu/measure_gpu.hpp) of one frame's detections for several splits
// between the kernel's warps, its threads and the host threads (PhotometryRequest's
// warp_min_rlim, host_min_rlim and device_slowdown): the kernel waits on its largest object,
// which one GPU thread measures many times slower than a host core and a warp many times faster
// than one thread. The columns are checked equal, bit for bit, every time, to those of a call
// that measures every object on the host threads.
// The frame goes through the GPU front end (default configuration); each detection is measured
// as written out after the scan (no deblending, no cleaning), with MASK_TYPE CORRECT on the
// blanking codes made on the GPU; FLUX_APER(5 px), FLUX_AUTO, FLUX_RADIUS(0.5).
//   bench_gpu_photometry IMAGE.fits [--repeat N] [--slowdowns 0,10,20] [--rlims 48,32]
//                        [--warp-rlims inf,12] [--min-warps N]
// --min-warps: PhotometryRequest::min_warps (default -1: as many as the device holds at once).
// --growth-apart -1,0,6: where the growth curve runs (PhotometryRequest::growth_kernel): -1 as
// the pipeline chooses (automatic, the default), 0 in the photometry kernel, 4, 6 or 8 in a kernel
// of its own with that many blocks per SM.
// --first-beside 1,0: whether the growth curve's kernel has its first fill made beside the
// photometry kernel, on a second stream (PhotometryRequest::growth_first_beside).
// --parts: which measurements run, of aper,auto,radius (default all three): how much of the
// kernel each takes (FLUX_RADIUS's growth curve without auto has a flux of 0 to reach).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../common/median.hpp"
#include "../common/options.hpp"
#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/fits.hpp"
#include "extract/gpu/blanking_gpu.hpp"
#include "extract/gpu/front_end.hpp"
#include "extract/gpu/measure_gpu.hpp"
#include "extract/stages/filter.hpp"
#include "extract/stages/measure.hpp"
#include "extract/stages/moments.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

std::vector<double> numbers(const std::string& list) {
  std::vector<double> out;
  std::stringstream in(list);
  for (std::string v; std::getline(in, v, ',');) out.push_back(std::stod(v));
  return out;
}

using celeris::bench::median;

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

bool same_columns(const gpu::PhotometryColumns& a, const gpu::PhotometryColumns& b) {
  return same_bits(a.flux_aper, b.flux_aper) && same_bits(a.fluxerr_aper, b.fluxerr_aper) &&
         same_bits(a.flux_auto, b.flux_auto) && same_bits(a.fluxerr_auto, b.fluxerr_auto) &&
         same_bits(a.kron_radius, b.kron_radius) && same_bits(a.flux_radius, b.flux_radius) &&
         same_bits(a.flags, b.flags);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s IMAGE.fits [--repeat N] [--slowdowns 0,10,20] [--rlims 48,32] "
                 "[--warp-rlims inf,12] [--min-warps N] [--parts aper,auto,radius] [--growth-apart "
                 "-1,0,6] [--first-beside 1,0]\n",
                 argv[0]);
    return 2;
  }
  int repeat = 5;
  int64_t min_warps = -1;
  std::string parts = "aper,auto,radius";
  std::vector<double> growth_apart = {-1}, first_beside = {1};
  std::vector<double> slowdowns = {0, 5, 10, 20, 40}, rlims = {48, 32, 24},
                      warp_rlims = {std::numeric_limits<double>::infinity(), 12};
  bench::parse_options(argc, argv, 2, [&](const std::string& key, const std::string& value) {
    if (key == "--repeat")
      repeat = std::stoi(value);
    else if (key == "--slowdowns")
      slowdowns = numbers(value);
    else if (key == "--rlims")
      rlims = numbers(value);
    else if (key == "--warp-rlims")
      warp_rlims = numbers(value);
    else if (key == "--min-warps")
      min_warps = std::stoll(value);
    else if (key == "--parts")
      parts = value;
    else if (key == "--growth-apart")
      growth_apart = numbers(value);
    else if (key == "--first-beside")
      first_beside = numbers(value);
    else
      return false;
    return true;
  });
  std::vector<std::string> asked;
  std::stringstream list(parts);
  for (std::string name; std::getline(list, name, ',');) {
    if (name != "aper" && name != "auto" && name != "radius")
      throw Error("--parts: unknown measurement '" + name + "' (aper, auto, radius)");
    asked.push_back(name);
  }
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const FitsImage img = read_fits_image(argv[1]);
  Config config;
  const FilterParams filter = FilterParams::of(config, threads);
  const FrontEnd front = gpu::front_end(img.pixels.view(), config, filter, threads, false);
  const ObjectList& d = front.detections;
  std::vector<ApertureShape> shapes(d.size());
  for (size_t k = 0; k < d.size(); ++k) {
    shapes[k] = centred_aperture(static_cast<int32_t>(k + 1),
                                 compute_shape(d[k], front.detect_thresh, false));
  }
  const int w = static_cast<int>(img.pixels.width()), h = static_cast<int>(img.pixels.height());
  // Codes made afresh for every call (outside its time), so that each call copies them to the
  // host when it measures objects there, as a frame does.
  auto fresh_codes = [&] {
    return Blanking(gpu::blanking_codes(front.device_value, front.device_cvalue, w, h,
                                        front.detect_thresh, d, {}, 2, threads),
                    w, 2);
  };
  Blanking blanking;
  PhotometryField field;
  field.value = front.value;
  field.value_on_device = front.device_value;
  field.blanking = &blanking;
  field.backsig = front.background.global_rms;
  std::printf("%s: %d x %d, %zu detections, %d host threads, %d repeats (median, ms), parts %s\n",
              argv[1], w, h, d.size(), threads, repeat, parts.c_str());
  std::printf("%8s %8s %10s %6s %7s %8s %8s %10s %10s %10s %8s\n", "warp", "rlim", "slowdown",
              "apart", "beside", "warps", "on host", "call", "kernel", "host", "same");
  gpu::PhotometryRequest base;
  auto part = [&](const char* name) {
    return std::find(asked.begin(), asked.end(), name) != asked.end();
  };
  if (part("aper")) base.apertures = {5.0};
  base.compute_auto = part("auto");
  if (part("radius")) base.fluxfrac = {0.5};
  base.growth = part("radius");
  base.host_threads = threads;
  base.min_warps = min_warps;
  // The reference: every object on the host threads (the kernel's body, measure_object).
  gpu::PhotometryRequest all_host = base;
  all_host.host_min_rlim = 0;
  blanking = fresh_codes();
  const gpu::PhotometryColumns first = gpu::measure_photometry(field, shapes, all_host);
  for (const double warp_rlim : warp_rlims)
    for (const double rlim : rlims)
      for (const double slowdown : slowdowns)
        for (const double apart : growth_apart)
          for (const double beside : first_beside) {
            gpu::PhotometryRequest req = base;
            req.growth_first_beside = beside != 0;
            using GrowthKernel = gpu::PhotometryRequest::GrowthKernel;
            req.growth_kernel = apart < 0    ? GrowthKernel::automatic
                                : apart == 0 ? GrowthKernel::inside
                                             : GrowthKernel::apart;
            if (apart > 0) req.growth_blocks_per_sm = static_cast<int>(apart);
            req.warp_min_rlim = warp_rlim;
            req.host_min_rlim = rlim;
            req.device_slowdown = slowdown;
            std::vector<double> call, kernel, host;
            gpu::PhotometryColumns c;
            bool same = true;
            for (int k = 0; k <= repeat; ++k) {
              blanking = fresh_codes();
              const auto t0 = std::chrono::steady_clock::now();
              c = gpu::measure_photometry(field, shapes, req);
              const double t =
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
              same = same && same_columns(first, c);
              if (k == 0) continue;  // warm-up
              call.push_back(t);
              kernel.push_back(c.kernel);
              host.push_back(c.host);
            }
            std::printf("%8.0f %8.0f %10.1f %6d %7d %8zu %8zu %10.3f %10.3f %10.3f %8s\n",
                        warp_rlim, rlim, slowdown, static_cast<int>(apart),
                        static_cast<int>(beside), c.warp_objects, c.host_objects,
                        1e3 * median(call), 1e3 * median(kernel), 1e3 * median(host),
                        same ? "yes" : "NO");
          }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_gpu_photometry: %s\n", e.what());
  return 1;
}
