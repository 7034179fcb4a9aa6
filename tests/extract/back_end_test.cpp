// The pipelined back end (src/extract/back_end.hpp): deblending's pixel assignment, the shapes,
// the clean zones and pairs made a chunk of detections at a time while another thread runs the
// clean pass over the chunks before must give the catalog that one chunk (the stages one after
// another) gives, every column of every row: on a crowded simulated field (thousands of
// objects, blends, merges), with a small object stack (its write-outs reorder the list), with
// CLEAN off, with BACKPHOTO_TYPE LOCAL (the shapes as detected); on the CPU and, with a device,
// with --device cuda. And a step that throws in any of its three threads (the chunks' stages,
// the zones and pairs, the pass's input) ends the back end with that error, no thread left
// waiting.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/simulate.hpp"
#include "extract/back_end.hpp"
#include "extract/pipeline.hpp"
#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/clean_zones.hpp"
#include "extract/stages/isophotal.hpp"
#include "extract/stages/moments.hpp"

namespace celeris::extract {
namespace {

const Image<float>& crowded_field() {
  static const Image<float> image = [] {
    sim::ImageParams p;
    p.width = p.height = 1024;
    p.seed = 31;
    p.n_stars = 6000;  // the crowded density of `celeris simulate`
    p.n_galaxies = 3000;
    return sim::simulate_image(p).pixels;
  }();
  return image;
}

// A weight map for the crowded field: a gradient of relative weights, and a rectangle of zero
// weight (bad pixels, interpolated).
const Image<float>& crowded_weights() {
  static const Image<float> weights = [] {
    const Image<float>& image = crowded_field();
    Image<float> w(image.width(), image.height());
    for (int64_t y = 0; y < w.height(); ++y)
      for (int64_t x = 0; x < w.width(); ++x)
        w(x, y) = (x > 300 && x < 360 && y > 100 && y < 700) ? 0.0f : 0.5f + float(x) / 1024.0f;
    return w;
  }();
  return weights;
}

// Whether the run timed a stage of that name (a step's line is there only where it ran).
bool timed(const Result& r, std::string_view stage) {
  for (const auto& [name, s] : r.info.stage_seconds)
    if (name == stage) return true;
  return false;
}

// Run in chunks: the pass beside the stages, with where it stood idle.
bool pipelined(const Result& r) {
  return timed(r, "clean: pass, beside the stages before") &&
         timed(r, "clean: the pass's start, from the back end's") &&
         timed(r, "clean: the pass's waits for later chunks");
}

template <class T>
void expect_column(const std::vector<T>& a, const std::vector<T>& b, const char* name,
                   const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << name << ", " << what;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i]) && !(a[i] != a[i] && b[i] != b[i])) {  // NaN equals NaN here
      ADD_FAILURE() << name << " row " << i << ": " << a[i] << " against " << b[i] << ", " << what;
      return;
    }
}

void expect_same(const Objects& a, const Objects& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
#define CELERIS_SAME(col) expect_column(a.col, b.col, #col, what)
  CELERIS_SAME(x);
  CELERIS_SAME(y);
  CELERIS_SAME(xpeak);
  CELERIS_SAME(ypeak);
  CELERIS_SAME(xmin);
  CELERIS_SAME(xmax);
  CELERIS_SAME(ymin);
  CELERIS_SAME(ymax);
  CELERIS_SAME(x2);
  CELERIS_SAME(y2);
  CELERIS_SAME(xy);
  CELERIS_SAME(errx2);
  CELERIS_SAME(erry2);
  CELERIS_SAME(errxy);
  CELERIS_SAME(a);
  CELERIS_SAME(b);
  CELERIS_SAME(theta);
  CELERIS_SAME(isoarea);
  CELERIS_SAME(isoareaf);
  CELERIS_SAME(flux_iso);
  CELERIS_SAME(fluxerr_iso);
  CELERIS_SAME(flux_max);
  CELERIS_SAME(background);
  CELERIS_SAME(threshold);
  CELERIS_SAME(kron_radius);
  CELERIS_SAME(flux_auto);
  CELERIS_SAME(fluxerr_auto);
  CELERIS_SAME(flux_aper);
  CELERIS_SAME(fluxerr_aper);
  CELERIS_SAME(flux_radius);
  CELERIS_SAME(fwhm);
  CELERIS_SAME(flags);
  CELERIS_SAME(id_parent);
#undef CELERIS_SAME
}

