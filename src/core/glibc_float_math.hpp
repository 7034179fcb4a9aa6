// glibc's own log(double(f)) and expf(x), bit for bit, on the host and on the GPU: the correctly
// rounded result (core/cr_math.hpp), moved one step where glibc's is not correctly rounded. The
// arguments where it is not are listed, each with the side glibc errs on, by an exhaustive run
// over every float argument (`libm_rounding table`, bench/extract/libm_rounding.cpp; the lists
// in glibc_float_math_tables.inc, read by glibc_float_math_tables.hpp). Why: the CPU path calls
// glibc (SExtractor's catalogs depend on its exact bits), so a GPU stage that evaluates the
// same expression must give the same bits: the FWHM fit's log per pixel, deblending's profile
// weights and amplitudes (expf). Plain C++17 (CELERIS_HD); compile without contraction
// (-ffp-contract=off, nvcc --fmad=false), as cr_math.hpp requires.
#pragma once

#include <cstdint>
#include <cstring>

#include "celeris/host_device.hpp"
#include "core/cr_math.hpp"

namespace celeris::glibcmath {

// One list: sorted by the argument's bits less the sign (the key); bit 31 of an entry set when
// glibc's result lies one step towards -inf from the correctly rounded one, clear when towards
// +inf.
struct ExceptionList {
  const uint32_t* entries = nullptr;
  int64_t size = 0;
};

// The lists a lookup needs (host or device addresses alike).
struct ExceptionLists {
  ExceptionList log;                     // log(double(f)), f > 0
  ExceptionList expf_below, expf_above;  // expf(x) for -70 < x < 0 and 0 <= x < 70
};

// -1, 0 or 1: the step from the correctly rounded result to glibc's for argument key `key`.
CELERIS_HD inline int exception_step(const ExceptionList& list, uint32_t key) {
  int64_t lo = 0, hi = list.size;  // the first entry whose key is not below `key` lies in [lo, hi]
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if ((list.entries[mid] & 0x7fffffffu) < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == list.size || (list.entries[lo] & 0x7fffffffu) != key) return 0;
  return (list.entries[lo] >> 31) ? -1 : 1;
}

// The double one step from d (finite, not 0) towards +inf (step 1) or -inf (step -1).
CELERIS_HD inline double step_double(double d, int step) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  b = (d > 0) == (step > 0) ? b + 1 : b - 1;  // away from 0 grows the magnitude's bits
  std::memcpy(&d, &b, sizeof d);
  return d;
}

// The float one step from f (finite, positive: expf's results) towards +inf or -inf.
CELERIS_HD inline float step_float(float f, int step) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  b = step > 0 ? b + 1 : b - 1;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// glibc's log(static_cast<double>(f)) for a positive finite float f.
CELERIS_HD inline double glibc_log(float f, const ExceptionLists& lists) {
  bool certain = true;
  const double r = crmath::cr_log_of_float(f, certain);
  uint32_t key;
  std::memcpy(&key, &f, sizeof key);
  const int step = exception_step(lists.log, key);
  return step == 0 ? r : step_double(r, step);
}

// glibc's expf(x) for -70 < x < 70.
CELERIS_HD inline float glibc_expf(float x, const ExceptionLists& lists) {
  const float r = crmath::cr_expf(x);
  uint32_t key;
  std::memcpy(&key, &x, sizeof key);
  const int step = exception_step(x < 0 ? lists.expf_below : lists.expf_above, key & 0x7fffffffu);
  return step == 0 ? r : step_float(r, step);
}

}  // namespace celeris::glibcmath
