// The measurement's GPU photometry (APER, AUTO, FLUX_RADIUS) of the catalog's rows started while
// the clean pass still runs (--device cuda). A row's photometry is final once the pass writes
// its object out: it reads the object's moments and local background, which no merge changes,
// its write-out's line and moment, and the blanking codes, of which only the merges made before
// its write-out matter (gpu/blanking_gpu.hpp CodesBesidePass). So a thread beside the pass
// takes the rows written out so far a batch at a time (CleanPass::progress), completes the
// blanking codes with the merges made before them, and queues their kernels
// (gpu/measure_gpu.hpp PhotometryBatches); after the pass only the last rows are left, and the
// columns come back as measure_photometry's would for every row at once. The pipeline
// (pipeline.cpp) uses it where the blanking codes were drafted on the device (the GPU shapes)
// and the image is there too, without weights or a second image; otherwise the photometry
// starts after the pass as before. With the back end in chunks the later chunks' objects are
// drafted while it runs: a row reads an object not yet drafted as a detected pixel owned by
// none (-1), which it sees blanked exactly when it would see that object's own code blanked.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/deferred_thread.hpp"
#include "extract/gpu/blanking_gpu.hpp"
#include "extract/gpu/measure_gpu.hpp"
#include "extract/stages/clean.hpp"
#include "extract/stages/measure.hpp"

namespace celeris::extract {

class PhotometryBesidePass {
 public:
  struct Inputs {
    const ObjectList* objects = nullptr;         // after deblending, until the pass ends
    const std::vector<Shape>* shapes = nullptr;  // as detected: the pass only reads them
    const std::vector<Iso>* isos = nullptr;
    // Read beside the pass: the request, the line buffer (and its blank_lag).
    const MeasureParams* params = nullptr;
    // The images on the device, `value` giving the width; no blanking. With weights (the GPU's
    // weighted front end's one map), var_on_device and the weights' thresholds and gain, the
    // host's var and dvar empty (PhotometryBatches).
    PhotometryField field;
    const float* dvar_on_device = nullptr;      // with detection weights: the detection variance
    std::shared_ptr<gpu::BlankingDraft> draft;  // the objects' codes, added before their pass
    size_t batch_rows = 4096;                   // rows a batch at least, while the pass runs
  };
  explicit PhotometryBesidePass(Inputs inputs);
  ~PhotometryBesidePass();
  PhotometryBesidePass(const PhotometryBesidePass&) = delete;
  PhotometryBesidePass& operator=(const PhotometryBesidePass&) = delete;

  // Starts the thread beside the pass ahead of it (optional): it waits for begin()
  // (core/deferred_thread.hpp), so that its start costs the pass's thread nothing.
  void prepare();
  // BackEndSteps::pass_begins and pass_ends (back_end.hpp): sets the thread beside the pass going
  // (unless the draft lacks objects, or there are fewer than two batches of them), and stops it.
  void begin(const CleanPass& pass);
  void end() noexcept;
  // Whether begin() sets the thread going for a frame of `objects` objects: two batches' worth
  // at least, or nothing would start before the pass ends.
  static bool goes(size_t objects, size_t batch_rows) { return objects >= 2 * batch_rows; }
  // After end(): whether the thread set up the photometry (begin() set it going, and the draft
  // had objects), or failed trying: then codes() (which rethrows its error) and columns()
  // follow the pass's finish.
  bool started() const { return codes_ != nullptr || error_ != nullptr; }
  double start_seconds() const { return start_seconds_; }  // begin()'s and end()'s time
  // The thread's own steps, after end(): its setup (the codes' and batches' buffers, the rows'
  // ApertureShapes sized), the batches' host work (merges packed, ApertureShapes made, the
  // launches), and its CPU time in all (against which the rest is its waits).
  struct FeederSeconds {
    double setup = 0, batches = 0, cpu = 0;
  };
  FeederSeconds feeder_seconds() const { return feeder_seconds_; }
  // columns()' host work before its wait: the last merges packed, the last rows' ApertureShapes
  // (on the measurement's threads) and their launch.
  double last_batch_seconds() const { return last_batch_seconds_; }
  // The frame's blanking codes: the merges not yet given added (rethrows the thread's error).
  // `objects`: the same objects, wherever the back end moved them since.
  std::shared_ptr<const DeviceCodes> codes(const ObjectList& objects, const CleanResult& cleaned);
  // MeasureParams::photometry_under_way: the last rows' batch, then every row's columns and
  // ApertureShape. After codes().
  gpu::PhotometryColumns columns(const ObjectList& objects, const CleanResult& cleaned,
                                 std::vector<ApertureShape>& aps,
                                 const std::function<void()>& meanwhile);

 private:
  // Merges [merged_, removed) and rows [launched_, rows) of a pass's result so far, the rows'
  // ApertureShapes made by `threads` threads.
  void launch(const ObjectList& objects, const CleanProgress& p, int threads = 1);
  void feed();  // the thread's body, after begin()

  Inputs in_;
  const CleanPass* pass_ = nullptr;
  std::unique_ptr<gpu::CodesBesidePass> codes_;
  std::unique_ptr<gpu::PhotometryBatches> batches_;
  std::vector<ApertureShape> aps_;
  size_t launched_ = 0, merged_ = 0;
  bool codes_done_ = false;
  double start_seconds_ = 0, last_batch_seconds_ = 0;
  FeederSeconds feeder_seconds_;
  std::atomic<bool> stop_{false}, ready_{false};
  std::exception_ptr error_;
  std::optional<DeferredThread> feeder_;
};

}  // namespace celeris::extract
