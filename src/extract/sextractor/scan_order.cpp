#include "extract/sextractor/scan_order.hpp"
#include "extract/sextractor/detected_pixel.hpp"

#include <algorithm>
#include <cmath>

namespace celeris::extract {

LineBuffer LineBuffer::of(const Config& config, int height) {
  // BACKPHOTO_TYPE LOCAL adds BACKPHOTO_THICK + MEMORY_BUFSIZE / 4 to the buffer and to its
  // margin (field.c), so that the annulus below a new object is already read.
  const int local_margin = config.backphoto_type == BackPhotoType::Local
                               ? config.backphoto_thick + config.memory_bufsize / 4
                               : 0;
  LineBuffer b;
  b.height = height;
  b.rows = std::max(config.memory_bufsize + local_margin, config.filter ? config.filter_height : 1);
  b.margin = std::max(1 + local_margin, config.filter ? (config.filter_height - 1) / 2 + 1 : 1);
  b.blank_lag = config.filter ? config.filter_height / 2 + 1 : 0;
  b.filter_rows = config.filter ? config.filter_height : 1;
  return b;
}

LineBuffer::Rows LineBuffer::rows_at_write_out(int64_t written_at) const {
  if (holds_whole_image()) return {};
  // The buffer holds its first `rows` lines until scan line rows - margin (readimage.c loads
  // them at once), then rows [E - (rows - margin), E + margin) at scan line E; an object written
  // after the scan sees the buffer's last state, E = height - margin. Only write-outs because
  // the object stack is full come before the buffer moves (an M67 object written at line 787
  // with a 1024-line buffer saw rows 0 to 1023, not 0 to 787).
  const int64_t e =
      written_at != std::numeric_limits<int64_t>::max() ? written_at : height - margin;
  const int64_t last = std::max<int64_t>(rows, e + margin);
  return {static_cast<int>(std::max<int64_t>(0, last - rows)),
          static_cast<int>(std::min<int64_t>(std::numeric_limits<int>::max(), last))};
}

LineBuffer::Rows LineBuffer::rows_at_detection(int64_t done_line) const {
  if (holds_whole_image()) return {0, height};
  // The first `rows` lines at first, then a window sliding `margin` rows ahead of the scan.
  return {static_cast<int>(std::max<int64_t>(0, done_line - (rows - margin))),
          static_cast<int>(std::min<int64_t>(height, std::max<int64_t>(rows, done_line + margin)))};
}

WriteOutSchedule::WriteOutSchedule(const LineBuffer& buffer) {
  const int sh = std::max(std::min(buffer.rows, buffer.height), 1);
  rows_ = sh;
  margin_ = buffer.margin;
  one_strip_ = sh >= buffer.height;
  next_ = one_strip_ ? buffer.height : sh - margin_;
  last_ = one_strip_ ? buffer.height : buffer.height - margin_ - 1;
  // SExtractor's event comes when the scan line wraps round to the buffer's first line; a
  // buffer stretched to a filter taller than the image never wraps, and every object is then
  // written out after the scan.
  if (one_strip_ && buffer.filter_rows > buffer.height) last_ = next_ - 1;
}

OwnedCodes::OwnedCodes(const ObjectList& objects, const std::vector<CleanVictim>& removed,
                       int blank_lag, bool immediate)
    : objects_(&objects),
      removed_(&removed),
      victim_of_(objects.size(), -1),
      blank_lag_(blank_lag),
      immediate_(immediate) {
  for (size_t v = 0; v < removed.size(); ++v)
    victim_of_[removed[v].object] = static_cast<int64_t>(v);
}

int32_t OwnedCodes::given_back(const CleanVictim& v, int64_t y) const {
  const int64_t m = v.moment >= 0 ? v.moment : v.line;
  const int64_t again = immediate_ && y + blank_lag_ > v.line ? 1 : 0;
  return static_cast<int32_t>(-(2 * m + again) - 2);
}

int32_t OwnedCodes::victim_code(const CleanVictim& v, int64_t y) const {
  // Pixels of merged objects are given back; rows the blanker had not reached at the merge are
  // blanked afterwards all the same (-1), so only rows it had passed record the line. Blanked as
  // scanned (immediate), every row had been, and the view blanks it again at the lagging pass.
  const int64_t first_lag = immediate_ ? 1 : blank_lag_;
  return y + first_lag <= v.line ? given_back(v, y) : -1;
}

Blanking::Blanking(ImageView<const float> value, ImageView<const float> cvalue, float threshold,
                   const ObjectList& objects, const std::vector<CleanVictim>& removed,
                   int blank_lag, bool given_back_by, int threads,
                   ImageView<const float> pixel_threshold, bool immediate,
                   std::vector<int64_t> stack_full_lines)
    : width_(value.width),
      blank_lag_(blank_lag),
      immediate_(immediate),
      stack_full_lines_(std::move(stack_full_lines)) {
  const int64_t w = value.width, h = value.height;
  code_ = Image<int32_t>::uninitialized(w, h);
  const float* pt = pixel_threshold.data;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < value.size(); ++i)
    code_.data()[i] =
        detected_pixel(value.data[i], cvalue.data[i], pt ? pt[i] : threshold) ? -1 : 0;
  // Objects own disjoint pixels.
  const OwnedCodes owned(objects, removed, blank_lag, immediate);
  owned.for_each(threads,
                 [&](int64_t i, int32_t code) { code_(objects.x[i], objects.y[i]) = code; });
  if (!given_back_by || removed.empty()) return;
  given_back_by_ = Image<int32_t>(w, h, -1);
  for (const CleanVictim& v : removed)
    for (int64_t i = objects.offset[v.object]; i < objects.offset[v.object + 1]; ++i) {
      const int32_t x = objects.x[i], y = objects.y[i];
      if (code_(x, y) == owned.given_back(v, y)) given_back_by_(x, y) = static_cast<int32_t>(v.by);
    }
}

Blanking::Blanking(std::shared_ptr<const DeviceCodes> codes, int64_t width, int blank_lag,
                   std::vector<int64_t> stack_full_lines)
    : device_(std::move(codes)),
      width_(width),
      blank_lag_(blank_lag),
      stack_full_lines_(std::move(stack_full_lines)) {}

int64_t Blanking::line_start(int64_t line) const {
  // The write-outs because the stack was full on the lines before.
  return line + (std::lower_bound(stack_full_lines_.begin(), stack_full_lines_.end(), line) -
                 stack_full_lines_.begin());
}

int64_t Blanking::line_of(int64_t moment) const {
  // line_start() increases strictly with the line: the last line starting at or before.
  int64_t lo = std::max<int64_t>(0, moment - static_cast<int64_t>(stack_full_lines_.size())),
          hi = moment;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (line_start(mid) <= moment)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

std::vector<int64_t> done_lines(const ObjectList& detections, const std::vector<int64_t>& parent,
                                int threads) {
  std::vector<int64_t> last_row(detections.size(), 0);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t d = 0; d < detections.size(); ++d)
    for (int64_t i = detections.offset[d]; i < detections.offset[d + 1]; ++i)
      last_row[d] = std::max<int64_t>(last_row[d], detections.y[i]);
  std::vector<int64_t> done(parent.size());
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t k = 0; k < parent.size(); ++k) done[k] = last_row[parent[k]] + 1;
  return done;
}

}  // namespace celeris::extract
