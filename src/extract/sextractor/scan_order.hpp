// SExtractor's scan order, emulated: the one place that knows SExtractor's timeline.
//
// SExtractor reads the image once, top to bottom, through a buffer of MEMORY_BUFSIZE lines, and
// several of its results depend on that timeline rather than on the pixels alone:
//  - an object is *completed* on the scan line below its detection's last row (done line);
//  - it is *written out* (numbered and measured) when the buffer is about to drop the lines its
//    apertures need, or when its object stack is full; its NUMBER is that order;
//  - detected pixels are *blanked* (MASK_TYPE) row by row, a filter half-height behind the scan;
//    an object measured early sees the rows not yet reached unblanked;
//  - pixels of objects merged away by cleaning are *given back* at the line of the merge.
// celeris runs each stage over the whole image at once; the stages ask this module what the
// image looked like to SExtractor at a given moment instead of carrying that state themselves.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/host_device.hpp"
#include "celeris/image.hpp"
#include "extract/objects.hpp"
#include "extract/sextractor/blanking_view.hpp"

namespace celeris::extract {

// The line buffer's geometry (SExtractor field.c and scan.c).
struct LineBuffer {
  int height = 0;     // image rows
  int rows = 1024;    // lines held: MEMORY_BUFSIZE (+ the LOCAL margin), at least the filter height
  int margin = 1;     // lines read ahead of the scan line
  int blank_lag = 0;  // rows the blanker runs behind the scan line (filter half-height + 1)
  int filter_rows = 1;  // the filter's height (1 without one): the buffer holds at least as many
                        // lines, even more than the image has

  static LineBuffer of(const Config& config, int height);
  bool holds_whole_image() const { return rows >= height; }

  // Rows in the buffer, [first, last), when an object written out at scan line `written_at`
  // (INT64_MAX: after the scan) is measured; last may exceed the image height.
  struct Rows {
    int first = 0, last = std::numeric_limits<int>::max();
  };
  Rows rows_at_write_out(int64_t written_at) const;
  // The same when an object completed at `done_line` is detected (LOCAL background).
  Rows rows_at_detection(int64_t done_line) const;
};

// Scan lines at which SExtractor writes objects out because the buffer moves on: after each
// line from rows - margin on. When the whole image fits (a buffer of exactly `height` lines),
// once, at the end of the last line (now = height): before the blanker's last blank_lag - 1
// rows, which it blanks only after the scan, so that the objects then leaving (those whose
// apertures reach row 0) see those rows unblanked. Cleaning drives it, since the objects
// written out are those of its list.
class WriteOutSchedule {
 public:
  explicit WriteOutSchedule(const LineBuffer& buffer);
  // For each event at the end of a scan line before `line`, in order, calls
  // write(now, ymin): the objects whose apertures reach no higher than row ymin leave, numbered
  // and measured at scan line `now`.
  template <class Write>
  void events_before(int64_t line, Write&& write) {
    for (; next_ <= last_ && next_ <= line; ++next_)
      write(next_, one_strip_ ? 0 : next_ - (rows_ - margin_));
  }
  // The least and the greatest ymin of the events still to come (first > second: none).
  std::pair<int64_t, int64_t> ymin_range() const {
    if (next_ > last_) return {0, -1};
    if (one_strip_) return {0, 0};
    return {next_ - (rows_ - margin_), last_ - (rows_ - margin_)};
  }

 private:
  bool one_strip_ = true;
  int rows_ = 0, margin_ = 1;
  int64_t next_ = 0, last_ = 0;
};

// An object merged into another, and the scan line during which SExtractor gave its pixels
// back to the image (the line on which the object being cleaned at that moment was completed).
struct CleanVictim {
  size_t object = 0;
  int64_t line = 0;
  size_t master = 0;    // the object it was merged into (which may itself be merged later)
  size_t by = 0;        // the new object whose cleaning merged it (itself, or the master)
  int64_t moment = -1;  // the merge's moment (blanking_view.hpp); -1: line
};

// The code (blanking_view.hpp) of every pixel an object owns after cleaning, in the objects'
// pixel order: k + 1 for object k's, or, for an object merged away, the code of a pixel given
// back (or -1 where the blanker had not reached its row at the merge). Calls put(i, code) for
// each pixel i of objects.x/y, over `threads` threads; the other detected pixels are -1, the
// rest 0. The host's Blanking and the GPU's (gpu/blanking_gpu.hpp) both take it.
class OwnedCodes {
 public:
  OwnedCodes(const ObjectList& objects, const std::vector<CleanVictim>& removed, int blank_lag,
             bool immediate);
  template <class Put>
  void for_each(int threads, Put&& put) const {
    const ObjectList& o = *objects_;
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads)
    for (size_t k = 0; k < o.size(); ++k) {
      const int64_t v = victim_of_[k];
      for (int64_t i = o.offset[k]; i < o.offset[k + 1]; ++i)
        put(i, v < 0 ? static_cast<int32_t>(k + 1) : victim_code((*removed_)[v], o.y[i]));
    }
  }
  // The code a pixel of row y of victim v gets; given_back(): whether it records the merge.
  int32_t victim_code(const CleanVictim& v, int64_t y) const;
  // Per object, its entry in `removed` (the last) when it was merged away, else -1.
  const std::vector<int64_t>& victim_of() const {
    return victim_of_;
  }
  int32_t given_back(const CleanVictim& v, int64_t y) const;

