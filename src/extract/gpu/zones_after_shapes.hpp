// A whole frame's clean zones (clean_zones_gpu.hpp), and with CLEAN_PARAM 1 their pairs'
// decisions, found from the GPU shapes' finished columns where they lie on the device
// (shapes_gpu.hpp, finish_on_gpu): queued on a stream of their own once the shapes' kernels have
// made them, nothing staged by the host but the few objects it measured itself (the largest).
// The host's part of clean_zones_gpu (each object's point and pair input staged on its threads,
// then uploaded; "gpu zones: stage on the host" was 0.61 ms of the zones' 1.2 on the H200 at
// stop 36, the last record that gives it apart) goes, and the search runs while the host takes
// theta and copies the isophotal values. The same zones and codes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "extract/stages/clean_zones.hpp"
#include "extract/stages/iso.hpp"
#include "extract/stages/shape.hpp"

namespace celeris::extract::gpu {

struct ZonePairCodes;  // clean_zones_gpu.hpp

class ZonesAfterShapes {
 public:
  // A width x height image; `decide`: the pairs' decisions too (CLEAN_PARAM `beta` 1).
  ZonesAfterShapes(int64_t width, int64_t height, double beta, bool decide);
  ~ZonesAfterShapes();
  ZonesAfterShapes(const ZonesAfterShapes&) = delete;
  ZonesAfterShapes& operator=(const ZonesAfterShapes&) = delete;

  // Queued once `ready` is (recorded on the shapes' stream after their kernels): every object's
  // point and pair input from `shapes` and `isos` (device memory, objects 0 .. n - 1), those of
  // the objects `host` (the host measured them; their device entries were left alone) from
  // host_shapes[o] and host_isos[o] instead; then the grid and each object's neighbours counted.
  void count(cudaEvent_t ready, const Shape* shapes, const Iso* isos, size_t n,
             const std::vector<size_t>& host, const std::vector<Shape>& host_shapes,
             const std::vector<Iso>& host_isos);
  // Waits for the counts, then queues the lists, their sort, the decisions and the downloads.
  void list();
  // Waits for the downloads: the zones (and codes) of objects 0 .. n - 1 as clean_zones_gpu
  // gives them (none for none), list() called first if it has not been. False when count() did
  // not take exactly n objects, or when the frame has more than kZoneMaxLarge large objects
  // (clean_zones then).
  bool collect(size_t n, CleanZones& zones, ZonePairCodes* codes,
               std::vector<std::pair<std::string, double>>* seconds);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace celeris::extract::gpu
