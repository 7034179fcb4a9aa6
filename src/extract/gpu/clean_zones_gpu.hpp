// Cleaning's pairs (stages/clean_zones.hpp) found on the GPU: for each object i, the objects
// j < i within each other's clean zone, ascending, the CPU's CleanZones exactly (the same zone
// test, in_clean_zone, compiled without FMA contraction). Objects are binned as the host's
// clean_zones bins them, in tiers of semi-major axis (up to 2, 4, ..., 128 pixels), each in a
// grid of cells ten times its largest axis wide; a newcomer of semi-major axis up to
// kZoneSmallAxis searches, one thread each, the cells of each tier its zone reaches, up to the
// last row of the objects before it, and reads the objects in no grid (a position that is not
// finite, an axis above 128 pixels) from a list. The few larger newcomers (and any of a position
// or axis that is not finite) are compared with every object before them, one block each. Each
// object's neighbours are then sorted on the device.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "extract/stages/clean_pair_decision.hpp"
#include "extract/stages/clean_zones.hpp"

namespace celeris::extract::gpu {

// The largest semi-major axis (pixels) of a newcomer searched by one thread.
constexpr float kZoneSmallAxis = 8.0f;
// Larger objects are compared with every object; with more of them than this the host's
// clean_zones (tiers of grids) is faster, and clean_zones_gpu returns false.
constexpr int64_t kZoneMaxLarge = 1024;

// Fills `zones` as clean_zones(shapes, ...) does and returns true; returns false (zones
// untouched) when the frame has more than kZoneMaxLarge large objects. `width` x `height`: the
// image (the grid's extent; positions outside it fall in its edge cells). Throws
// celeris::Error without a CUDA device (or in a build without CUDA). `seconds`: its steps'
// times appended (name, seconds).
bool clean_zones_gpu(const std::vector<Shape>& shapes, int64_t width, int64_t height, int threads,
                     CleanZones& zones,
                     std::vector<std::pair<std::string, double>>* seconds = nullptr);
// CLEAN's decisions for the zones' pairs, made on the device beside them (clean_pair_sure, on
// the lists before they come back): what the objects' comparisons read, staged by the caller.
struct ZonePairsRequest {
  // Writes out[i - from] = clean_pair_input(object i) for objects from .. to - 1 (page-locked
  // memory, uploaded after), with `threads` threads.
  std::function<void(size_t from, size_t to, CleanPairInput* out, int threads)> inputs;
  double beta = 1.0;  // CLEAN_PARAM
};

// CLEAN's decisions for the zones' pairs as they come back: codes[k] for each entry k of the
// zones' neighbours (clean_pair_sure's answer: CleanPair's value, or kCleanPairUnsure where the
// pow decides: the host's clean_pair then), and per newcomer its flags (the OR of its codes'
// clean_pair_flag), made beside them (clean_pairs_from_codes' flags).
struct ZonePairCodes {
  std::vector<uint8_t> codes, flags;
};

// The range form (clean_zones' range form, a pipelined back end's chunk): the zones of objects
// begin .. end - 1, from shapes[0 .. end) (the later ones are not read); kZoneMaxLarge counts
// the large objects among all of shapes[0 .. end). With `pairs` (and `codes`): the pairs'
// codes and the newcomers' flags (ZonePairCodes). `frame`: the caller's key for the
// frame whose chunks these are, the same for each of its chunks and never another frame's (0:
// none): a chunk that begins where the last one of its frame ended on the same context reuses
// the points and pair inputs uploaded before (a frame's shapes, by address, could be another
// frame's: a column pool reuses them, and a freed vector's memory comes back).
bool clean_zones_gpu(const std::vector<Shape>& shapes, size_t begin, size_t end, int64_t width,
                     int64_t height, int threads, CleanZones& zones,
                     std::vector<std::pair<std::string, double>>* seconds = nullptr,
                     const ZonePairsRequest* pairs = nullptr, ZonePairCodes* codes = nullptr,
                     uint64_t frame = 0);

// The zones of a whole frame found right after its GPU shapes, from their columns on the device
// (zones_after_shapes.hpp): made here (throws without a CUDA device or CUDA build), handed to
// shapes_and_isophotal, which queues them, and collected by the cleaning's zones step.
class ZonesAfterShapes;
std::shared_ptr<ZonesAfterShapes> zones_after_shapes(int64_t width, int64_t height, double beta,
                                                     bool decide);
// ZonesAfterShapes::collect (false: not queued for exactly objects 0 .. n - 1, or too many large
// objects; clean_zones_gpu or clean_zones then).
bool collect_zones(ZonesAfterShapes& z, size_t n, CleanZones& zones, ZonePairCodes* codes,
                   std::vector<std::pair<std::string, double>>* seconds = nullptr);

}  // namespace celeris::extract::gpu