struct Case {
  const char* name;
  bool clean;
  int objstack;
  bool local;
};

void chunks_give_the_same_catalog(Backend device) {
  const Case cases[] = {{"default", true, 3000, false},
                        {"object stack of 200", true, 200, false},
                        {"CLEAN N", false, 3000, false},
                        {"BACKPHOTO_TYPE LOCAL", true, 3000, true}};
  const MeasureRequest request;
  for (const Case& k : cases) {
    Config c;
    c.device = device;
    c.clean = k.clean;
    c.memory_objstack = k.objstack;
    if (k.local) c.backphoto_type = BackPhotoType::Local;
    c.phot_apertures = {3.0, 8.0};
    c.phot_fluxfrac = {0.5};
    c.threads = 4;
    c.back_end_chunk_objects = 1'000'000'000;  // one chunk
    const Result one = extract(crowded_field().view(), c, request);
    c.back_end_chunk_objects = 300;
    const Result chunked = extract(crowded_field().view(), c, request);
    // Many chunks growing from a small first one (40, 60, 90, ... up to 300 objects).
    c.back_end_first_chunk_objects = 40;
    c.back_end_chunk_growth = 1.5;
    const Result growing = extract(crowded_field().view(), c, request);
    c.back_end_first_chunk_objects = 0;
    c.back_end_chunk_growth = 4.0;
    // Each chunk's zones and pairs on the stages' thread, right after its shapes, with a
    // stages' team of two beside the pass.
    c.back_end_zone_thread = false;
    c.back_end_stage_threads = 2;
    const Result two_threads = extract(crowded_field().view(), c, request);
    const std::string what = k.name;
    EXPECT_FALSE(pipelined(one)) << what;
    EXPECT_TRUE(pipelined(chunked)) << what;
    EXPECT_TRUE(pipelined(two_threads)) << what;
    EXPECT_TRUE(pipelined(growing)) << what;
    EXPECT_GT(one.objects.size(), 2000u) << what;
    EXPECT_GT(one.info.n_deblended, one.info.n_detections) << what;  // blends were split
    expect_same(one.objects, chunked.objects, what);
    expect_same(one.objects, growing.objects, what + ", chunks growing by 1.5 from 40");
    expect_same(one.objects, two_threads.objects, what + ", zones on the stages' thread");
  }
}

TEST(BackEnd, ChunksGiveTheSameCatalog) {
  chunks_give_the_same_catalog(Backend::Cpu);
}

// Config::back_end_timeline: four lines per chunk, each chunk's steps in order (its shapes, its
// pairs, the pass on it), the pass on one chunk after the one before, the chunks' objects adding
// up to the frame's objects before cleaning.
TEST(BackEnd, TimelineListsEachChunksStepsInOrder) {
  Config c;
  c.threads = 4;
  c.back_end_chunk_objects = 300;
  c.back_end_timeline = true;
  const Result r = extract(crowded_field().view(), c);
  ASSERT_TRUE(pipelined(r));
  const std::string head = "back end, chunk ";
  std::vector<std::pair<std::string, double>> marks;
  for (const auto& line : r.info.stage_seconds)
    if (line.first.rfind(head, 0) == 0) marks.push_back(line);
  ASSERT_GE(marks.size(), 8u);
  ASSERT_EQ(marks.size() % 4, 0u);
  const char* steps[] = {"shapes done", "pairs done", "the pass begins", "the pass ends"};
  double last_pass_end = 0;
  size_t objects = 0;
  for (size_t k = 0; k < marks.size() / 4; ++k) {
    const std::string chunk =
        head + std::to_string(k + 1) + " of " + std::to_string(marks.size() / 4) + " (";
    for (int j = 0; j < 4; ++j) {
      const auto& [name, t] = marks[4 * k + j];
      ASSERT_EQ(name.rfind(chunk, 0), 0u) << name;
      EXPECT_NE(name.find(steps[j]), std::string::npos) << name;
      if (j > 0) EXPECT_GE(t, marks[4 * k + j - 1].second) << name;
    }
    EXPECT_GE(marks[4 * k + 2].second, last_pass_end) << k;
    last_pass_end = marks[4 * k + 3].second;
    objects += std::stoul(marks[4 * k].first.substr(chunk.size()));
  }
  EXPECT_EQ(objects, r.info.n_deblended);
  // The pass's thread's CPU time over its takes: some, and no more than their wall time (a
  // clock tick's slack); its page faults, a count, listed with the timeline.
  auto line = [&](const std::string& name) {
    for (const auto& [n, t] : r.info.stage_seconds)
      if (n == name) return t;
    ADD_FAILURE() << "no stage line \"" << name << "\"";
    return -1.0;
  };
  const double wall = line("clean: pass, beside the stages before");
  const double cpu = line("clean: the pass's CPU time");
  EXPECT_GT(cpu, 0.0);
  EXPECT_LE(cpu, wall + 1e-3);
  const double faults = line("clean: the pass's minor page faults (a count)") * 1e3;
  EXPECT_GE(faults, 0.0);
  EXPECT_NEAR(faults, std::round(faults), 1e-6);
}