 private:
  const ObjectList* objects_;
  const std::vector<CleanVictim>* removed_;
  std::vector<int64_t> victim_of_;  // per object, its entry in `removed` (the last), or -1
  int blank_lag_;
  bool immediate_;
};

// Blanking codes made on the GPU (gpu/blanking_gpu.hpp): on the device at once, copied to the
// host only when host code reads them. The interface keeps this file free of CUDA.
class DeviceCodes {
 public:
  virtual ~DeviceCodes() = default;
  virtual const int32_t* device() const = 0;
  // Starts the copy to the host (once); host() waits for it (starting it if needed).
  virtual void prefetch() const = 0;
  virtual const int32_t* host() const = 0;
};

// Built after cleaning from the objects and the merges, then asked by photometry, the local
// background and the -OBJECTS check image.
class Blanking {
 public:
  Blanking() = default;
  // `objects` (after deblending): object k's pixels are owned by id k + 1; other pixels above
  // `threshold` on `cvalue` (and not NaN on `value`) are detected but owned by no object.
  // `given_back_by`: also record which object's cleaning gave each pixel back (LOCAL needs it).
  // `pixel_threshold`, when given (weights), replaces `threshold` pixel by pixel. `immediate`:
  // the dual-image measurement image's blanking (BlankingView::immediate). `stack_full_lines`:
  // the scan line of each write-out because the object stack was full, in order
  // (CleanResult::stack_full_lines), which the moments count.
  Blanking(ImageView<const float> value, ImageView<const float> cvalue, float threshold,
           const ObjectList& objects, const std::vector<CleanVictim>& removed, int blank_lag,
           bool given_back_by, int threads = 1, ImageView<const float> pixel_threshold = {},
           bool immediate = false, std::vector<int64_t> stack_full_lines = {});

  // Codes made on the GPU (gpu/blanking_gpu.hpp), of a frame `width` pixels wide; without
  // given_back_by (blanked_at_detection is the host's alone).
  Blanking(std::shared_ptr<const DeviceCodes> codes, int64_t width, int blank_lag,
           std::vector<int64_t> stack_full_lines = {});

  BlankingView view() const { return {host_codes(), width_, blank_lag_, immediate_}; }
  // The same codes on the device: null when they were made on the host.
  BlankingView device_view() const {
    return {device_ ? device_->device() : nullptr, width_, blank_lag_, immediate_};
  }
  // Codes made on the GPU: starts their copy to the host, which view() would otherwise wait for.
  void prefetch_host() const {
    if (device_) device_->prefetch();
  }
  bool blanked(int x, int y, int32_t id, int64_t time, int64_t moment = -1) const {
    return view().blanked(x, y, id, time, moment);
  }
  // The same as seen by object `index` at its detection (scan line `done_line`): a pixel given
  // back on that very line counts as given back only when the object that gave it back was
  // processed first.
  bool blanked_at_detection(int x, int y, size_t index, int64_t done_line) const {
    const int32_t c = code_(x, y);  // host codes: LOCAL builds them there (pipeline.cpp)
    if (c <= -2 && line_of((-(int64_t(c) + 2)) >> 1) == done_line)
      return !(given_back_by_(x, y) < static_cast<int64_t>(index));
    return blanked(x, y, 0, done_line, line_start(done_line));
  }

 private:
  Image<int32_t> code_;                        // see BlankingView
  Image<int32_t> given_back_by_;               // the object whose cleaning gave the pixel back
  std::shared_ptr<const DeviceCodes> device_;  // or codes made on the GPU
  int64_t width_ = 0;
  int blank_lag_ = 0;
  bool immediate_ = false;
  std::vector<int64_t> stack_full_lines_;
  // The moment a scan line begins (its first write-outs), and the line of a moment.
  int64_t line_start(int64_t line) const;
  int64_t line_of(int64_t moment) const;
  const int32_t* host_codes() const { return device_ ? device_->host() : code_.data(); }
};

// The scan line on which each object was completed: its detection's last row + 1.
// `threads`: the work is split over detections (one pass over their pixels).
std::vector<int64_t> done_lines(const ObjectList& detections, const std::vector<int64_t>& parent,
                                int threads = 1);

}  // namespace celeris::extract
