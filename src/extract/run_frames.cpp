// A stream of frames through one extraction (extract_run.hpp extract_files): threads joined by
// bounded queues, so that reading frames k+1.. (several at once, each into a buffer of the
// stream's pool: page-locked with --device cuda, so that the upload needs no page-locking nor
// copy), the front stages of frame k (background, filter, detection; the GPU's with --device
// cuda) and the back stages (deblending, cleaning, measurement, the catalog's columns) of
// earlier frames run at the same time. The back stages are the slowest and partly serial
// (cleaning follows SExtractor's order), so on larger hosts two or three frames are in them at
// once. Outputs are written by the calling thread, in frame order. A multi-extension file named
// without an HDU is extracted whole by the calling thread in its turn, exactly as alone
// (extract_extensions: one catalog holding every extension), while the other threads go on with
// the frames after it. A frame that fails is reported and skipped; the others go on.
#include "extract/run_frames.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "celeris/error.hpp"
#include "celeris/extract_run.hpp"
#include "core/bounded_queue.hpp"
#include "core/cuda/pinned_buffer_pool.hpp"
#include "core/glibc_float_math_tables.hpp"
#include "extract/gpu/device_memory_plan.hpp"
#include "extract/gpu/front_end.hpp"
#include "extract/mef_inputs.hpp"
#include "extract/pipeline.hpp"
#include "extract/run_steps.hpp"
#include "extract/settings/threads.hpp"

namespace celeris::extract {

namespace {

// The image's file name without its directory, CFITSIO's [..] selector and the usual FITS and
// compression suffixes: "/data/night1/r0042.fits.fz[1]" -> "r0042".
std::string image_stem(const std::string& path) {
  std::string name = path.substr(0, path.find('['));
  const size_t slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  for (bool again = true; again;) {
    again = false;
    for (const char* suffix : {".gz", ".fz", ".fits", ".fit", ".fts", ".FITS", ".FIT", ".FTS"}) {
      const std::string s = suffix;
      if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
        name.resize(name.size() - s.size());
        again = true;
      }
    }
  }
  return name;
}

bool has_pattern(const std::string& name) {
  return name.find("{stem}") != std::string::npos || name.find("{index}") != std::string::npos;
}

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Seconds per named step, added to from several threads.
class StepClock {
 public:
  void add(const std::string& step, double seconds) {
    std::lock_guard<std::mutex> lock(m_);
    for (auto& [name, s] : steps_)
      if (name == step) {
        s += seconds;
        return;
      }
    steps_.emplace_back(step, seconds);
  }
  std::vector<std::pair<std::string, double>> steps() const {
    std::lock_guard<std::mutex> lock(m_);
    return steps_;
  }

