// Maximum subarray of an image: the brightest rectangle, the K brightest rectangles (disjoint or
// overlapping) and the maximum convex (W-N shaped) sum.
//
// Paper: Read, Thaher, Takaoka et al., "Maximum subarray algorithms for use in astronomical
// imaging" (papers/maximum-subarray.txt): Bae's Algorithm 8 (2-D prefix sums) and Algorithm 9
// (2-D Kadane), both O(m^2 n) for an m x n image (m <= n), their parallel mesh versions
// (Algorithms 38 and 39: a processor per cell, m + n - 1 synchronous steps), the K-maximum
// extension (disjoint: exclude the cells of each maximum and search again) and the maximum convex
// sum of Thaher & Takaoka (O(m^2 n) dynamic programming over an anchor column with W and N
// shapes).
//
// Conventions
// - Pixels are row-major (C order): pixel (x, y) at pixels[y * width + x], x the fast (FITS
//   NAXIS1) axis. Every index here is 0-based and inclusive: rows top..bottom (y), columns
//   left..right (x). FITS 1-based ranges are x = left+1..right+1, y = top+1..bottom+1.
// - A rectangle is never empty: when every pixel is negative the answer is the largest pixel
//   (the paper's "empty subsequence" would have sum 0 and no location).
// - Ties. Rectangles are ordered by sum (larger first), then top, left, bottom, right (smaller
//   first); every method returns the first rectangle of that order (see `better`). The search
//   itself runs in the accumulation precision (double or float); sums of integer-valued pixels
//   are exact there, so all methods return the same rectangle. With arbitrary real values two
//   rectangles whose sums differ by less than the rounding error may be ordered differently
//   by methods that add in different orders (alg8, alg38 and cuda subtract prefix sums; alg9,
//   cpu and alg39 add rows); alg9, cpu and alg39 add in the same order and always agree bit
//   for bit.
// - Rect::sum is recomputed after the search, in long double over the rectangle's pixels in
//   row-major order, so the same rectangle reports the same sum whatever the method/precision.
// - Inputs must be finite (NaN or infinity raise celeris::Error): replace masked pixels first.
//
// Internally the row pairs run over the shorter image axis (the image is transposed when it is
// taller than wide), so the cost is O(min(w,h)^2 max(w,h)); the results and the tie order are
// in the image's own coordinates either way.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "celeris/device.hpp"

namespace celeris::maxsub {

struct Rect {
  double sum = 0;
  int top = 0, left = 0, bottom = 0, right = 0;  // 0-based, inclusive; top/bottom are rows (y)

