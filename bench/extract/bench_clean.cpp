// Times the clean pass alone (stages/clean.cpp; one thread, on the GPU path's critical path):
// the front end, deblending, shapes and isophotal values, the zones and pairs of one frame run
// once on the CPU with the default configuration, then the pass (clean_objects) --repeat times
// on fresh copies of its inputs; printed: the median and the least, with the frame's counts
// (objects, zone entries, merges, write-outs because the object stack was full) and a hash of
// the first run's result (hash_of), which a change to the pass meant to keep it must not move.
// --objstack: MEMORY_OBJSTACK (default 3000; a large one shows what the full stack's write-outs
// cost). --clean 0: CLEAN N (the list's bookkeeping alone: write-outs, the full stack's, joins).
// --cold 1: 512 MB written before each pass, so that its inputs come from memory, as in a frame
// whose columns other threads (and the GPU's copies) wrote, rather than from this core's caches.
// --codes 1: first, the pairs' decisions from codes as the GPU's zones give them (made here by
// clean_pair_sure, the same function) and each newcomer's flags, clean_pairs_from_codes on
// --threads threads, --repeat times: the entries left to the pow (kCleanPairUnsure) and its
// median and least.
//   bench_clean IMAGE.fits [--threads N] [--repeat N] [--objstack N] [--clean 0|1] [--cold 0|1]
//               [--codes 0|1]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../common/cpu_front_end.hpp"
#include "../common/median.hpp"
#include "../common/options.hpp"
#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/fits.hpp"
#include "celeris/malloc_policy.hpp"
#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/clean.hpp"
#include "extract/stages/deblend.hpp"
#include "extract/stages/isophotal.hpp"
#include "extract/stages/moments.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

// FNV-1a over the pass's outputs (the order, the write-out lines, the merges, the merged
// objects' fluxes, pixel counts and flags): a change to the pass that is meant to give the same
// result prints the same hash.
uint64_t hash_of(const CleanResult& r, const std::vector<Shape>& shapes,
                 const std::vector<uint16_t>& flags) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
  };
  for (size_t k = 0; k < r.order.size(); ++k) {
    mix(r.order[k]);
    mix(static_cast<uint64_t>(r.written_moment[k]));
  }
  for (const CleanVictim& v : r.removed) {
    mix(v.object);
    mix(v.master);
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    double f = shapes[i].flux;
    uint64_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    mix(bits);
    mix(static_cast<uint64_t>(shapes[i].npix));
    mix(flags[i]);
  }
  return h;
}

// --codes: the codes the GPU's zones would give (clean_pair_sure), then clean_pairs_from_codes
// timed; its decisions must be clean_pairs' own.
void time_pairs_from_codes(const std::vector<Shape>& shapes, const std::vector<Iso>& isos,
                           const CleanZones& zones, const CleanPairs& pairs, double beta,
                           int threads, int repeat) {
  std::vector<uint8_t> codes(zones.neighbours.size());
  size_t unsure = 0;
  for (size_t z = 0; z + 1 < zones.offset.size(); ++z) {
    const size_t in = zones.first + z;
    const CleanPairInput a = clean_pair_input(shapes[in], isos[in], pairs.profile[in]);
    for (int64_t k = zones.offset[z]; k < zones.offset[z + 1]; ++k) {
      const size_t o = zones.neighbours[k];
      codes[k] = clean_pair_sure(a, clean_pair_input(shapes[o], isos[o], pairs.profile[o]), beta);
      unsure += codes[k] == kCleanPairUnsure;
    }
  }
  // Each newcomer's flags, as the GPU makes them with the codes.
  std::vector<uint8_t> flags(zones.offset.size() - 1, 0);
  for (size_t z = 0; z < flags.size(); ++z)
    for (int64_t k = zones.offset[z]; k < zones.offset[z + 1]; ++k)
      flags[z] |= clean_pair_flag(codes[k]);
  std::vector<double> times;
  for (int k = 0; k < repeat; ++k) {
    std::vector<uint8_t> taken = codes;  // taken over by the call, as the pipeline's
    const auto t0 = std::chrono::steady_clock::now();
    const CleanPairs p = clean_pairs_from_codes(shapes, isos, zones, beta, threads, pairs.profile,
                                                std::move(taken), &flags);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (p.pair != pairs.pair || p.any != pairs.any)
      throw Error("the pairs from the codes differ from clean_pairs'");
  }
  std::printf(
      "pairs from codes: %zu of %zu entries left to the pow; median %.3f ms, least %.3f ms "
      "(%d runs, %d threads)\n",
      unsure, codes.size(), 1e3 * bench::median(times),
      1e3 * *std::min_element(times.begin(), times.end()), repeat, threads);
}

}  // namespace

