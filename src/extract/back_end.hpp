// Stages 4-5 of the extraction pipelined (pipeline.cpp): deblending's pixel assignment, the
// shapes and isophotal values, cleaning's zones and pairs are made for one chunk of detections
// (in detection order) after another, while one thread runs the clean pass over the chunks
// before. The clean pass is sequential (SExtractor's, clean.hpp) and takes newcomers in
// detection order, reading only the objects before its newcomer: overlapped, it hides behind
// the parallel stages instead of following them. With chunks, three threads in a row: the
// caller's assigns the pixels and makes the shapes, a second finds each chunk's zones and pairs
// (on the GPU with --device cuda: mostly a wait) with a quarter of the threads, a third runs the
// pass; or two (BackEndOptions::zone_thread false), the caller's making each chunk's zones and
// pairs after its shapes. The catalog is the same as with the stages one after another, which is
// what a single chunk does (a frame of few objects, and the default).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/thread_cpu.hpp"
#include "extract/stages/clean.hpp"
#include "extract/stages/deblend.hpp"

namespace celeris::extract {

struct BackEndSteps {
  // Fills shapes[first .. last) and isos[first .. last) for the deblended objects (already
  // sized for all of them), with `threads` threads.
  std::function<void(const ObjectList& objects, size_t first, size_t last, int threads)> shapes;
  // The clean zones of objects [first, last) (clean_zones' range form); not called with
  // cleaning off. It may decide their pairs as well (the GPU's, beside the zones): `pairs`
  // then receives clean_pair_decisions' answer (its `pair` for every neighbour entry, its `any`
  // for every object of the range), else it is left empty. `profile`: the objects' profiles,
  // those up to `last` made.
  std::function<CleanZones(size_t first, size_t last, int threads,
                           const std::vector<CleanProfile>& profile, CleanPairs& pairs)>
      zones;
  // Called on the pass's thread just before it takes its first newcomers (with chunks, once the
  // first chunk's stages are done) and after its last take (before its finish, also when it
  // throws), for work beside it that reads its progress (CleanPass::progress: the GPU
  // photometry of the rows written out so far, stages/measure_beside_pass.hpp). Null: nothing.
  std::function<void(const CleanPass& pass)> pass_begins;
  std::function<void()> pass_ends;
};

// The back end's own per-object storage (the clean pass's profiles and rows, the objects' done
// lines), which a caller may keep from one frame to the next (BackEndOptions::reuse): every entry
// is written before it is read, so a frame no larger than the last one takes it as it is,
// without a fresh allocation's zeroing (a crowded 4096^2 frame's 1.5 MB cost about 0.2 ms of
// the GPU path's critical path on the H200's host, stop 55).
struct BackEndColumns {
  std::vector<CleanProfile> profile;
  std::vector<CleanRows> rows;
  std::vector<int64_t> done_line;  // CleanedObjects::done_line's, given back by the caller
};

// The chunks' sizes in objects: the first holds about `first` (0: a quarter of `objects`, so
// that the pass starts early), each later one up to `growth` times its predecessor's target and
// at most `objects`; the last no smaller than half its target. The pass, the slowest step,
// waits wherever a chunk's stages take longer than its predecessor's pass: a steep growth makes
// it wait after the first chunk, many small chunks pay each chunk's GPU round trips.
struct ChunkSizes {
  size_t objects = 0;  // 0: one chunk
  size_t first = 0;
  double growth = 4.0;
};

// How many chunks deblend_and_clean makes of `d`'s objects with these options (1: the stages one
// after another), known once every detection is planned.
size_t back_end_chunks(const DeblendStage& d, const ChunkSizes& sizes, int threads);

struct BackEndOptions {
  int threads = 1;
  bool keep_detected_shapes = false;  // BACKPHOTO_TYPE LOCAL: the shapes before any merge
  // Chunks hold about this many objects or more (the first one fewer, so that the pass starts
  // early); a frame of fewer objects is one chunk, and so is any frame with fewer than four
  // threads. 0: one chunk, the stages one after another (Config's default: 60,000). On the H200's
  // host, crowded 4096^2 frame: stop 32, chunks slower (36.9 ms in one chunk against 42.7-61.3 in
  // chunks of 16,000-2,000 objects; their zones were the host's then); stop 37, with the GPU's
  // zones by range (call 5: two threads; call 6: three), chunks of 12,000-16,000 objects
  // 28.3-34.6 ms against main's 30.6-39.5 on two machines, and with three threads 34.1-45.2
  // against 30.1-37.6 on a third (the pass, the pixel assignment and the
  // shapes' finish slower beside each other's threads), bench/results/extract-gpu-h200-2026-11-
  // 29-stop37.md: within the spread of the process's own speed, so still off.
  ChunkSizes chunks;
  // With chunks: each chunk's zones and pairs on a thread of their own with a quarter of the
  // threads, beside the next chunk's pixel assignment and shapes (true); or on the stages'
  // thread with all its threads, right after the chunk's shapes (false: two threads in a row,
  // the stages' and the pass's).
  bool zone_thread = true;
  // With chunks: the stages' team (0: the threads left by the pass's and the zones' thread's;
  // fewer leave cores idle, which the pass, a thread alone, runs faster beside).
  int stage_threads = 0;
  // With one chunk, the pass on the calling thread while its team's other threads sleep
  // (core/omp_serial.hpp): their spinning after the stages' loops slowed it by up to 60%. With
  // chunks, the teams that wait beside the pass sleep while they wait: the zones' thread's
  // between its chunks, the stages' once their last chunk is done (libgomp's idle threads spin
  // GOMP_SPINCOUNT times after each loop; stop 76 found 8 ms of a dense frame in that spin).
  bool pass_alone = true;
  // Storage kept from an earlier frame (null: allocated afresh): its profile and rows are taken
  // and left there again at the end; its done_line becomes CleanedObjects::done_line.
  BackEndColumns* reuse = nullptr;
  // Benchmarks: every thread's CPU time from the pass's first take to its last
  // (BackEndTimes::census), taken outside the pass's own time.
  bool census = false;
};

// The stages' times (seconds): the parallel stages' summed over the chunks; `clean` what the
// clean stage adds after them (with one chunk the whole pass, with chunks the wait for its last
// ones and its end); `pass` the pass's own time (its takes), `pass_finish` its finish (the last
// write-outs, the merged objects' values written back), part of `clean`; `setup` the columns
// sized and the pass made, before the first chunk. With chunks, `pass_start` the time from the
// back end's start to the pass's first take, and `pass_waits` its thread's waits for the later
// chunks' pairs: where the pass, the frame's longest serial step, stood idle.
struct BackEndTimes {
  double setup = 0, finish = 0, shapes = 0, zones = 0, pairs = 0, pass = 0, pass_finish = 0,
         clean = 0, pass_start = 0, pass_waits = 0;
  // The pass's thread's CPU time and minor page faults over its takes: where `pass_cpu` falls
  // short of `pass`, the thread was off its CPU (other threads ran there) while it took.
  double pass_cpu = 0;
  long pass_faults = 0;
  // BackEndOptions::census: each thread's CPU time while the pass ran (the largest first), the
  // pass's own thread among them, and the seconds from the first census to the second.
  std::vector<ThreadCpu> census;
  long census_pass_thread = 0;
  double census_seconds = 0;
  // Each chunk's steps, in seconds from the back end's start (each field written by one thread).
  struct ChunkMarks {
    size_t objects = 0;
    double shaped = 0, paired = 0, pass_begins = 0, pass_ends = 0;
  };
  std::vector<ChunkMarks> chunk_marks;
};

struct CleanedObjects {
  Deblended deblended;
  std::vector<int64_t> done_line;  // per object: its detection's done line
  CleanResult cleaned;
  std::vector<Shape> detected_shapes;  // with keep_detected_shapes
  size_t chunks = 0;
  BackEndTimes seconds;
};

// `deblend`: planned (its constructor run); `detection_done`: each detection's done line.
// `shapes` and `isos` receive the objects' shapes and isophotal values, merged as cleaning
// merged them (their storage is reused).
CleanedObjects deblend_and_clean(DeblendStage& deblend, const std::vector<int64_t>& detection_done,
                                 const CleanParams& clean, const BackEndSteps& steps,
                                 const BackEndOptions& options, std::vector<Shape>& shapes,
                                 std::vector<Iso>& isos);

}  // namespace celeris::extract