  int64_t npix() const { return int64_t(bottom - top + 1) * (right - left + 1); }
  bool operator==(const Rect&) const = default;
};

// The tie order: true when a comes before b (larger sum; then smaller top, left, bottom, right).
bool better(const Rect& a, const Rect& b);

// The search algorithm, chosen apart from the device (Options::device). Every algorithm returns
// the same rectangle (see "Ties" above).
enum class Algorithm {
  RowPairs,  // 2-D Kadane over every row pair. On the CPU: on every OpenMP thread, arg-max reduced
             // with `better`. On the GPU: every row pair one Kadane scan, tiles of 32 x 32 pairs
             // per block streaming the vertical prefix rows through shared memory, block arg-max
             // then host reduction with `better`; O(m^2 n) work in one launch, O(mn) memory.
  Brute,     // reference: every rectangle, O(m^2 n^2) with a 2-D prefix table (tests, tiny
             // images). CPU only.
  Alg8,      // serial 2-D prefix-sum method (Bae's Algorithm 8), O(m^2 n), O(mn) memory. CPU only.
  Alg9,      // serial 2-D Kadane (Bae's Algorithm 9), O(m^2 n), O(n) extra memory. CPU only.
  Alg38,     // the paper's parallel 2-D prefix-sum mesh (Algorithm 38): one GPU thread per cell,
             // m + n - 1 synchronous steps (one launch each), O(mn) state per step. GPU only.
  Alg39,     // the paper's parallel mesh Kadane (Algorithm 39), the same mesh and steps. GPU only.
};
// "rowpairs" | "brute" | "alg8" (or "prefix") | "alg9" (or "kadane") | "alg38" | "alg39"
Algorithm parse_algorithm(const std::string& name);
const char* algorithm_name(Algorithm a);

enum class Precision { Double, Float };  // accumulation type of the search

// Stage times of a GPU search (device events, milliseconds), for benchmarks.
struct GpuTimes {
  double upload_ms = 0;  // pixels host -> device
  double prep_ms = 0;    // conversion, orientation, vertical prefix tables (mesh: state init)
  double search_ms = 0;  // search kernel(s) and the final arg-max
};

// Device: Cpu, Cuda, or Auto (Cuda when a device exists). The CPU-only algorithms run on the CPU
// under Auto and are refused (celeris::Error) under Cuda; the GPU-only ones are refused under
// Cpu and under Auto without a device. GPU runs throw celeris::Error when built without CUDA or
// no device is present.
struct Options {
  Algorithm algorithm = Algorithm::RowPairs;
  Device device = Device::Cpu;
  Precision precision = Precision::Double;
  GpuTimes* gpu_times = nullptr;  // filled by max_subarray when the search runs on the GPU
};

// The former `--method` spellings, each an (algorithm, device) pair: "cpu" = RowPairs on the
// CPU, "cuda" (or "gpu") = RowPairs on CUDA, "auto" = RowPairs on Auto, "brute" | "alg8" |
// "alg9" on the CPU, "alg38" | "alg39" on CUDA. Sets algorithm and device of the result.
Options parse_method(const std::string& name);
// The spelling above of a choice, Auto resolved ("cpu", "cuda", "alg8", ...): what the outputs
// record as the method. Throws celeris::Error for a pair no algorithm runs (alg8 on cuda, ...).
std::string method_name(const Options& opt);

// The maximum-sum rectangle. pixels.size() must equal width * height (both >= 1).
Rect max_subarray(std::span<const double> pixels, int width, int height, const Options& opt = {});
Rect max_subarray(std::span<const float> pixels, int width, int height, const Options& opt = {});

// K maximum disjoint rectangles (the paper's K-maximum extension): find the maximum, exclude its
// cells from every later rectangle, repeat. Greedy, O(K m^2 n). Returns fewer than k when every
// cell is used. Results are in the order found (non-increasing sum). Every algorithm and device.
std::vector<Rect> k_max_disjoint(std::span<const double> pixels, int width, int height, int k,
                                 const Options& opt = {});

// The k best distinct rectangles, overlaps allowed, in the tie order. For every row pair the
// k smallest prefix sums seen so far give the k best rectangles ending at each column, merged
// into one bounded heap: O(m^2 n k log k) time, O(n k) memory per thread, on the CPU whatever
// the device. Algorithms: Brute (every rectangle), Alg8 or Alg9 (this one on one thread), or
// anything else (this one, OpenMP over row pairs).
std::vector<Rect> k_max_overlapping(std::span<const double> pixels, int width, int height, int k,
                                    const Options& opt = {});

// A W-N (anchor column) convex region: consecutive columns left..right, column x covering rows
// top[x-left]..bottom[x-left]; going right the column intervals first grow (W: top not
// increasing, bottom not decreasing), then shrink (N). Every rectangle is one.
struct ConvexRegion {
  double sum = 0;
  int left = 0, right = 0;
  std::vector<int> top, bottom;  // per column left..right, 0-based inclusive rows

  int64_t npix() const;
  bool contains(int x, int y) const;
};

// Maximum convex sum (Thaher & Takaoka's simplification of Fukuda et al.): one left-to-right
// pass with two states per column interval (still growing, already shrinking), O(h^2 w) time.
// The trace-back keeps every column's table: O(h^2 w) memory, refused (celeris::Error) above
// 2 GiB on the CPU. Among equal sums the region returned is deterministic but not ordered like
// `better`. Device Cuda: the same programme on the GPU (trace-back bytes for t <= b on the
// device, h(h+1)/2 * w, refused beyond its free memory), returning the CPU's region bit for bit;
// Auto: Cuda when a device exists, else the CPU.
ConvexRegion max_convex(std::span<const double> pixels, int width, int height,
                        Device device = Device::Cpu);

// K maximum disjoint convex regions: as k_max_disjoint, with max_convex. O(k h^2 w).
std::vector<ConvexRegion> k_max_convex_disjoint(std::span<const double> pixels, int width,
                                                int height, int k, Device device = Device::Cpu);

// Sum of a rectangle's pixels (long double, row-major order): the value reported in Rect::sum.
double rect_sum(std::span<const double> pixels, int width, const Rect& r);

}  // namespace celeris::maxsub