 private:
  mutable std::mutex m_;
  std::vector<std::pair<std::string, double>> steps_;
};

struct Job {
  size_t index = 0;
  std::string error;  // set when the frame failed in an earlier step
  // A multi-extension file's image HDUs: the job is not read nor staged, the writer extracts
  // the file whole (extract_extensions). Empty for a frame.
  std::vector<int> extensions;
  Frame frame;
  // The pool's slot the frame was read with (and the page-locked memory frame.pixels may lie
  // in), given back when the front stages are done with the pixels.
  std::shared_ptr<cuda::PinnedFramePool::Lease> slot;
  FrontStage front;
  FrameOutputs outputs;
};

unsigned host_cores() {
  return std::max(1u, std::thread::hardware_concurrency());
}

// Frames in the back stages at once on the CPU: one per 4 host cores, 1 to 4. (bench_stream, 16
// crowded 4096^2 frames, H200 host of 16 cores, stop 34: 2 back workers 31.9-34.7 frames/s, 3
// 41.2, 4 41.4-42.7, 6 35.0; the back stages are mostly one thread's work each at a time.)
size_t back_workers() {
  return std::clamp<size_t>(host_cores() / 4, 1, 4);
}

// With --device cuda: one back worker per 2 host cores, 1 to 8, and three fronts (two where the
// host has fewer than 8 cores). A GPU frame's back stages wait on the device between their host
// steps, and the front end holds two frames at once (gpu/front_end.cpp): a third front has the
// next frame ready for the first context given back. (bench_stream, 256 crowded 4096^2 frames,
// H200 host of 16 cores, stop 50, two rounds in one call: 4 workers and 2 fronts 92.9 / 91.4
// frames/s, 11.5 cores busy; 8 workers and 3 fronts 106.7 / 101.6, 13.2 cores busy.)
size_t gpu_back_workers() {
  return std::clamp<size_t>(host_cores() / 2, 1, 8);
}
size_t gpu_fronts() {
  return host_cores() >= 8 ? 3 : 2;
}

// Cores that read: one per 2 host cores, 1 to 8 (the front and back stages hold the others).
// One frame per reader thread: the decode (pread from the page cache, a byte swap) runs at one
// to some GB/s on one core, and frames read side by side need no fork and join per slice.
// (bench_stream, 64 sparse 4096^2 frames, H100 host of 16 cores whose threads read at about
// 0.9 GB/s each. Stop 27: 4 readers 54.8 frames/s, 6 readers 63.2, 8 readers 62.7. Stop 28,
// once the back stages stopped passing over whole images (the GPU's blanking codes): 6 readers
// 56.0, 8 readers 68.4-72.4, 10 readers 69.8.)
size_t reader_cores() {
  return std::clamp<size_t>(host_cores() / 2, 1, 8);
}

// Frame `next` out of `waiting` (filled in any order by other threads under `m`, announced on
// `cv`) once it is there: how the front takes frames from the readers and the writer from the
// back workers, each in frame order.
template <class Job>
Job take_in_turn(std::mutex& m, std::condition_variable& cv, std::map<size_t, Job>& waiting,
                 size_t next) {
  std::unique_lock<std::mutex> lock(m);
  cv.wait(lock, [&] { return waiting.count(next) > 0; });
  Job job = std::move(waiting.at(next));
  waiting.erase(next);
  return job;
}

// Page-locked memory of a stream at most: an eighth of the host's memory. Page-locked pages
// cannot be swapped nor moved; a frame whose buffer would pass this is read into ordinary
// memory (and uploaded from there, slower).
size_t page_locked_budget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return size_t(1) << 30;
  return static_cast<size_t>(pages) * static_cast<size_t>(page) / 8;
}

}  // namespace

std::string frame_output_name(const std::string& pattern, const std::string& image_path,
                              size_t index, size_t total) {
  std::string digits = std::to_string(index + 1);
  const size_t width = std::to_string(total).size();
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  std::string out = pattern;
  for (const auto& [token, value] :
       {std::pair<std::string, std::string>{"{stem}", image_stem(image_path)}, {"{index}", digits}})
    for (size_t at = out.find(token); at != std::string::npos; at = out.find(token, at))
      out.replace(at, token.size(), value), at += value.size();
  return out;
}

std::vector<std::string> expand_image_list(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    if (a.empty() || a[0] != '@') {
      out.push_back(a);
      continue;
    }
    std::ifstream in(a.substr(1));
    if (!in) throw Error("image list " + a.substr(1) + ": cannot open");
    std::string line;
    while (std::getline(in, line)) {
      const size_t b = line.find_first_not_of(" \t\r");
      if (b == std::string::npos || line[b] == '#') continue;
      const size_t e = line.find_last_not_of(" \t\r");
      out.push_back(line.substr(b, e - b + 1));
    }
  }
  return out;
}

FramesSummary extract_files(const std::vector<std::string>& paths, const Settings& settings,
                            const WarningSink& warn, const FrameSink& done, size_t workers) {
  StreamShape shape;
  shape.back_workers = workers;
  return extract_frames(paths, settings, warn, done, shape);
}

