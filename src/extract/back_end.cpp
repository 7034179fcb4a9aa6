#include "extract/back_end.hpp"

#include "core/omp_serial.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace celeris::extract {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Detection indexes bounding the chunks of `sizes` (back_end.hpp). One chunk with fewer than
// kPipelineThreads threads (the pass's thread is taken from the stages: on two cores they took
// twice as long, and the pass hid less than that), or few objects.
constexpr int kPipelineThreads = 4;

// BackEndSteps::pass_ends when it goes out of scope, however the pass leaves.
struct PassEnds {
  const std::function<void()>& f;
  ~PassEnds() {
    if (f) f();
  }
};

std::vector<size_t> chunk_bounds(const DeblendStage& d, const ChunkSizes& sizes, int threads) {
  const size_t ndet = d.detections(), nobj = d.first_object(ndet);
  std::vector<size_t> bounds{0};
  if (sizes.objects == 0 || threads < kPipelineThreads || nobj < 2 * sizes.objects) {
    bounds.push_back(ndet);
    return bounds;
  }
  double target = static_cast<double>(sizes.first > 0 ? sizes.first : sizes.objects / 4);
  target = std::clamp(target, 1.0, static_cast<double>(sizes.objects));
  while (bounds.back() < ndet) {
    const size_t want = d.first_object(bounds.back()) + static_cast<size_t>(target);
    // The first detection from which the chunk holds `want` objects or more.
    size_t lo = bounds.back() + 1, hi = ndet;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (d.first_object(mid) >= want)
        hi = mid;
      else
        lo = mid + 1;
    }
    target = std::min(target * sizes.growth, static_cast<double>(sizes.objects));
    if (static_cast<double>(nobj - d.first_object(lo)) < target / 2) lo = ndet;
    bounds.push_back(lo);
  }
  return bounds;
}

// BackEndOptions::census: each thread's CPU time from begin() to end(), on the pass's thread.
class PassCensus {
 public:
  PassCensus(bool on, BackEndTimes& times) : on_(on), times_(times) {}
  void begin() {
    if (!on_) return;
    times_.census_pass_thread = current_thread_id();
    t_ = Clock::now();  // the wall time spans both censuses, as the threads' CPU times may
    before_ = thread_cpu_times();
  }
  void end() {
    if (!on_ || before_.empty()) return;
    times_.census = thread_cpu_between(before_, thread_cpu_times());
    times_.census_seconds = since(t_);
    before_.clear();
  }

 private:
  bool on_;
  BackEndTimes& times_;
  std::vector<ThreadCpu> before_;
  Clock::time_point t_;
};

}  // namespace

