// Times a stream of frames (extract_frames, src/extract/run_frames.cpp) with its shape named:
// reader threads, frames read ahead, frames in the back stages. For each shape, the best of
// --repeat runs: frames/s and each thread's steps in ms per frame, as `celeris extract
// -VERBOSE_TYPE FULL` lists them ("read" is summed over the readers: divide by the readers for
// one reader's share of the wall time). With --out the catalogs (ASCII_HEAD) are written there
// as {index}.cat (a frame listed twice is written twice); without, no catalog (CATALOG_TYPE NONE).
//   bench_stream FRAME.fits... [--device cpu|cuda] [--shapes R/K/W,...] [--repeat N] [--out DIR]
//                [--read-only T,...] [--threads N] [--pass-alone 0|1] [--photometry-batch N]
//                [--warm-cuda 0|1] [--first N]
// --cuda-sync spin|yield|block: how the host threads wait for the GPU (cudaSetDeviceFlags before
// the first CUDA call; CUDA builds only): whether the driver's spinning waits take cores the
// stream's other threads want.
// --warm-cuda 1: the CUDA context made (cudaFree(0)) before the stream's clock starts, its
// time printed: how much of the first frame's wait is the context's creation.
// --first N: for each run, the first N frames written, each with its own stages' times
// (RunInfo::stage_seconds): which stage holds a stream's first frames.
// --gpu-children 1: deblending's pixel assignment on the GPU (Config::gpu_deblend_children).
// --threads N: each frame's threads (NTHREADS), where 0 divides the host's cores among the back
// workers.
// --pass-alone 0: each frame's clean pass beside its team's spinning threads
// (Config::serial_pass_alone).
// --photometry-batch N: rows a batch of the GPU photometry beside each frame's clean pass
// (Config::photometry_batch_rows; 0: after the pass).
// --read-only: no extraction; the frames read (read_frame, as a stream's readers read them,
// into ordinary memory) by T threads side by side, each its own frames: a reader's time per
// frame alone, against its time inside the stream (where it shares the cores).
// A shape R/K/W[/F]: R readers, K frames read ahead, W back workers, F fronts; 0 (or F left out)
// picks as extract_files does.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#ifdef CELERIS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "../common/process_usage.hpp"
#include "celeris/error.hpp"
#include "celeris/extract_run.hpp"
#include "celeris/extract_settings.hpp"
#include "celeris/malloc_policy.hpp"
#include "extract/run_frames.hpp"
#include "extract/run_steps.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

StreamShape parse_shape(const std::string& s) {
  StreamShape shape;
  unsigned long r = 0, k = 0, w = 0, f = 0;
  int used = 0;  // characters read: the whole item, or it is refused
  const int got = std::sscanf(s.c_str(), "%lu/%lu/%lu%n/%lu%n", &r, &k, &w, &used, &f, &used);
  if ((got != 3 && got != 4) || used != static_cast<int>(s.size()))
    throw Error("--shapes: '" + s +
                "' is not R/K/W or R/K/W/F (readers/read-ahead/back workers/fronts)");
  shape.readers = r;
  shape.read_ahead = k;
  shape.back_workers = w;
  shape.fronts = f;
  return shape;
}

// Reads every frame with `threads` threads side by side (no extraction); prints the time per
// frame per thread and the frames/s of them all.
void read_only(const std::vector<std::string>& frames, const Settings& settings, int threads,
               int repeat) {
  const RunPlan plan = plan_run(settings);
  double best_wall = 1e30, best_per_frame = 0;
  for (int r = 0; r < repeat; ++r) {
    std::atomic<size_t> next{0};
    std::atomic<int64_t> busy_ns{0};
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        for (size_t i; (i = next++) < frames.size();) {
          const auto f0 = std::chrono::steady_clock::now();
          const Frame f = read_frame(frames[i], "none.cat", {}, settings, plan);
          busy_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - f0)
                         .count();
        }
      });
    for (auto& t : pool) t.join();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (wall < best_wall) best_wall = wall, best_per_frame = 1e-9 * busy_ns / frames.size();
  }
  std::printf("read only, %d threads: %.1f ms a frame per thread, %.1f frames/s\n", threads,
              1e3 * best_per_frame, frames.size() / best_wall);
}

