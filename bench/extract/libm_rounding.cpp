// Where glibc's expf and log (of a float widened to double) differ from the correctly rounded
// results: every float argument in a range, each result against a reference rounded from long
// double (expl, logl) and, where that lies too near a rounding boundary to tell, from __float128
// (expq, logq). Why: the GPU stages that are still the host's for want of glibc's own `log` (the
// FWHM fit, per pixel) and `expf` (deblending's profile weights and amplitudes, per pixel) take
// float arguments, so a correctly rounded GPU version and the list of arguments where glibc
// differs from it would reproduce glibc exactly (bench/results/libm-rounding-2026-11-29.md).
//   libm_rounding log [LO HI]      every positive float (or those in [LO, HI))
//   libm_rounding expf LO HI       every float in [LO, HI)
//   libm_rounding cr-log [LO HI] | cr-expf LO HI: core/cr_math.hpp's correctly rounded versions
//                                  against the same references (every argument should agree)
// STRIDE=N in the environment: every Nth float argument only (a sample).
#include <omp.h>
#include <quadmath.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/cr_math.hpp"

static float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
static uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// The double nearest to v (long double), or false when v lies so near the midpoint of two
// doubles that long double cannot tell.
static bool round_ld(long double v, double& out) {
  const double d = static_cast<double>(v);
  const double up = std::nextafter(d, INFINITY), down = std::nextafter(d, -INFINITY);
  const long double mid_up = (static_cast<long double>(d) + up) / 2,
                    mid_down = (static_cast<long double>(d) + down) / 2;
  const long double eps = std::fabs(v) * 8 * 0x1p-64L;
  if (std::fabs(v - mid_up) <= eps || std::fabs(v - mid_down) <= eps) return false;
  out = d;
  return true;
}

static double log_reference(float f, bool& deep) {
  double out;
  deep = false;
  if (round_ld(logl(static_cast<long double>(f)), out)) return out;
  deep = true;
  return static_cast<double>(logq(static_cast<__float128>(f)));
}

static float expf_reference(float x, bool& deep) {
  deep = false;
  const long double v = expl(static_cast<long double>(x));
  const float r = static_cast<float>(v);
  const float up = std::nextafter(r, INFINITY), down = std::nextafter(r, -INFINITY);
  const long double mu = (static_cast<long double>(r) + up) / 2,
                    md = (static_cast<long double>(r) + down) / 2;
  const long double eps = std::fabs(v) * 8 * 0x1p-64L;
  if (std::fabs(v - mu) > eps && std::fabs(v - md) > eps) return r;
  deep = true;
  return static_cast<float>(expq(static_cast<__float128>(x)));
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s log|cr-log [LO HI] | expf|cr-expf LO HI\n", argv[0]);
    return 2;
  }
  // cr-*: celeris's correctly rounded versions in place of glibc's.
  const bool ours = std::strncmp(argv[1], "cr-", 3) == 0;
  const bool is_log = std::strcmp(argv[1] + (ours ? 3 : 0), "log") == 0;
  long long uncertain = 0;
  const float lo = argc > 3 ? std::strtof(argv[2], nullptr) : 0,
              hi = argc > 3 ? std::strtof(argv[3], nullptr) : 0;
  long long checked = 0, differ = 0, deep = 0;
  std::vector<uint32_t> examples;
  const char* stride_env = std::getenv("STRIDE");
  const int64_t stride = stride_env ? std::max<int64_t>(1, std::atoll(stride_env)) : 1;
#pragma omp parallel for schedule(dynamic, 1 << 16) reduction(+ : checked, differ, deep, uncertain)
  for (int64_t b = 0; b < (int64_t{1} << 32); b += stride) {
    const float f = from_bits(static_cast<uint32_t>(b));
    if (!std::isfinite(f)) continue;
    bool d = false, bad = false;
    if (is_log) {
      if (!(f > 0) || (argc > 3 && !(f >= lo && f < hi))) continue;
      bool certain = true;
      const double got =
          ours ? celeris::crmath::cr_log_of_float(f, certain) : std::log(static_cast<double>(f));
      uncertain += !certain;
      const double want = log_reference(f, d);
      bad = std::memcmp(&got, &want, 8) != 0;
    } else {
      if (!(f >= lo && f < hi)) continue;
      const float got = ours ? celeris::crmath::cr_expf(f) : std::exp(f);
      const float want = expf_reference(f, d);
      bad = bits(got) != bits(want);
    }
    ++checked;
    deep += d;
    if (bad) {
      ++differ;
#pragma omp critical
      if (examples.size() < 20) examples.push_back(static_cast<uint32_t>(b));
    }
  }
  std::printf(
      "%s%s: %lld arguments, %lld differ from the correctly rounded result, %lld needed "
      "__float128, %lld uncertain\n",
      ours ? "celeris " : "glibc ", is_log ? "log(double(float))" : "expf", checked, differ, deep,
      uncertain);
  for (uint32_t b : examples) {
    const float f = from_bits(b);
    bool d;
    if (is_log)
      std::printf("  log(%a): glibc %a, celeris %a, rounded %a\n", f, std::log(double(f)),
                  celeris::crmath::cr_log_of_float(f, d), log_reference(f, d));
    else
      std::printf("  expf(%a): glibc %a, celeris %a, rounded %a\n", f, std::exp(f),
                  celeris::crmath::cr_expf(f), expf_reference(f, d));
  }
  return 0;
}