CleanedObjects deblend_and_clean(DeblendStage& deblend, const std::vector<int64_t>& detection_done,
                                 const CleanParams& clean, const BackEndSteps& steps,
                                 const BackEndOptions& options, std::vector<Shape>& shapes,
                                 std::vector<Iso>& isos) {
  const auto t_setup = Clock::now();
  CleanedObjects out;
  const size_t ndet = deblend.detections(), nobj = deblend.first_object(ndet);
  const std::vector<size_t> bounds = chunk_bounds(deblend, options.chunks, options.threads);
  const size_t nchunks = bounds.size() - 1;
  out.chunks = nchunks;
  // With chunks, three threads in a row: this one assigns the pixels and makes the shapes of
  // chunk after chunk; a second finds each chunk's zones and pairs (mostly a wait on the GPU's
  // zones, then a parallel loop) while the first goes on; a third runs the clean pass.
  const bool zone_thread = nchunks > 1 && options.zone_thread;
  const int zone_threads = zone_thread ? std::max(1, options.threads / 4) : 0;
  const int stage_threads = nchunks == 1 ? options.threads
                            : options.stage_threads > 0
                                ? options.stage_threads
                                : std::max(1, options.threads - 1 - zone_threads);
  // Every per-object column is sized for all objects before the first chunk: no entry moves
  // while the pass reads it.
  shapes.resize(nobj);
  isos.resize(nobj);
  BackEndColumns fresh;
  BackEndColumns& kept = options.reuse ? *options.reuse : fresh;
  out.done_line = std::move(kept.done_line);
  out.done_line.resize(nobj);
  std::vector<CleanProfile> profile = std::move(kept.profile);
  profile.resize(nobj);
  std::vector<CleanRows> rows = std::move(kept.rows);
  rows.resize(nobj);
  Deblended& d = deblend.result();
  CleanPass pass(nobj, d.objects.flags, shapes, isos, out.done_line, profile, rows, clean);
  struct Chunk {
    size_t first = 0, last = 0;  // its objects
    CleanZones zones;
    CleanPairs pairs;
  };
  std::vector<Chunk> chunks(nchunks);
  BackEndTimes& times = out.seconds;
  times.chunk_marks.resize(nchunks);
  for (size_t k = 0; k < nchunks; ++k)
    times.chunk_marks[k].objects =
        deblend.first_object(bounds[k + 1]) - deblend.first_object(bounds[k]);
  times.setup = since(t_setup);
  PassCensus census(options.census, times);

  // Chunk k's shapes are made once `shaped` exceeds k, its pairs once `paired` does.
  std::mutex m;
  std::condition_variable cv;
  size_t shaped = 0, paired = 0;
  bool stop = false;
  std::exception_ptr worker_error;
  auto wait_for = [&](const size_t& count, size_t k) {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return count > k || stop; });
    return !stop;
  };
  auto announce = [&](size_t& count, size_t k) {
    {
      std::lock_guard<std::mutex> lock(m);
      count = k + 1;
    }
    cv.notify_all();
  };
  auto fail = [&](std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(m);
      if (!worker_error) worker_error = e;
      stop = true;
    }
    cv.notify_all();
  };
  auto pair_chunk = [&](Chunk& c, int threads) {
    if (clean.enabled) {
      // The profiles first: the zones' step may decide the pairs from them (the GPU's).
      auto t = Clock::now();
      clean_profiles(shapes, isos, c.first, c.last, clean.clean_param, clean.clean_margin, threads,
                     profile, rows);
      times.pairs += since(t);
      t = Clock::now();
      c.zones = steps.zones(c.first, c.last, threads, profile, c.pairs);
      times.zones += since(t);
      const size_t newcomers = c.zones.offset.size() - 1;
      if (c.pairs.pair.size() != c.zones.neighbours.size() || c.pairs.any.size() != newcomers) {
        t = Clock::now();
        c.pairs = clean_pair_decisions(shapes, isos, c.zones, clean.clean_param, threads, profile);
        times.pairs += since(t);
      }
    } else {
      clean_rows(shapes, c.first, c.last, clean.clean_margin, threads, rows);
      c.zones.first = c.first;
      c.zones.offset.assign(c.last - c.first + 1, 0);
      c.pairs.any.assign(c.last - c.first, 0);
    }
  };
  auto clean_chunk = [&](size_t k) {
    const auto t = Clock::now();
    times.chunk_marks[k].pass_begins = since(t_setup);
    const double cpu0 = thread_cpu_seconds();
    const long faults0 = thread_minor_faults();
    Chunk& c = chunks[k];
    pass.take(c.zones, c.pairs.pair, c.pairs.any);
    times.pass += since(t);
    times.pass_cpu += thread_cpu_seconds() - cpu0;
    times.pass_faults += thread_minor_faults() - faults0;
    times.chunk_marks[k].pass_ends = since(t_setup);
    c = Chunk{};
  };
  std::vector<std::thread> workers;
  if (zone_thread) {
    workers.emplace_back([&] {  // zones and pairs
      try {
        for (size_t k = 0; k < nchunks; ++k) {
          bool go = true;
          run_with_team_asleep(options.pass_alone ? zone_threads : 1,
                               [&] { go = wait_for(shaped, k); });
          if (!go) break;
          pair_chunk(chunks[k], zone_threads);
          times.chunk_marks[k].paired = since(t_setup);
          announce(paired, k);
        }
      } catch (...) {
        fail(std::current_exception());
      }
    });
  }
  if (nchunks > 1) {
    workers.emplace_back([&] {  // the clean pass
      try {
        const PassEnds ends{steps.pass_ends};
        for (size_t k = 0; k < nchunks; ++k) {
          const auto t_wait_chunk = Clock::now();
          if (!wait_for(paired, k)) break;
          if (k == 0)
            times.pass_start = since(t_setup);
          else
            times.pass_waits += since(t_wait_chunk);
          // Once the first chunk's stages are done (its objects' blanking codes drafted).
          if (k == 0 && steps.pass_begins) steps.pass_begins(pass);
          if (k == 0) census.begin();
          clean_chunk(k);
        }
        census.end();
      } catch (...) {
        fail(std::current_exception());
      }
    });
  }
  auto join_workers = [&] {
    for (std::thread& w : workers) w.join();
    workers.clear();
  };

  try {
    for (size_t k = 0; k < nchunks; ++k) {
      {
        std::lock_guard<std::mutex> lock(m);
        if (stop) break;  // a worker failed: its error is thrown below
      }
      auto t = Clock::now();
      deblend.finish(bounds[k], bounds[k + 1], stage_threads);
      Chunk& c = chunks[k];
      c.first = deblend.first_object(bounds[k]);
      c.last = deblend.first_object(bounds[k + 1]);
      for (size_t o = c.first; o < c.last; ++o) out.done_line[o] = detection_done[d.parent[o]];
      times.finish += since(t);
      t = Clock::now();
      steps.shapes(d.objects, c.first, c.last, stage_threads);
      times.shapes += since(t);
      times.chunk_marks[k].shaped = since(t_setup);
      if (nchunks == 1) {
        pair_chunk(c, stage_threads);
        times.chunk_marks[k].paired = since(t_setup);
        run_with_team_asleep(options.pass_alone ? stage_threads : 1, [&] {
          const PassEnds ends{steps.pass_ends};
          if (steps.pass_begins) steps.pass_begins(pass);
          census.begin();
          clean_chunk(k);
          census.end();
        });
      } else if (zone_thread) {
        announce(shaped, k);
      } else {
        pair_chunk(c, stage_threads);
        times.chunk_marks[k].paired = since(t_setup);
        announce(paired, k);
      }
    }
  } catch (...) {
    fail(std::current_exception());
  }
  const auto t_wait = Clock::now();
  // The pass's last chunks go on after the stages' last: their team sleeps meanwhile.
  run_with_team_asleep(nchunks > 1 && options.pass_alone ? stage_threads : 1, join_workers);
  if (worker_error) std::rethrow_exception(worker_error);
  if (options.keep_detected_shapes) out.detected_shapes = shapes;
  const auto t_finish = Clock::now();
  out.cleaned = pass.finish(shapes, isos);
  times.pass_finish = since(t_finish);
  // One chunk: the pass ran after the stages, as part of the clean stage.
  times.clean = since(t_wait) + (nchunks == 1 ? times.pass : 0.0);
  out.deblended = deblend.take();
  kept.profile = std::move(profile);  // the pass, which refers to them, is done
  kept.rows = std::move(rows);
  return out;
}

size_t back_end_chunks(const DeblendStage& d, const ChunkSizes& sizes, int threads) {
  return chunk_bounds(d, sizes, threads).size() - 1;
}

}  // namespace celeris::extract