TEST(BackEnd, NegativeChunkSizeIsRefused) {
  Config c;
  c.back_end_chunk_objects = -1;
  EXPECT_THROW(extract(crowded_field().view(), c), Error);
}

TEST(BackEnd, NegativeFirstChunkOrGrowthBelowOneIsRefused) {
  Config c;
  c.back_end_first_chunk_objects = -1;
  EXPECT_THROW(extract(crowded_field().view(), c), Error);
  c.back_end_first_chunk_objects = 0;
  for (const double growth : {0.5, std::nan("")}) {
    c.back_end_chunk_growth = growth;
    EXPECT_THROW(extract(crowded_field().view(), c), Error) << growth;
  }
}

TEST(BackEnd, NegativeStageTeamIsRefused) {
  Config c;
  c.back_end_stage_threads = -1;
  EXPECT_THROW(extract(crowded_field().view(), c), Error);
}

TEST(BackEnd, NegativePhotometryBatchIsRefused) {
  Config c;
  c.photometry_batch_rows = -1;
  EXPECT_THROW(extract(crowded_field().view(), c), Error);
}

TEST(BackEnd, NegativeRowsBesideThePassIsRefused) {
  Config c;
  c.catalog_rows_beside_min_objects = -1;
  EXPECT_THROW(extract(crowded_field().view(), c), Error);
}

TEST(GpuBackEnd, ChunksGiveTheSameCatalog) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  chunks_give_the_same_catalog(Backend::Cuda);
}

// The deblending's plans in ranges of detections (Config::deblend_plan_ranges), alone and with
// the back end's chunks, give the catalog of the plans made at once; the "first range" line says
// the ranges were taken.
void plan_ranges_give_the_same_catalog(Backend device) {
  const MeasureRequest request;
  Config c;
  c.device = device;
  c.phot_apertures = {3.0, 8.0};
  c.threads = 4;
  const Result at_once = extract(crowded_field().view(), c, request);
  EXPECT_GT(at_once.info.n_deblended, at_once.info.n_detections);  // blends were split
  auto first_range_timed = [](const Result& r) {
    for (const auto& [name, s] : r.info.stage_seconds)
      if (name.rfind("deblend: plans, the first range's", 0) == 0) return true;
    return false;
  };
  EXPECT_FALSE(first_range_timed(at_once));
  for (const int ranges : {2, 7}) {
    for (const int64_t chunk : {int64_t{0}, int64_t{300}}) {
      c.deblend_plan_ranges = ranges;
      c.back_end_chunk_objects = chunk;
      const Result r = extract(crowded_field().view(), c, request);
      const std::string what =
          std::to_string(ranges) + " ranges, chunks of " + std::to_string(chunk);
      EXPECT_TRUE(first_range_timed(r)) << what;
      expect_same(at_once.objects, r.objects, what);
    }
  }
}

TEST(BackEnd, PlanRangesGiveTheSameCatalog) {
  plan_ranges_give_the_same_catalog(Backend::Cpu);
}

