// glibc's expf and log in kernels, from its exception lists (core/glibc_float_math.hpp), as the
// functors the shared host/device arithmetic takes (stages/deblend_profile.hpp,
// stages/shape_finish.hpp). The lists cover expf on -70 < v < 70 and log on positive floats; a
// call outside them sets `outside` and returns 0, and the caller leaves that work to the host.
#pragma once

#include "core/glibc_float_math.hpp"

namespace celeris::extract::gpu {

struct ListedExpf {
  const glibcmath::ExceptionLists* lists;
  bool* outside;
  __device__ float operator()(float v) const {
    if (!(v < 70.0f && v > -70.0f)) {
      *outside = true;
      return 0.0f;
    }
    return glibcmath::glibc_expf(v, *lists);
  }
};

// log(t1t2 < 1 ? t1t2 : cap) in double for t1t2 > 0 (finish_shape_with's area correction, cap
// shape_finish::kRatioCap), log_cap being the host's log of the cap.
struct ListedLogRatio {
  const glibcmath::ExceptionLists* lists;
  double log_cap;
  __device__ double operator()(float t1t2) const {
    return t1t2 < 1 ? glibcmath::glibc_log(t1t2, *lists) : log_cap;
  }
};

}  // namespace celeris::extract::gpu
