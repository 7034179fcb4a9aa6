// ascii_table_text_gpu (core/table_ascii_gpu.hpp): the values up in one copy, a thread per row
// sums its cells' lengths, a scan places the rows, a thread per row writes its cells, the text
// down in one copy. Each cell's digits are worked out twice, by both kernels, rather than kept
// between them: a buffer of every cell's text would be several times the catalog's size, and
// the GPU's arithmetic is the cheap part. Compiled with --fmad=false (number_cell.hpp's
// rounding is the host's).
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "celeris/device.hpp"
#include "core/cuda/context_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/launch.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/read_back.hpp"
#include "core/cuda/scratch_pool.hpp"
#include "core/cuda/stream.hpp"
#include "core/number_cell.hpp"
#include "core/table_ascii.hpp"
#include "core/table_ascii_gpu.hpp"

namespace celeris {

namespace {

namespace nc = number_cell;

// One element of a column (a column of repeat R gives R of these): its format, and where its
// value of row r lies in the packed values (offset + r * stride).
struct CellColumn {
  nc::CellFormat format;
  int64_t offset = 0;
  int stride = 1;
};

// The cell's digits where the host's exact road takes it. Integers: printf's argument is the
// value as a long long, which the host converts by truncation; values that do not fit (or
// non-finite ones) are the host's (a conversion out of range differs between the two).
__device__ bool device_cell(const CellColumn& c, double v, nc::CellDigits& d) {
  if (!isfinite(v)) return false;
  if (c.format.style == nc::Style::Integer && !(v > -0x1p63 && v < 0x1p63)) return false;
  return nc::cell_digits(c.format, v, d);
}

// Row r's length with its blanks and newline, or 0 (and the row flagged) where a cell is the
// host's. length[rows] = 0, so that the exclusive scan's last entry is the text's length.
__global__ void row_lengths(const double* values, const CellColumn* columns, int ncolumns,
                            int64_t rows, int64_t* length, unsigned char* host_row,
                            unsigned long long* host_rows) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r == rows) length[rows] = 0;
  if (r >= rows) return;
  int64_t total = 1;  // the newline
  bool ok = true;
  for (int j = 0; j < ncolumns && ok; ++j) {
    const CellColumn& c = columns[j];
    nc::CellDigits d;
    ok = device_cell(c, values[c.offset + r * c.stride], d);
    total += nc::cell_length(c.format, d) + (j > 0 ? 1 : 0);
  }
  length[r] = ok ? total : 0;
  host_row[r] = ok ? 0 : 1;
  if (!ok) atomicAdd(host_rows, 1ull);
}

__global__ void write_rows(const double* values, const CellColumn* columns, int ncolumns,
                           int64_t rows, const int64_t* offset, const unsigned char* host_row,
                           char* text) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows || host_row[r]) return;
  char* p = text + offset[r];
  for (int j = 0; j < ncolumns; ++j) {
    const CellColumn& c = columns[j];
    nc::CellDigits d;
    device_cell(c, values[c.offset + r * c.stride], d);  // true: row_lengths checked it
    if (j > 0) *p++ = ' ';
    p = nc::write_cell<false>(c.format, d, p);
  }
  *p = '\n';
}

// One per call at a time, from a process-wide pool (a stream's back workers each take their
// own); buffers grow with the catalogs, never shrink.
struct Context {
  cuda::Stream stream;
  cuda::PinnedBuffer<double> staged_values;
  cuda::DeviceBuffer<double> values;
  cuda::DeviceBuffer<CellColumn> columns;
  cuda::DeviceBuffer<int64_t> length, offset;
  cuda::DeviceBuffer<unsigned char> host_row;
  cuda::DeviceBuffer<unsigned long long> host_rows;
  cuda::DeviceBuffer<char> text;
  cuda::PinnedBuffer<char> staged_text;
  cuda::ScratchPool scan;
  cuda::MappedValues<int64_t> sizes{2};  // the text's length, the host's rows
};

cuda::ContextPool<Context>& contexts() {
  static cuda::ContextPool<Context>* pool = new cuda::ContextPool<Context>;
  return *pool;
}

constexpr int kThreads = 128;

}  // namespace