// The frames after the first kSustainedFrom (the pipeline full): their count over the time
// from the kSustainedFrom-th completion to the last. 0 with too few frames.
constexpr size_t kSustainedFrom = 16;
double sustained_rate(const std::vector<double>& done_at) {
  if (done_at.size() < 2 * kSustainedFrom) return 0;
  const double span = done_at.back() - done_at[kSustainedFrom - 1];
  return span > 0 ? static_cast<double>(done_at.size() - kSustainedFrom) / span : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    keep_freed_heap_memory();  // as the command-line tool (malloc_policy.hpp)
    std::vector<std::string> frames;
    std::string device = "cpu", out, shapes = "0/0/0", read_threads, cuda_sync;
    bool gpu_children = false, warm_cuda = false;
    int frame_threads = 0;  // NTHREADS: 0, the back workers share the cores
    bool pass_alone = true;
    int64_t photometry_batch = Config{}.photometry_batch_rows;
    int repeat = 1;
    size_t first_frames = 0;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw Error(a + " needs a value");
        return argv[++i];
      };
      if (a == "--device")
        device = value();
      else if (a == "--shapes")
        shapes = value();
      else if (a == "--repeat")
        repeat = std::max(1, std::atoi(value().c_str()));
      else if (a == "--out")
        out = value();
      else if (a == "--gpu-children")
        gpu_children = std::atoi(value().c_str()) != 0;
      else if (a == "--cuda-sync")
        cuda_sync = value();
      else if (a == "--warm-cuda")
        warm_cuda = std::atoi(value().c_str()) != 0;
      else if (a == "--first")
        first_frames = static_cast<size_t>(std::max(0, std::atoi(value().c_str())));
      else if (a == "--read-only")
        read_threads = value();
      else if (a == "--threads") {
        frame_threads = std::atoi(value().c_str());
        if (frame_threads < 0) throw Error("--threads: 0 or more, not " + std::string(argv[i]));
      } else if (a == "--pass-alone")
        pass_alone = std::atoi(value().c_str()) != 0;
      else if (a == "--photometry-batch")
        photometry_batch = std::atoll(value().c_str());
      else if (!a.empty() && a[0] == '-')
        throw Error("unknown option " + a);
      else
        frames.push_back(a);
    }
    if (frames.empty()) throw Error("no frame given");
    if (!cuda_sync.empty()) {
#ifdef CELERIS_HAVE_CUDA
      const unsigned flag = cuda_sync == "spin"    ? cudaDeviceScheduleSpin
                            : cuda_sync == "yield" ? cudaDeviceScheduleYield
                            : cuda_sync == "block" ? cudaDeviceScheduleBlockingSync
                                                   : 0u;
      if (!flag) throw Error("--cuda-sync: spin, yield or block, not " + cuda_sync);
      if (cudaSetDeviceFlags(flag) != cudaSuccess) throw Error("cudaSetDeviceFlags failed");
#else
      throw Error("--cuda-sync: built without CUDA");
#endif
    }
    if (device != "cpu" && device != "cuda") throw Error("--device: cpu or cuda, not " + device);
    if (warm_cuda) {
#ifdef CELERIS_HAVE_CUDA
      const auto t = std::chrono::steady_clock::now();
      if (cudaFree(nullptr) != cudaSuccess) throw Error("--warm-cuda: no CUDA context");
      std::printf("CUDA context made in %.3f s\n",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
#else
      throw Error("--warm-cuda: built without CUDA");
#endif
    }
    Overrides o = {{"CATALOG_TYPE", out.empty() ? "NONE" : "ASCII_HEAD"},
                   {"CATALOG_NAME", out.empty() ? "none.cat" : out + "/{index}.cat"},
                   {"VERBOSE_TYPE", "QUIET"}};
    Settings settings = load_settings("", o);
    settings.config.device = device == "cuda" ? Backend::Cuda : Backend::Cpu;
    settings.config.gpu_deblend_children = gpu_children;
    settings.config.threads = frame_threads;
    settings.config.serial_pass_alone = pass_alone;
    settings.config.photometry_batch_rows = photometry_batch;
    std::printf("bench_stream: %zu frames, --device %s, best of %d\n", frames.size(),
                device.c_str(), repeat);
    if (!read_threads.empty()) {
      std::stringstream counts(read_threads);
      for (std::string t; std::getline(counts, t, ',');)
        read_only(frames, settings, std::max(1, std::atoi(t.c_str())), repeat);
      return 0;
    }
    std::stringstream list(shapes);
    for (std::string item; std::getline(list, item, ',');) {
      const StreamShape shape = parse_shape(item);
      FramesSummary best;
      double best_user = 0, best_sys = 0, best_faults = 0, best_sustained = 0;
      std::vector<double> best_done_at;
      for (int r = 0; r < repeat; ++r) {
        std::string first_error;
        // Each frame's completion time: the rate between the `window`-th and the last excludes
        // the pipeline's filling (the first frames read, none yet out) and draining.
        std::vector<double> done_at;
        std::vector<std::string> firsts;  // --first: the first frames' stages, printed after
        const auto t0 = std::chrono::steady_clock::now();
        // CPU time against wall time and cores: whether the stream is bound by the cores.
        const bench::ProcessUsage cpu0 = bench::process_usage();
        const FramesSummary s = extract_frames(
            frames, settings, {},
            [&](const FrameReport& f) {
              done_at.push_back(
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
              if (!f.error.empty() && first_error.empty()) first_error = f.path + ": " + f.error;
              if (firsts.size() < first_frames) {
                char head[96];
                std::snprintf(head, sizeof head, "    run %d, frame %zu written at %.3f s:", r,
                              f.index + 1, done_at.back());
                std::string line = head;
                for (const auto& [name, sec] : f.result.info.stage_seconds) {
                  char cell[128];
                  std::snprintf(cell, sizeof cell, " %s %.2f;", name.c_str(), 1e3 * sec);
                  line += cell;
                }
                firsts.push_back(line);
              }
            },
            shape);
        if (s.failed)
          throw Error(std::to_string(s.failed) + " frames failed (shape " + item + "; " +
                      first_error + ")");
        const bench::ProcessUsage cpu1 = bench::process_usage();
        for (const std::string& line : firsts) std::printf("%s (ms)\n", line.c_str());
        if (r == 0 || s.seconds < best.seconds) {
          best = s;
          best_sustained = sustained_rate(done_at);
          best_done_at = done_at;
          best_user = cpu1.user_seconds - cpu0.user_seconds;
          best_sys = cpu1.system_seconds - cpu0.system_seconds;
          best_faults = static_cast<double>(cpu1.minor_faults - cpu0.minor_faults);
        }
      }
      const double n = static_cast<double>(best.frames);
      std::printf(
          "readers %zu, read-ahead %zu, back workers %zu, fronts %zu (0: picked): %.2f frames/s "
          "(%.3f s, %zu objects)\n",
          shape.readers, shape.read_ahead, shape.back_workers, shape.fronts, n / best.seconds,
          best.seconds, best.objects);
      std::printf(
          "    process CPU time: user %.1f + system %.1f ms/frame, %.1f of %u cores busy; %.0f "
          "minor "
          "page faults/frame\n",
          1e3 * best_user / n, 1e3 * best_sys / n, (best_user + best_sys) / best.seconds,
          std::thread::hardware_concurrency(), best_faults / n);
      if (best_sustained > 0)
        std::printf("    sustained: %.2f frames/s (the frames written after the first %zu)\n",
                    best_sustained, kSustainedFrom);
      // The pipeline's filling: when the 1st, 2nd, 4th, ... frames were written.
      std::printf("    written by (s):");
      for (size_t k = 1; k <= best_done_at.size(); k *= 2)
        std::printf(" %zu: %.3f", k, best_done_at[k - 1]);
      if (!best_done_at.empty())
        std::printf(", all %zu: %.3f\n", best_done_at.size(), best_done_at.back());
      for (const auto& [name, sec] : best.step_seconds)
        std::printf("    %-40s %8.1f ms/frame\n", name.c_str(), 1e3 * sec / n);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_stream: %s\n", e.what());
    return 1;
  }
}