TEST(GpuBackEnd, PlanRangesGiveTheSameCatalog) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  plan_ranges_give_the_same_catalog(Backend::Cuda);
}

TEST(BackEnd, PlanRangesBelowOneOrWithTheGpuChildrenAreRefused) {
  Config c;
  c.deblend_plan_ranges = 0;
  EXPECT_THROW(extract(crowded_field().view(), c), Error);
  c.deblend_plan_ranges = 2;
  c.gpu_deblend_children = true;
  EXPECT_THROW(extract(crowded_field().view(), c), Error);
}

// The clean pass with the OpenMP teams that wait for it asleep (Config::serial_pass_alone, the
// default) or spinning beside it gives the same catalog, with the object stack full or not, in
// one chunk (the stages' team asleep during the pass) and in chunks (the zones' team between
// chunks, the stages' after the last).
void pass_alone_gives_the_same_catalog(Backend device) {
  const MeasureRequest request;
  for (const int64_t chunk : {int64_t{1'000'000'000}, int64_t{300}})
    for (const int objstack : {3000, 200}) {
      Config c;
      c.device = device;
      c.memory_objstack = objstack;
      c.back_end_chunk_objects = chunk;
      c.phot_apertures = {3.0, 8.0};
      c.threads = 4;
      c.serial_pass_alone = false;
      const Result beside = extract(crowded_field().view(), c, request);
      c.serial_pass_alone = true;
      const Result alone = extract(crowded_field().view(), c, request);
      const std::string what =
          "object stack of " + std::to_string(objstack) + ", chunks of " + std::to_string(chunk);
      EXPECT_GT(beside.objects.size(), 2000u) << what;
      EXPECT_EQ(pipelined(alone), chunk == 300) << what;
      expect_same(beside.objects, alone.objects, what);
    }
}

TEST(BackEnd, PassAloneGivesTheSameCatalog) {
  pass_alone_gives_the_same_catalog(Backend::Cpu);
}

TEST(GpuBackEnd, PassAloneGivesTheSameCatalog) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  pass_alone_gives_the_same_catalog(Backend::Cuda);
}

// Deblending's pixel assignment on the GPU (Config::gpu_deblend_children) gives the CPU path's
// catalog, in one chunk and in chunks.
TEST(GpuBackEnd, ChildrenChosenOnTheGpuGiveTheSameCatalog) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const MeasureRequest request;
  Config c;
  c.phot_apertures = {3.0, 8.0};
  c.threads = 4;
  const Result cpu = extract(crowded_field().view(), c, request);
  c.device = Backend::Cuda;
  c.gpu_deblend_children = true;
  for (const int64_t chunk : {int64_t{0}, int64_t{300}}) {
    c.back_end_chunk_objects = chunk;
    const Result gpu = extract(crowded_field().view(), c, request);
    EXPECT_GT(cpu.info.n_deblended, cpu.info.n_detections);  // blends were split
    expect_same(cpu.objects, gpu.objects, "chunks of " + std::to_string(chunk));
  }
}

// The clean zones found on the device right after the GPU shapes, from their columns there
// (Config::gpu_zones_after_shapes, gpu/zones_after_shapes.hpp), give the CPU path's catalog:
// with CLEAN's decisions made beside them (CLEAN_PARAM 1) or not (2.5), with the object stack
// full, and with a weight map (the GPU's weighted front end); the step lines say they ran.
TEST(GpuBackEnd, ZonesAfterTheShapesGiveTheCpuCatalog) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  struct Variant {
    const char* name;
    double clean_param;
    int objstack;
    bool weights;
  };
  for (const Variant& v :
       {Variant{"default", 1.0, 3000, false}, Variant{"CLEAN_PARAM 2.5", 2.5, 3000, false},
        Variant{"object stack 200", 1.0, 200, false}, Variant{"MAP_RMS", 1.0, 3000, true}}) {
    MeasureRequest request;
    Config c;
    c.phot_apertures = {3.0, 8.0};
    c.threads = 4;
    c.clean_param = v.clean_param;
    c.memory_objstack = v.objstack;
    if (v.weights) {
      request.weight_map = crowded_weights().view();
      c.detect_weight.type = c.measure_weight.type = WeightType::MapRms;
    }
    const Result cpu = extract(crowded_field().view(), c, request);
    c.device = Backend::Cuda;
    c.gpu_zones_after_shapes = true;
    const Result gpu = extract(crowded_field().view(), c, request);
    bool queued = false;
    for (const auto& [name, s] : gpu.info.stage_seconds)
      queued |= name == "gpu zones after the shapes: queued";
    EXPECT_TRUE(queued) << v.name;
    EXPECT_GT(cpu.objects.size(), 2000u) << v.name;
    expect_same(cpu.objects, gpu.objects, v.name);
  }
}