FramesSummary extract_frames(const std::vector<std::string>& paths, const Settings& settings,
                             const WarningSink& warn, const FrameSink& done,
                             const StreamShape& shape) {
  const auto t0 = std::chrono::steady_clock::now();
  if (paths.empty()) throw Error("no image given");
  // The GPU path's glibc checks, beside the first frames' reading (glibc_float_math_tables.hpp).
  if (settings.config.device == Backend::Cuda) glibcmath::check_exception_lists_ahead();
  // Dual-image mode takes one pair per call.
  for (const std::string& p : paths)
    if (p.find(',') != std::string::npos && p.find('[') == std::string::npos)
      throw Error("dual-image mode (" + p + ") takes one pair per call, not a stream of frames");
  const size_t total = paths.size();
  // Output names: one set per frame, all distinct, none an input.
  const bool catalog = settings.catalog_type != CatalogType::None;
  if (total > 1) {
    if (catalog && !has_pattern(settings.catalog_name) && settings.catalog_name != "STDOUT")
      throw Error("CATALOG_NAME " + settings.catalog_name + ": " + std::to_string(total) +
                  " frames need a name per frame: put {stem} (the image's name) or {index} in it, "
                  "e.g. -CATALOG_NAME {stem}.cat");
    for (size_t k = 0; k < settings.check_types.size() && k < settings.check_names.size(); ++k)
      if (!has_pattern(settings.check_names[k]))
        throw Error("CHECKIMAGE_NAME " + settings.check_names[k] + ": " + std::to_string(total) +
                    " frames need a name per frame: put {stem} or {index} in it");
  }
  std::vector<std::string> catalog_names(total);
  std::vector<std::vector<std::string>> check_names(total);
  // Each frame's weight maps: WEIGHT_IMAGE with {stem} or {index} names a map per frame; a name
  // without them, one map for every frame (a detector's, for frames of its size).
  auto frame_settings = [&](size_t i) {
    Settings own = settings;
    for (std::string& name : own.weight_images) name = frame_output_name(name, paths[i], i, total);
    return own;
  };
  std::set<std::string> taken;
  for (size_t i = 0; i < total; ++i) {
    auto claim = [&](const std::string& name) {
      if (name != "STDOUT" && !taken.insert(name).second)
        throw Error("output " + name + " would be written by two frames (" + paths[i] +
                    " and an earlier one): use {index} in the name");
    };
    catalog_names[i] = frame_output_name(settings.catalog_name, paths[i], i, total);
    if (catalog) claim(catalog_names[i]);
    for (size_t k = 0; k < settings.check_types.size() && k < settings.check_names.size(); ++k) {
      check_names[i].push_back(frame_output_name(settings.check_names[k], paths[i], i, total));
      claim(check_names[i].back());
    }
  }
  const RunPlan plan = plan_run(settings);
  if (warn)
    for (const auto& w : plan.warnings) warn(w);
  const bool gpu = settings.config.device == Backend::Cuda;

  // `read_ahead` frames read or being read (each holding a slot of the pool), `fronts` in the
  // front stages, one between the front and the back, `workers` in the back stages and at most
  // one more waiting to be written: a bounded number of frames in memory. With --device cuda
  // the read-ahead frames lie in page-locked memory, an eighth of the host's memory at most.
  // The fronts take frames in order; two may finish out of order, which the back workers and
  // the writer (frames written in order) allow.
  const size_t workers =
      shape.back_workers ? shape.back_workers : (gpu ? gpu_back_workers() : back_workers());
  // At least one, which closes the queue to the back workers (even for an empty list).
  const size_t fronts =
      std::max<size_t>(1, std::min(total, shape.fronts ? shape.fronts : (gpu ? gpu_fronts() : 1)));
  const size_t window = workers + fronts;
  // With --device cuda, the frames on the device: at most kFrontContexts in the front end, and
  // the others in flight keeping their two images. Whether a frame takes the GPU is decided with
  // the load of kPlannedBackFrames past the front end (device_memory_plan.hpp
  // stream_frame_plan); a frame whose plan with the whole window does not fit the device waits
  // for fewer frames in flight, and one too large for the planned load for fewer than that, down
  // to itself alone. (kPlannedBackFrames is stop 49's default of four back workers on 16 cores;
  // on fewer cores that default had fewer, back_workers().)
  const size_t gpu_front_frames = std::min(fronts, gpu::kFrontContexts);
  const size_t planned_back = std::min(gpu::kPlannedBackFrames, back_workers());
  const size_t least_window = std::min(window, gpu_front_frames + planned_back);
  struct FramePlan {
    size_t window;
    GpuStreamLoad load;
    bool below_planned = false;  // a frame too large for the planned load, on the GPU with fewer
  };
  auto frame_plan = [&](const Frame& frame) {
    if (!gpu) return FramePlan{window, {}};
    const int64_t pixels = frame.pixels.width * frame.pixels.height;
    const int64_t device = gpu::device_memory_limit(settings.config);
    const gpu::StreamFramePlan on_device =
        gpu::stream_frame_plan(gpu::frame_device_bytes(pixels), gpu::frame_image_bytes(pixels),
                               gpu_front_frames, least_window, window, device);
    // Their page-locked host images (the value image and, for some outputs, the filtered one:
    // both counted) within another eighth of the host's memory.
    const size_t on_host = gpu::host_image_window(gpu::frame_image_bytes(pixels), least_window,
                                                  window, page_locked_budget());
    return FramePlan{std::min(on_device.window, on_host),
                     {on_device.fronts, on_device.back_frames},
                     on_device.window < least_window};
  };
  const size_t readers = std::min(total, shape.readers ? shape.readers : reader_cores());
  const size_t read_ahead = shape.read_ahead ? shape.read_ahead : readers + 2;
  // The readers convert pixels on threads of their own (read_fits_image's slices) when they
  // are fewer than the cores that read (a stream of one or two frames).
  const int reader_omp_threads = static_cast<int>(std::max<size_t>(1, reader_cores() / readers));
  cuda::PinnedFramePool pool(read_ahead, gpu, page_locked_budget());
  std::mutex read_m;
  std::condition_variable read_cv;
  std::map<size_t, Job> arrived;  // read, in whatever order the readers finish
  std::atomic<size_t> next_to_read{0};
  BoundedQueue<Job> fronted(1);
  std::mutex m;
  std::condition_variable changed;
  size_t written = 0;  // frames written (or reported failed) so far
  // Frames are let in flight in order, each while the frames in flight then number fewer than
  // its window and than the window of each of them (so that the largest frame in flight bounds
  // them all): the windows of the frames let in and not yet written, by frame.
  size_t let_in = 0;
  std::map<size_t, size_t> windows;
  std::map<size_t, Job> ready;  // back stages done, waiting for their turn to be written
  StepClock steps, stages;
  auto read_frames = [&] {
    omp_set_num_threads(reader_omp_threads);
    for (;;) {
      // The slot first, then the frame: every frame claimed holds a slot, so the frame the
      // front waits for is never held up by slots lent to later frames.
      auto t = std::chrono::steady_clock::now();
      std::shared_ptr<cuda::PinnedFramePool::Lease> slot = pool.take();
      const double waited = since(t);
      const size_t i = next_to_read++;
      if (i >= total) break;
      steps.add("reader waits for a buffer", waited);
      Job job;
      job.index = i;
      try {
        job.extensions = multi_extension_hdus(paths[i]);
        if (job.extensions.empty()) {
          t = std::chrono::steady_clock::now();
          // With --device cuda the pixels go straight into the slot's page-locked memory.
          const PixelMemory memory = [&](int64_t w, int64_t h) {
            return gpu ? slot->floats(static_cast<size_t>(w * h)) : nullptr;
          };
          // ... and are left as the file stores them: the GPU swaps and scales them.
          job.frame = read_frame(paths[i], catalog_names[i], check_names[i], frame_settings(i),
                                 plan, memory, gpu);
          const double allocating = slot->allocation_seconds();
          steps.add("read", since(t) - allocating);
          if (allocating > 0) steps.add("page-locked buffers (allocated once)", allocating);
        }
      } catch (const std::exception& e) {
        job.error = e.what();
      }
      job.slot = std::move(slot);
      {
        std::lock_guard<std::mutex> lock(read_m);
        arrived.emplace(i, std::move(job));
      }
      read_cv.notify_all();
    }
  };
  std::vector<std::thread> reader;
  for (size_t r = 0; r < readers; ++r) reader.emplace_back(read_frames);
  std::atomic<size_t> next_to_front{0};
  std::atomic<size_t> fronts_running{fronts};
  auto front_frames = [&] {
    // The fronts share the host's cores for their steps on it (the gather).
    if (fronts > 1) omp_set_num_threads(std::max(1, static_cast<int>(host_cores() / fronts)));
    for (size_t next; (next = next_to_front++) < total;) {
      std::optional<Job> job;
      {
        const auto t = std::chrono::steady_clock::now();
        job = take_in_turn(read_m, read_cv, arrived, next);
        steps.add("front waits for the next frame read", since(t));
      }
      const FramePlan plan_of_frame = job->error.empty() && job->extensions.empty()
                                          ? frame_plan(job->frame)
                                          : FramePlan{window, {}};
      {
        const size_t in_flight = plan_of_frame.window;
        const auto t = std::chrono::steady_clock::now();
        std::unique_lock<std::mutex> lock(m);
        changed.wait(lock, [&] {
          size_t w = in_flight;
          for (const auto& [frame, other] : windows) w = std::min(w, other);
          return job->index == let_in && job->index < written + w;
        });
        windows.emplace(job->index, in_flight);
        ++let_in;
        changed.notify_all();
        steps.add("front waits for a back worker", since(t));
      }
      // A frame planned with fewer frames in flight than the stream's load: the GPU front end's
      // idle contexts and frame images (grown for earlier frames, and not in this frame's plan)
      // are freed first.
      if (plan_of_frame.below_planned) {
        const auto t = std::chrono::steady_clock::now();
        gpu::release_idle_buffers();
        steps.add("idle device buffers freed (a frame over the planned load)", since(t));
      }
      Frame& frame = job->frame;
      if (job->error.empty() && job->extensions.empty()) try {
          // The CPU path subtracts the background in the frame's own memory.
          const auto t = std::chrono::steady_clock::now();
          // With --device cuda the device holds the fronts' frames and, until each catalog is
          // written, the images of the frames past them: a frame it cannot hold with those (all
          // planned at this one's size, its plan's load) goes to the CPU, with a warning.
          const GpuStreamLoad& load = plan_of_frame.load;
          job->front =
              gpu ? extract_front(frame.pixels, frame.stored, frame.config, frame.request, load)
                  : extract_front(frame.pixels, &frame.image.pixels, frame.config, frame.request,
                                  load);
          steps.add("front stages", since(t));
        } catch (const std::exception& e) {
          job->error = e.what();
        }
      if (gpu) {
        // The GPU front end has uploaded the pixels and is done with them (the back stages read
        // the images it brought back): the slot's memory goes to a frame read next.
        frame.pixels.data = nullptr;
        frame.image.pixels = Image<float>();
      }
      job->slot.reset();
      fronted.push(std::move(*job));
    }
    if (--fronts_running == 0) fronted.close();
  };
  std::vector<std::thread> front;
  for (size_t f = 0; f < fronts; ++f) front.emplace_back(front_frames);
  std::vector<std::thread> back;
  for (size_t w = 0; w < workers; ++w)
    back.emplace_back([&] {
      // A worker's share of the cores is its OpenMP default too, so that the steps that ask
      // for "all" threads (the catalog's columns) keep the size of the stages' teams: libgomp
      // ends the threads a smaller team leaves out and starts them again for a larger one.
      omp_set_num_threads(std::max(1, static_cast<int>(host_cores() / workers)));
      while (std::optional<Job> job = fronted.pop()) {
        if (job->error.empty() && job->extensions.empty()) try {
            // The back workers share the cores: each frame's threads are divided among them
            // rather than every worker starting (and spin-waiting) one OpenMP thread per core.
            // (Counted here, not from the front's share, which is smaller with two fronts.)
            int& nt = job->front.info.threads;
            if (job->frame.config.threads <= 0)  // within the worker's share (its default)
              nt = worker_threads(0, int64_t{job->front.width} * job->front.height);
            const auto t = std::chrono::steady_clock::now();
            Result r = extract_back(std::move(job->front), job->frame.request);
            for (const auto& [stage, s] : r.info.stage_seconds) stages.add(stage, s);
            job->outputs = frame_outputs(job->frame, std::move(r), settings, plan);
            make_catalog_ahead(job->outputs, settings);
            // The frame's front-end buffers go back now, not when it is written: the GPU's
            // weighted front end holds one of its two contexts until then, which a later frame's
            // front may wait for while this frame waits for an earlier one to be written.
            job->front = FrontStage();
            steps.add("back stages", since(t));
          } catch (const std::exception& e) {
            job->error = e.what();
          }
        std::lock_guard<std::mutex> lock(m);
        ready.emplace(job->index, std::move(*job));
        changed.notify_all();
      }
    });
  FramesSummary summary;
  summary.frames = total;
  for (size_t next = 0; next < total; ++next) {
    std::optional<Job> job;
    {
      const auto t = std::chrono::steady_clock::now();
      job = take_in_turn(m, changed, ready, next);
      steps.add("writer waits for the next frame", since(t));
    }
    FrameReport report;
    report.index = next;
    report.total = total;
    report.path = paths[next];
    report.catalog_name = catalog_names[next];
    report.error = job->error;
    if (report.error.empty() && !job->extensions.empty()) try {
        // The file under its own output names, as extract_file would extract it alone.
        Settings own = frame_settings(next);
        own.catalog_name = catalog_names[next];
        own.check_names = check_names[next];
        const auto t = std::chrono::steady_clock::now();
        report.result = extract_extensions(paths[next], job->extensions, own, plan);
        steps.add("multi-extension files", since(t));
        summary.objects += report.result.catalog.rows;
      } catch (const std::exception& e) {
        report.error = e.what();
      }
    else if (report.error.empty())
      try {
        const auto t = std::chrono::steady_clock::now();
        write_frame_outputs(job->frame, job->outputs, settings);
        steps.add("write", since(t));
        report.result = std::move(job->outputs.result);
        report.result.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - job->frame.started)
                .count();
        summary.objects += report.result.catalog.rows;
      } catch (const std::exception& e) {
        report.error = e.what();
      }
    summary.failed += !report.error.empty();
    if (warn && report.error.empty())  // the frame's own warnings (the plan's came first)
      for (const auto& w : report.result.info.warnings) warn(report.path + ": " + w);
    const auto t_free = std::chrono::steady_clock::now();
    job.reset();  // the frame's memory goes before the report is handled
    steps.add("free", since(t_free));
    {
      std::lock_guard<std::mutex> lock(m);
      windows.erase(next);
      ++written;
      changed.notify_all();
    }
    if (done) done(report);
  }
  for (std::thread& t : reader) t.join();
  for (std::thread& t : front) t.join();
  for (std::thread& t : back) t.join();
  summary.seconds = since(t0);
  summary.step_seconds = steps.steps();
  summary.stage_seconds = stages.steps();
  return summary;
}

}  // namespace celeris::extract