int main(int argc, char** argv) try {
  keep_freed_heap_memory();  // as the command-line tool (malloc_policy.hpp)
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s IMAGE.fits [--threads N] [--repeat N] [--objstack N] [--clean 0|1] "
                 "[--cold 0|1] [--codes 0|1]\n",
                 argv[0]);
    return 2;
  }
  int threads = 2, repeat = 21, objstack = 0;
  bool clean = true, cold = false, codes = false;
  std::vector<char> flush;  // --cold: written through before each pass
  bench::parse_options(argc, argv, 2, [&](const std::string& key, const std::string& value) {
    if (key == "--threads")
      threads = std::stoi(value);
    else if (key == "--repeat")
      repeat = std::stoi(value);
    else if (key == "--objstack")
      objstack = std::stoi(value);
    else if (key == "--cold")
      cold = std::stoi(value) != 0;
    else if (key == "--clean")
      clean = std::stoi(value) != 0;
    else if (key == "--codes")
      codes = std::stoi(value) != 0;
    else
      return false;
    return true;
  });
  const FitsImage img = read_fits_image(argv[1]);
  const int w = static_cast<int>(img.pixels.width()), h = static_cast<int>(img.pixels.height());
  Config config;
  config.threads = threads;
  bench::CpuFrontEnd front = bench::cpu_front_end(img.pixels.view(), config, threads);
  const BackgroundMap& bkg = front.background;
  const Thresholds& t = front.thresholds;
  ObjectList& detections = front.detections;
  std::vector<int64_t> index(detections.size());
  for (size_t d = 0; d < index.size(); ++d) index[d] = static_cast<int64_t>(d);
  const std::vector<int64_t> detection_done = done_lines(detections, index, threads);
  const DeblendParams dp{config.deblend_nthresh,
                         config.deblend_mincont,
                         config.detect_minarea,
                         t.detect,
                         false,
                         w,
                         h,
                         false};
  const Deblended deblended = deblend(std::move(detections), dp, 0, threads);
  const ObjectList& objects = deblended.objects;
  const size_t n = objects.size();
  std::vector<int64_t> done_line(n);
  for (size_t k = 0; k < n; ++k) done_line[k] = detection_done[deblended.parent[k]];
  IsoParams iso;
  iso.background = &bkg;
  iso.backsig = bkg.global_rms;
  iso.gain = config.gain;
  iso.detect_thresh = t.detect;
  iso.analysis_thresh = t.analysis;
  iso.satur_level = config.satur_level;
  iso.clean = config.clean;
  iso.minarea = config.detect_minarea;
  std::vector<Shape> shapes(n);
  std::vector<Iso> isos(n);
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
  for (size_t i = 0; i < n; ++i) {
    shapes[i] = compute_shape(objects[i], t.detect, false, nullptr);
    isos[i] = isophotal(objects[i], shapes[i], iso);
  }
  const CleanZones zones = clean_zones(shapes, threads);
  // The default catalog's margin: PHOT_APERTURES 5 (pipeline.cpp clean_margin).
  const CleanPairs pairs = clean_pairs(shapes, isos, zones, config.clean_param, 4, threads);
  if (codes) time_pairs_from_codes(shapes, isos, zones, pairs, config.clean_param, threads, repeat);
  const CleanParams params{
      clean,  config.clean_param,        t.detect,
      4,      LineBuffer::of(config, h), objstack > 0 ? objstack : config.memory_objstack,
      threads};
  std::vector<double> times;
  CleanResult r;
  uint64_t result_hash = 0;
  for (int k = 0; k < repeat; ++k) {
    std::vector<uint16_t> flags = objects.flags;
    std::vector<Shape> s = shapes;
    std::vector<Iso> is = isos;
    CleanPairs p = pairs;  // clean_objects takes its own: copied before the clock starts
    if (cold) {
      flush.resize(size_t{512} << 20);
      for (size_t b = 0; b < flush.size(); b += 64) flush[b] = static_cast<char>(b + k);
    }
    const auto t0 = std::chrono::steady_clock::now();
    r = clean_objects(flags, s, is, done_line, zones, std::move(p), params);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (k == 0) result_hash = hash_of(r, s, flags);
  }
  std::printf(
      "%s: %zu objects, %zu zone entries, %zu written, %zu merged, %zu stack-full "
      "write-outs\n",
      argv[1], n, zones.neighbours.size(), r.order.size(), r.removed.size(),
      r.stack_full_lines.size());
  std::printf("result hash %016llx\n", static_cast<unsigned long long>(result_hash));
  std::printf("clean pass: median %.3f ms, least %.3f ms (%d runs)\n", 1e3 * bench::median(times),
              1e3 * *std::min_element(times.begin(), times.end()), repeat);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_clean: %s\n", e.what());
  return 1;
}
