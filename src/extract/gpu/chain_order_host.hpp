// chain_order.hpp on the host: a component's chain order from its pixels in raster order, with
// scratch in vectors. What the tests compare with lutz_scan; the device runs the same routine
// (chain_kernels.cu).
#pragma once

#include <cstdint>
#include <vector>

#include "celeris/error.hpp"
#include "extract/gpu/chain_order.hpp"

namespace celeris::extract::chain {

// The runs of a component whose pixels (y * width + x) are given in raster order.
inline std::vector<Run> runs_of(const int32_t* pixels, int64_t count, int64_t width) {
  std::vector<Run> runs;
  for (int64_t i = 0; i < count; ++i) {
    const int32_t x = static_cast<int32_t>(pixels[i] % width);
    const int32_t y = static_cast<int32_t>(pixels[i] / width);
    if (i > 0 && pixels[i] == pixels[i - 1] + 1 && x > 0)
      ++runs.back().x1;
    else
      runs.push_back({y, x, x + 1, static_cast<int32_t>(i)});
  }
  return runs;
}

// The component's pixels (raster order in, y * width + x) in SExtractor's chain order. Throws
// celeris::Error when the routine reports a broken invariant (e.g. pixels not 8-connected).
inline std::vector<int32_t> chain_order(const int32_t* pixels, int64_t count, int64_t width) {
  const std::vector<Run> runs = runs_of(pixels, count, width);
  const int64_t nruns = static_cast<int64_t>(runs.size());
  std::vector<uint8_t> mark_start(runs.size()), mark_end(runs.size());
  std::vector<Link> stored(runs.size());
  std::vector<int32_t> piece_end(static_cast<size_t>(count)), piece_next(piece_end.size());
  std::vector<Open> open(static_cast<size_t>(open_capacity(nruns)));
  std::vector<uint8_t> above(static_cast<size_t>(above_capacity(nruns)));
  const Scratch s{mark_start.data(), mark_end.data(), stored.data(), piece_end.data(),
                  piece_next.data(), open.data(),     above.data()};
  Link chain;
  if (!chain_pieces([&](int64_t k) { return runs[static_cast<size_t>(k)]; }, nruns, 0, s, chain))
    throw Error("chain order: the pixels are not one 8-connected component in raster order");
  std::vector<int32_t> out;
  out.reserve(static_cast<size_t>(count));
  for (int32_t p = chain.first; p >= 0; p = piece_next[static_cast<size_t>(p)])
    for (int32_t k = p; k < piece_end[static_cast<size_t>(p)]; ++k) out.push_back(pixels[k]);
  return out;
}

}  // namespace celeris::extract::chain