bool photometry_beside_pass(const Result& r) {
  return timed(r, "gpu measure beside the pass: launches");
}

bool catalog_rows_beside_pass(const Result& r) {
  return timed(r, "catalog rows beside the pass: the thread's time");
}

// The GPU photometry queued in batches while the clean pass runs (Config::photometry_batch_rows,
// stages/measure_beside_pass.hpp) gives the CPU path's catalog with batches of any size (64 rows:
// a batch after almost every write-out event; 0: after the pass): with the object stack full
// (its write-outs amid a line), CLEAN off, MASK_TYPE BLANK, the windowed measurements (whose
// host code reads the codes the batches completed), and the back end in chunks (later chunks'
// objects drafted into the codes while the batches run).
TEST(GpuBackEnd, PhotometryBesideThePassGivesTheCpuCatalog) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  struct Variant {
    const char* name;
    int objstack;
    bool clean;
    MaskType mask;
    bool windowed;
    int64_t chunk;
    WeightType weights = WeightType::None;  // one map for detection and measurement
  };
  const Variant variants[] = {
      {"default", 3000, true, MaskType::Correct, false, 0},
      {"object stack of 200", 200, true, MaskType::Correct, false, 0},
      {"CLEAN N", 3000, false, MaskType::Correct, false, 0},
      {"MASK_TYPE BLANK", 3000, true, MaskType::Blank, false, 0},
      {"windowed", 3000, true, MaskType::Correct, true, 0},
      {"chunks of 300", 3000, true, MaskType::Correct, false, 300},
      {"chunks of 1000, stack of 200", 200, true, MaskType::Correct, false, 1000},
      // Weighted frames: the GPU's weighted front end leaves the variances and each pixel's
      // threshold on the device, which the draft and the batches read.
      {"MAP_WEIGHT", 3000, true, MaskType::Correct, false, 0, WeightType::MapWeight},
      {"MAP_RMS, windowed", 3000, true, MaskType::Correct, true, 0, WeightType::MapRms},
      {"MAP_WEIGHT, chunks of 1000", 3000, true, MaskType::Correct, false, 1000,
       WeightType::MapWeight}};
  for (const Variant& v : variants) {
    MeasureRequest request;
    request.windowed = v.windowed;
    Config c;
    if (v.weights != WeightType::None) {
      request.weight_map = crowded_weights().view();
      c.detect_weight.type = c.measure_weight.type = v.weights;
    }
    c.memory_objstack = v.objstack;
    c.clean = v.clean;
    c.mask_type = v.mask;
    c.phot_apertures = {3.0, 8.0};
    c.phot_fluxfrac = {0.5, 0.9};
    c.threads = 4;
    c.back_end_chunk_objects = v.chunk;
    const Result cpu = extract(crowded_field().view(), c, request);
    c.device = Backend::Cuda;
    // The catalog's rows begun beside the pass too (Config::catalog_rows_beside_min_objects: from
    // one object, as the frame has far fewer than the default) with small and large batches.
    const std::pair<int64_t, bool> runs[] = {
        {0, false}, {64, false}, {64, true}, {1000, true}, {4096, false}};
    for (const auto& [batch, rows_beside] : runs) {
      c.photometry_batch_rows = batch;
      c.catalog_rows_beside_min_objects = rows_beside ? 1 : 0;
      const Result gpu = extract(crowded_field().view(), c, request);
      const std::string what = std::string(v.name) + ", batches of " + std::to_string(batch) +
                               (rows_beside ? ", rows beside the pass" : "");
      // Started with two batches' worth of objects or more.
      const bool beside = batch > 0 && gpu.info.n_deblended >= 2 * static_cast<size_t>(batch);
      EXPECT_EQ(photometry_beside_pass(gpu), beside) << what;
      EXPECT_EQ(catalog_rows_beside_pass(gpu), beside && rows_beside) << what;
      EXPECT_GT(cpu.objects.size(), 2000u) << what;
      EXPECT_EQ(pipelined(gpu), v.chunk > 0) << what;
      expect_same(cpu.objects, gpu.objects, what);
      if (v.windowed) {
        expect_column(cpu.objects.xwin, gpu.objects.xwin, "xwin", what);
        expect_column(cpu.objects.flux_radius, gpu.objects.flux_radius, "flux_radius", what);
      }
    }
  }
}

