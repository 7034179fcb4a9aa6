// The C library's rand() as glibc implements it (TYPE_3 additive feedback generator, default
// seed 1). SExtractor draws its deblending pixel assignments from this unseeded stream, so
// reproducing its catalogs pixel for pixel needs the same numbers in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace celeris::extract {

class GlibcRand {
 public:
  static constexpr int32_t kRandMax = 2147483647;
  explicit GlibcRand(uint32_t seed = 1) {
    int32_t r[34];
    r[0] = static_cast<int32_t>(seed == 0 ? 1 : seed);
    for (int i = 1; i < 31; ++i) {
      // 16807 * r mod (2^31 - 1) without overflow (Schrage), as glibc srandom_r does.
      const int32_t hi = r[i - 1] / 127773, lo = r[i - 1] % 127773;
      int32_t word = 16807 * lo - 2836 * hi;
      if (word < 0) word += 2147483647;
      r[i] = word;
    }
    for (int i = 31; i < 34; ++i) r[i] = r[i - 31];
    for (int i = 0; i < 34; ++i) state_.push_back(static_cast<uint32_t>(r[i]));
    for (int i = 34; i < 344; ++i) next_word();
  }
  int32_t operator()() { return static_cast<int32_t>(next_word() >> 1); }

 private:
  uint32_t next_word() {
    const size_t n = state_.size();
    const uint32_t v = state_[n - 31] + state_[n - 3];
    state_.push_back(v);
    if (state_.size() > 4096) state_.erase(state_.begin(), state_.end() - 64);
    return v;
  }
  std::vector<uint32_t> state_;
};

}  // namespace celeris::extract