std::optional<std::string> ascii_table_text_gpu(const Table& table, bool header) {
  const int64_t rows = static_cast<int64_t>(table.rows);
  if (rows == 0 || table.columns.empty()) return std::nullopt;
  const std::vector<NumberFormat> formats = ascii_column_formats(table);
  std::vector<CellColumn> cells;
  int64_t packed = 0;
  for (size_t ci = 0; ci < table.columns.size(); ++ci) {
    const nc::CellFormat* f = formats[ci].exact_format();
    const Column& col = table.columns[ci];
    if (!f || col.repeat < 1 || col.values.size() != table.rows * static_cast<size_t>(col.repeat))
      return std::nullopt;
    for (int k = 0; k < col.repeat; ++k) cells.push_back({*f, packed + k, col.repeat});
    packed += static_cast<int64_t>(col.values.size());
  }
  if (cuda_device_count() == 0) return std::nullopt;

  std::shared_ptr<Context> ctx = contexts().take();
  Context& c = *ctx;
  const cudaStream_t s = c.stream;
  double* staged = c.staged_values.grow(static_cast<size_t>(packed));
  for (const Column& col : table.columns) {
    std::memcpy(staged, col.values.data(), col.values.size() * sizeof(double));
    staged += col.values.size();
  }
  const int ncells = static_cast<int>(cells.size());
  c.values.grow(static_cast<size_t>(packed));
  c.values.upload_async(c.staged_values.data(), static_cast<size_t>(packed), s);
  c.columns.grow(cells.size());
  c.columns.upload_async(cells.data(), cells.size(), s);
  c.length.grow(static_cast<size_t>(rows) + 1);
  c.offset.grow(static_cast<size_t>(rows) + 1);
  c.host_row.grow(static_cast<size_t>(rows));
  c.host_rows.grow(1);
  c.host_rows.zero_async(s);
  // The text's length at most: a cell on the road is its width, or at most 22 characters (a
  // sign, 20 digits or a point and 19 decimals, or 15 digits, a point and a 5-character
  // exponent), and a blank; a newline per row.
  int64_t row_bound = 1;
  for (const CellColumn& cc : cells) row_bound += std::max(cc.format.width, 24) + 1;
  c.text.grow(static_cast<size_t>(rows * row_bound));

  const unsigned blocks = cuda::blocks_for(rows + 1, kThreads);
  row_lengths<<<blocks, kThreads, 0, s>>>(c.values.data(), c.columns.data(), ncells, rows,
                                          c.length.data(), c.host_row.data(), c.host_rows.data());
  cuda::cuda_check_launch("row_lengths");
  size_t scan_bytes = 0;
  CELERIS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, c.length.data(),
                                                   c.offset.data(), rows + 1, s));
  void* scan_tmp = c.scan.acquire(scan_bytes);
  CELERIS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_tmp, scan_bytes, c.length.data(),
                                                   c.offset.data(), rows + 1, s));
  write_rows<<<cuda::blocks_for(rows, kThreads), kThreads, 0, s>>>(
      c.values.data(), c.columns.data(), ncells, rows, c.offset.data(), c.host_row.data(),
      c.text.data());
  cuda::cuda_check_launch("write_rows");
  cuda::read_back_bytes(c.offset.data() + rows, c.sizes.device(), sizeof(int64_t), s);
  cuda::read_back_bytes(c.host_rows.data(), c.sizes.device() + 1, sizeof(int64_t), s);
  c.stream.synchronize();
  const int64_t chars = c.sizes.host()[0];
  const int64_t host_rows = c.sizes.host()[1];
  // Many rows off the road (a column of NaN, a format beyond its range): the host's writer,
  // whose threads share the rows, rather than this one's row after row.
  if (host_rows > rows / 8) return ascii_table_text(table, header);

  char* text = c.staged_text.grow(static_cast<size_t>(chars));
  c.text.download_async(text, static_cast<size_t>(chars), s);
  std::vector<unsigned char> host_row;
  std::vector<int64_t> offset;
  if (host_rows > 0) {
    host_row.resize(static_cast<size_t>(rows));
    offset.resize(static_cast<size_t>(rows));
    c.host_row.download_async(host_row.data(), host_row.size(), s);
    c.offset.download_async(offset.data(), offset.size(), s);
  }
  std::string out = header ? ascii_header_text(table) : std::string();
  out.reserve(out.size() + static_cast<size_t>(chars) +
              static_cast<size_t>(host_rows) * static_cast<size_t>(row_bound));
  c.stream.synchronize();
  // The GPU's rows, with the host's in their places (each at its offset in the GPU's text,
  // where it took no room).
  int64_t done = 0;
  for (int64_t r = 0; r < rows && host_rows > 0; ++r) {
    if (!host_row[static_cast<size_t>(r)]) continue;
    const int64_t at = offset[static_cast<size_t>(r)];
    out.append(text + done, static_cast<size_t>(at - done));
    append_ascii_rows(table, formats, static_cast<size_t>(r), static_cast<size_t>(r) + 1, out);
    done = at;
  }
  out.append(text + done, static_cast<size_t>(chars - done));
  return out;
}

}  // namespace celeris
