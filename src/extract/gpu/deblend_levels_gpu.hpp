// The deblending's exponential levels on the device (stages/deblend_levels.hpp product_levels,
// with CUDA's pow for the ratio's root): the first piece of the candidates' preparation on the
// GPU (bench/PENDING_DEVICE.md, stop 63), which would take each candidate's levels there right
// after the front end. A level the products are not sure of is NaN: its candidate's levels are
// then the host's (exponential_levels, glibc's pow). Throws celeris::Error without a CUDA device
// (or in a build without CUDA). Plain C++.
#pragma once

#include <cstddef>
#include <vector>

namespace celeris::extract::gpu {

// For each i < t0.size(): levels[i * max_levels + k], k < nthresh[i] (<= max_levels), as
// exponential_levels would give them where `unsure[i]` is 0 (levels[i * max_levels] is t0[i]).
// The candidates' detection thresholds t0, peaks and level counts are given on the host.
void device_exponential_levels(const std::vector<float>& t0, const std::vector<float>& peak,
                               const std::vector<int>& nthresh, int max_levels,
                               std::vector<float>& levels, std::vector<int>& unsure);

}  // namespace celeris::extract::gpu
