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
// (src/extract/back_end.hpp; Config::back_end_chunk_objects, 60,000 its default).
// --zone-thread 0: with chunks, each chunk's zones and pairs made by the stages' thread after
// its shapes instead of a thread of their own (Config::back_end_zone_thread).
// --stage-threads N: with chunks, the stages' team beside the pass (Config::
// back_end_stage_threads; 0: picked).
// --gpu-children 1: deblending's pixel assignment on the GPU (Config::gpu_deblend_children).
// --pass-alone 0: the clean pass beside the OpenMP team's spinning threads
// (Config::serial_pass_alone).
// --photometry-batch N: the GPU photometry of the rows written out by the clean pass queued in
// batches of N rows while it runs (Config::photometry_batch_rows; 0: after the pass).
// --band-rows N: with the GPU, the detection in bands of N rows (Config::gpu_band_rows; 0: the
// whole frame at once).
// --timeline 1: with chunks, each chunk's shapes and pairs done and the pass's start and end
// on it, in ms from the back end's start (Config::back_end_timeline).
// --pass-census 1: each other thread's CPU time while the clean pass ran, the busiest six by
// rank ("pass census: ..."; Config::census_pass_neighbours): what shares the pass's cores.
// --plan-ranges K: the deblending's plans in K ranges of detections, one after another
// (Config::deblend_plan_ranges; "deblend: plans, the first range's" is the first one's time).
// --rms-map FILE: a weight map of the frame's size, WEIGHT_TYPE MAP_RMS for detection and
// measurement (the weighted front end: with --device cuda the whole of it on the GPU,
// gpu/weighted_front_end_gpu.hpp).
// --ab OPTION=VALUE[,OPTION=VALUE...]: instead, on the first device listed, --rounds N rounds
// (default: --repeat) of two runs, the options as given (a) and with each OPTION (chunk-objects,
// first-chunk, chunk-growth, zone-thread, stage-threads, gpu-children, pass-alone,
// photometry-batch, lend-pixels, prepare-trees, band-rows, plan-ranges or rows-beside:
// Config::catalog_rows_beside_min_objects) set to its VALUE (b), in turn, each round's order
// swapped: the medians of both, stage by stage, and of the rounds' differences b - a. The machine's
// speed drifts by more than many changes gain (3-5 ms within one call on the H200's host); paired
// rounds see through more of it.
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
#include "core/thread_ids.hpp"
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

// Sets a configuration option of this benchmark's (--chunk-objects, --zone-thread, --gpu-children,
// --pass-alone, --photometry-batch, --band-rows, --pass-census, --timeline, --plan-ranges;
// first-chunk, chunk-growth, lend-pixels, prepare-trees and zones-after-shapes for --ab only), by
// name without the dashes; false for another name.
bool set_option(extract::Config& c, const std::string& key, const std::string& value) {
  if (key == "chunk-objects")
    c.back_end_chunk_objects = std::stoll(value);
  else if (key == "first-chunk")
    c.back_end_first_chunk_objects = std::stoll(value);
  else if (key == "chunk-growth")
    c.back_end_chunk_growth = std::stod(value);
  else if (key == "zone-thread")
    c.back_end_zone_thread = std::stoi(value) != 0;
  else if (key == "stage-threads")
    c.back_end_stage_threads = std::stoi(value);
  else if (key == "gpu-children")
    c.gpu_deblend_children = std::stoi(value) != 0;
  else if (key == "pass-alone")
    c.serial_pass_alone = std::stoi(value) != 0;
  else if (key == "photometry-batch")
    c.photometry_batch_rows = std::stoll(value);
  else if (key == "lend-pixels")
    c.gpu_lend_detection_pixels = std::stoi(value) != 0;
  else if (key == "prepare-trees")
    c.gpu_prepare_trees = std::stoi(value) != 0;
  else if (key == "zones-after-shapes")
    c.gpu_zones_after_shapes = std::stoi(value) != 0;
  else if (key == "band-rows")
    c.gpu_band_rows = std::stoll(value);
  else if (key == "pass-census")
    c.census_pass_neighbours = std::stoi(value) != 0;
  else if (key == "timeline")
    c.back_end_timeline = std::stoi(value) != 0;
  else if (key == "plan-ranges")
    c.deblend_plan_ranges = std::stoi(value);
  else if (key == "rows-beside")
    c.catalog_rows_beside_min_objects = std::stoll(value);
  else
    return false;
  return true;
}