// deblend_and_clean on the crowded field in chunks of 300 objects on four threads, with the
// stages' steps as the CPU path's, except that the shapes step (`shapes_fail`) or the zones step
// (`zones_fail`) throws at its call of that number (0: never).
void back_end_with_failing_step(int shapes_fail, int zones_fail) {
  Config c;
  c.threads = 4;
  FrontStage st = extract_front(crowded_field().view(), nullptr, c);
  const FrontEnd& front = st.front;
  const int w = crowded_field().width(), h = crowded_field().height();
  std::vector<int64_t> index(front.detections.size());
  for (size_t d = 0; d < index.size(); ++d) index[d] = static_cast<int64_t>(d);
  const std::vector<int64_t> done = done_lines(front.detections, index, 4);
  DeblendParams dp;
  dp.detect_thresh = front.detect_thresh;
  dp.width = w;
  dp.height = h;
  DeblendStage deblend(std::move(st.front.detections), dp, 0, 4);
  IsoParams iso;
  iso.background = &front.background;
  iso.backsig = front.background.global_rms;
  iso.detect_thresh = front.detect_thresh;
  iso.analysis_thresh = front.analysis_thresh;
  CleanParams clean;
  clean.detect_thresh = front.detect_thresh;
  clean.buffer = LineBuffer::of(c, h);
  std::vector<Shape> shapes;
  std::vector<Iso> isos;
  int shape_calls = 0, zone_calls = 0;
  BackEndSteps steps;
  steps.shapes = [&](const ObjectList& objects, size_t first, size_t last, int) {
    if (++shape_calls == shapes_fail) throw Error("shapes failed on purpose");
    for (size_t i = first; i < last; ++i) {
      shapes[i] = compute_shape(objects[i], front.detect_thresh);
      isos[i] = isophotal(objects[i], shapes[i], iso);
    }
  };
  steps.zones = [&](size_t first, size_t last, int threads, const std::vector<CleanProfile>&,
                    CleanPairs&) {
    if (++zone_calls == zones_fail) throw Error("zones failed on purpose");
    return clean_zones(shapes, first, last, threads);
  };
  BackEndOptions options;
  options.threads = 4;
  options.chunks.objects = 300;
  const std::string what = "shapes failing at " + std::to_string(shapes_fail) + ", zones at " +
                           std::to_string(zones_fail);
  if (shapes_fail == 0 && zones_fail == 0) {
    const CleanedObjects out =
        deblend_and_clean(deblend, done, clean, steps, options, shapes, isos);
    EXPECT_GT(out.chunks, 3u) << what;
    EXPECT_GT(out.cleaned.order.size(), 2000u) << what;
    return;
  }
  try {
    deblend_and_clean(deblend, done, clean, steps, options, shapes, isos);
    ADD_FAILURE() << "no error: " << what;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("failed on purpose"), std::string::npos) << what;
  }
}

TEST(BackEnd, AFailingStepEndsItWithItsError) {
  back_end_with_failing_step(0, 0);  // the same steps, none failing: the back end runs through
  back_end_with_failing_step(1, 0);  // the first chunk's shapes (before any worker has work)
  back_end_with_failing_step(3, 0);  // a later chunk's, the workers busy
  back_end_with_failing_step(0, 1);  // the zones thread, the pass waiting for its first chunk
  back_end_with_failing_step(0, 3);
}

}  // namespace
}  // namespace celeris::extract
