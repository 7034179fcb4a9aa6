// Stage 5a on the GPU: every object's shape (stages/moments.hpp compute_shape) and isophotal
// measurements (stages/isophotal.hpp isophotal), the CPU's results bit for bit. The per-pixel
// sums (the bounding box, peaks, moments, area counts, isophotal flux and error sums, CLEAN's
// threshold) run on the device, one object per thread, over the front end's device images;
// only the objects' pixel indexes go up. The objects are finished there too, shapes and
// isophotal values, but for theta (the device's atan2 is not the C library's), which the host
// threads make: glibc's log is reproduced there for the area correction and the FWHM fit's pass
// (core/glibc_float_math.hpp). Where its exception lists do not describe this process's glibc,
// the sums come back and the host finishes the objects.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "extract/objects.hpp"
#include "extract/stages/isophotal.hpp"
#include "extract/stages/moments.hpp"

namespace celeris::extract::gpu {

class BlankingDraft;     // blanking_draft.hpp
class ZonesAfterShapes;  // zones_after_shapes.hpp

// Objects of more pixels are measured on the host threads (compute_shape, isophotal) while the
// kernel runs: one GPU thread sums one object's pixels one after another, so the kernel lasts as
// long as its largest object (a crowded 4096^2 frame has 7 of its 41,813 objects above this; a
// bright star, thousands of pixels).
constexpr int64_t kHostObjectPixels = 512;

// A weighted frame's images on the device (the GPU's weighted front end's FrontEnd::device_var
// and device_thresh): each pixel's variance and detection threshold, which the sums read where
// `params` has measurement weights and pixel thresholds. `thresh` null: every pixel's is
// params.detect_thresh (THRESH_TYPE ABSOLUTE).
struct DeviceWeights {
  const float* var = nullptr;
  const float* thresh = nullptr;
};

// Whether the GPU takes the sums of objects measured with `params` (else compute_shape and
// isophotal on the host): without dual-image mode, DETECT_TYPE PHOTO or a DGEO map (the host's
// models of those), without weights unless their images are on the device (`weights_on_device`),
// and with CLEAN's heap within a thread's (DETECT_MINAREA <= 64).
bool shapes_supported(const IsoParams& params, bool weights_on_device = false);

// Whether the objects are finished on the GPU too (but theta): glibc's log is reproduced there
// from core/glibc_float_math.hpp's exception lists, used only when they describe this process's
// glibc (else the finish is the host threads'; the same values either way). False without CUDA.
bool finish_on_gpu();

// `value`, `cvalue`: the device images (FrontEnd::device_value, device_cvalue), width x height,
// whose pixels the objects' values are (and `weights`' images, with weights). Resizes shapes
// and isos to one per object (what they held before is overwritten, so a caller may pass
// storage kept from an earlier frame) and fills them as compute_shape(objects[i],
// object_dthresh(objects[i], params.detect_thresh, params.pixel_thresholds),
// params.pixel_thresholds) and isophotal(objects[i], shape, params) do.
// `seconds` (optional) receives the steps' times. Throws celeris::Error without a CUDA device
// (or in a build without CUDA).
void shapes_and_isophotal(const ObjectList& objects, const float* value, const float* cvalue,
                          int64_t width, const IsoParams& params, int threads,
                          std::vector<Shape>& shapes, std::vector<Iso>& isos,
                          std::vector<std::pair<std::string, double>>* seconds = nullptr,
                          const DeviceWeights& weights = {});
// The same for objects first .. last - 1 only, into shapes[first ..] and isos[first ..], which
// the caller has sized for all objects (the others are neither read nor written). `draft`
// (optional, blanking_gpu.hpp): the objects' blanking codes are added to it from the pixel
// indexes uploaded here, on the device after the sums, while the host goes on. `zones`
// (optional): where every object is measured here (first 0, last objects.size()) and finished on
// the device, the clean zones are queued from the finished columns there (ZonesAfterShapes::count,
// then list() once the host has taken theta); collect_zones gives them.
void shapes_and_isophotal(const ObjectList& objects, size_t first, size_t last, const float* value,
                          const float* cvalue, int64_t width, const IsoParams& params, int threads,
                          std::vector<Shape>& shapes, std::vector<Iso>& isos,
                          std::vector<std::pair<std::string, double>>* seconds = nullptr,
                          BlankingDraft* draft = nullptr, const DeviceWeights& weights = {},
                          ZonesAfterShapes* zones = nullptr);

}  // namespace celeris::extract::gpu
