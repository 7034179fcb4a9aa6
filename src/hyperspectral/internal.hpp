// Helpers shared by the hyperspectral sources; not part of the public API.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "celeris/hyperspectral.hpp"

namespace celeris::hyperspectral::detail {

// "{ a, b , c }" -> {"a", "b", "c"} (items trimmed); a value without braces is one item.
std::vector<std::string> split_envi_list(const std::string& value);
// {"a", "b"} -> "{a, b}", wrapped every few items so header lines stay short.
std::string join_envi_list(const std::vector<std::string>& items);
// After a band selection: per-band ENVI lists (fwhm, bbl, data gain/offset values) keep the
// selected items; "default bands" (band numbers) is dropped.
void subset_envi_band_fields(CubeSource& source, const std::vector<int>& bands, int old_bands);

// SPP inputs common to every backend: the centroid c (eq. 5, float64 sums), and each pixel's
// unit spectrum y / |y| stored pixel-interleaved (BIP) with `stride` >= bands floats per pixel
// (the padding is zero), plus a flag for zero-norm pixels.
struct SppPrepared {
  int stride = 0;
  std::unique_ptr<float[]> unit;    // pixels * stride, first touched by the threads that fill it
  std::vector<unsigned char> zero;  // pixels
  std::vector<double> centroid;     // bands
};
SppPrepared spp_prepare(const Cube& cube, int stride_multiple);
// The centroid c of eq. (5): per-band mean over all pixels, float64 sums, OpenMP over bands.
std::vector<double> spp_centroid(const Cube& cube);
// Eq. (1) on CPU cores: `symmetric` computes each pair once into a pixels x (w^2-1)/2 table,
// otherwise each pixel visits its whole window (no extra memory).
void spp_alpha_cpu(const Cube& cube, const SppPrepared& prep, int window, float* alpha,
                   bool symmetric);
// Eqs. (4)-(5): displaces the pixels of `cube` in place from alpha (one per pixel).
SppResult spp_finish(Cube&& cube, std::vector<float> alpha, std::vector<double> centroid,
                     bool keep_alpha);

}  // namespace celeris::hyperspectral::detail