// cuda-pinned: the frame page-locked beforehand, as a stream of frames has it.
std::shared_ptr<void> pin_frame(const FitsImage& img) {
  std::shared_ptr<void> lock =
      lock_host_memory(img.pixels.data(), img.pixels.size() * sizeof(float));
  if (!lock) throw Error("cuda-pinned: the frame could not be page-locked");
  return lock;
}

using StageTimes = std::map<std::string, std::vector<double>>;

void add_stages(const extract::Result& r, StageTimes& stages, std::vector<std::string>& order) {
  for (const auto& [name, s] : r.info.stage_seconds) {
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
    stages[name].push_back(s);
  }
}

// --ab: paired rounds of configurations a and b on device `d`.
int ab_rounds(const FitsImage& img, const std::string& d, extract::Config a,
              const std::string& option, int rounds, const extract::MeasureRequest& req) {
  // OPTION: one or more KEY=VALUE, separated by commas, all set in b.
  extract::Config b = a;
  for (size_t start = 0; start <= option.size();) {
    const size_t end = std::min(option.find(',', start), option.size());
    const std::string one = option.substr(start, end - start);
    const size_t eq = one.find('=');
    if (eq == std::string::npos || !set_option(b, one.substr(0, eq), one.substr(eq + 1)))
      throw Error("--ab " + option + ": " + one +
                  ": expected chunk-objects=N, first-chunk=N, chunk-growth=X, gpu-children=0|1, "
                  "pass-alone=0|1, photometry-batch=N, lend-pixels=0|1, prepare-trees=0|1, "
                  "zones-after-shapes=0|1, rows-beside=N or band-rows=N, or several of them "
                  "separated by commas");
    start = end + 1;
  }
  if (rounds < 1) throw Error("--rounds " + std::to_string(rounds) + ": at least 1");
  const bool pinned = d == "cuda-pinned";
  if (d == "cuda-resident") throw Error("--ab: cpu, cuda or cuda-pinned");
  a.device = b.device = resolve_backend(parse_backend(pinned ? "cuda" : d));
  const std::shared_ptr<void> lock = pinned ? pin_frame(img) : nullptr;
  std::vector<double> total[2], diff;
  StageTimes stages[2];
  std::vector<std::string> order;
  extract::Objects first[2];
  int b_faster = 0;
  for (int k = 0; k <= rounds; ++k) {
    double t[2];
    for (int j = 0; j < 2; ++j) {
      const int which = (k + j) % 2;
      const auto t0 = std::chrono::steady_clock::now();
      extract::Result r = extract::extract(img.pixels.view(), which ? b : a, req);
      t[which] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (k == 0) {  // warm-up
        first[which] = std::move(r.objects);
        continue;
      }
      total[which].push_back(t[which]);
      add_stages(r, stages[which], order);
    }
    if (k == 0) continue;
    diff.push_back(t[1] - t[0]);
    b_faster += t[1] < t[0];
  }
  std::printf("device %s, %d paired rounds, a: as given, b: %s\n", d.c_str(), rounds,
              option.c_str());
  std::printf("  %-44s %9.3f %9.3f ms\n", "total (median), a and b", 1e3 * median(total[0]),
              1e3 * median(total[1]));
  std::printf("  %-44s %9.3f ms, b faster in %d of %d rounds\n",
              "rounds' differences b - a (median)", 1e3 * median(diff), b_faster, rounds);
  for (const std::string& name : order)  // a step only one of them has: 0 for the other
    std::printf("  %-44s %9.3f %9.3f ms\n", name.c_str(), 1e3 * median(stages[0][name]),
                1e3 * median(stages[1][name]));
  const bool identical = same(first[0], first[1]);
  std::printf("catalogs %s\n", identical ? "identical" : "DIFFER");
  return identical ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) try {
  keep_freed_heap_memory();  // as the command-line tool (malloc_policy.hpp)
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s IMAGE.fits [--repeat N] [--threads N] [--devices "
                 "cpu,cuda,cuda-pinned,cuda-resident] [--chunk-objects N] [--zone-thread 0|1] "
                 "[--gpu-children 0|1] "
                 "[--pass-alone 0|1] [--photometry-batch N] [--band-rows N] [--plan-ranges K] "
                 "[--rms-map FILE] "
                 "[--ab OPTION=VALUE [--rounds N]]\n",
                 argv[0]);
    return 2;
  }
  int repeat = 5, threads = 0, rounds = 0;
  extract::Config options;  // --chunk-objects, --gpu-children, --pass-alone, --photometry-batch
  std::string devices = "cpu,cuda,cuda-pinned,cuda-resident", ab, rms_map;
  bench::parse_options(argc, argv, 2, [&](const std::string& key, const std::string& value) {
    if (key == "--repeat")
      repeat = std::stoi(value);
    else if (key == "--threads")
      threads = std::stoi(value);
    else if (key == "--devices")
      devices = value;
    else if (key == "--ab")
      ab = value;
    else if (key == "--rounds")
      rounds = std::stoi(value);
    else if (key == "--rms-map")
      rms_map = value;
    else
      return key.size() > 2 && set_option(options, key.substr(2), value);
    return true;
  });
  const FitsImage img = read_fits_image(argv[1]);
  std::printf("%s: %lld x %lld, %d repeats, threads %d (0: all)\n", argv[1],
              static_cast<long long>(img.pixels.width()),
              static_cast<long long>(img.pixels.height()), repeat, threads);
  extract::MeasureRequest req;
  req.n_apertures = 1;
  FitsImage rms;
  if (!rms_map.empty()) {
    rms = read_fits_image(rms_map);
    req.weight_map = rms.pixels.view();
    options.detect_weight.type = extract::WeightType::MapRms;
    options.measure_weight.type = extract::WeightType::MapRms;
    std::printf("weight map %s (MAP_RMS)\n", rms_map.c_str());
  }
  std::vector<extract::Objects> catalogs;
  options.threads = threads;
  if (!ab.empty())
    return ab_rounds(img, devices.substr(0, devices.find(',')), options, ab,
                     rounds > 0 ? rounds : repeat, req);
  std::stringstream list(devices);
  for (std::string d; std::getline(list, d, ',');) {
    // cuda-pinned: the frame page-locked beforehand (as a stream of frames does); cuda-resident:
    // uploaded beforehand (extract(DeviceImage), the frame already in device memory).
    const bool pinned = d == "cuda-pinned", resident = d == "cuda-resident";
    extract::Config config = options;
    config.device = resolve_backend(parse_backend(pinned || resident ? "cuda" : d));
    const std::shared_ptr<void> lock = pinned ? pin_frame(img) : nullptr;
    DeviceImage on_device;
    if (resident) on_device = DeviceImage::upload(img.pixels.view());
    StageTimes stages;
    std::vector<std::string> order;
    std::vector<double> totals, faults, cpu, started;
    extract::Result r;
    for (int k = 0; k <= repeat; ++k) {
      const std::vector<long> ids0 = thread_ids();
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
      started.push_back(static_cast<double>(threads_started(ids0, thread_ids())));
      add_stages(r, stages, order);
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
    // Threads started during a frame and still running at its end (0 in a steady state): each
    // an OpenMP thread that a smaller team ended, started again for a full one.
    std::printf("  %-24s %9.0f (median)\n", "threads started a frame", median(started));
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
