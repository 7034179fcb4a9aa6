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
//   libm_rounding table FILE       core/glibc_float_math_tables.inc: every argument where glibc's
//                                  log(double(f)) (f > 0) or expf (|x| < 70) is not the correctly
//                                  rounded result, and on which side (core/glibc_float_math.hpp)
// STRIDE=N in the environment: every Nth float argument only (a sample).
#include <gnu/libc-version.h>
#include <omp.h>
#include <quadmath.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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

// The float one step from f towards +inf (step 1) or -inf (-1), and the double likewise.
static float step_float(float f, int step) {
  return std::nextafter(f, step > 0 ? INFINITY : -INFINITY);
}
static double step_double(double d, int step) {
  return std::nextafter(d, step > 0 ? INFINITY : -INFINITY);
}

// One list of core/glibc_float_math_tables.inc: the arguments (bits less the sign) in increasing
// order, each as its distance from the one before and 'u' or 'd' (glibc's result one step above
// or below the correctly rounded one), as a C++ raw string.
static std::string encode(const char* name, std::vector<uint32_t> keys) {
  std::sort(keys.begin(), keys.end(),
            [](uint32_t a, uint32_t b) { return (a & 0x7fffffffu) < (b & 0x7fffffffu); });
  std::string out = "inline constexpr char " + std::string(name) + "[] = R\"(";
  uint32_t last = 0;
  size_t line = 0;
  for (size_t k = 0; k < keys.size(); ++k) {
    const uint32_t key = keys[k] & 0x7fffffffu;
    const std::string item = std::to_string(key - last) + ((keys[k] >> 31) ? 'd' : 'u');
    last = key;
    if (line + item.size() + 1 > 96) out += '\n', line = 0;
    if (line) out += ' ', ++line;
    out += item;
    line += item.size();
  }
  return out + ")\";\n";
}

// `libm_rounding table FILE`: the lists glibc_float_math.hpp looks up. Each argument where
// glibc's result is not core/cr_math.hpp's (correctly rounded for every argument, checked
// exhaustively) is kept with the side glibc errs on; any other difference than one step stops
// the run (the tables could not describe it).
static int write_tables(const char* path) {
  std::vector<uint32_t> log_keys, exp_neg, exp_pos;
  long long bad = 0;
#pragma omp parallel
  {
    std::vector<uint32_t> mine_log, mine_neg, mine_pos;
#pragma omp for schedule(dynamic, 1 << 16) reduction(+ : bad)
    for (int64_t b = 0; b < (int64_t{1} << 32); ++b) {
      const float f = from_bits(static_cast<uint32_t>(b));
      if (!std::isfinite(f)) continue;
      const uint32_t key = static_cast<uint32_t>(b) & 0x7fffffffu;
      if (f > 0) {
        bool certain = true;
        const double cr = celeris::crmath::cr_log_of_float(f, certain);
        const double g = std::log(static_cast<double>(f));
        if (std::memcmp(&cr, &g, 8) != 0) {
          if (!certain) ++bad;
          if (g == step_double(cr, 1))
            mine_log.push_back(key);
          else if (g == step_double(cr, -1))
            mine_log.push_back(key | 0x80000000u);
          else
            ++bad;
        }
      }
      if (f > -70.0f && f < 70.0f) {
        const float cr = celeris::crmath::cr_expf(f);
        const float g = std::exp(f);
        if (bits(cr) != bits(g)) {
          auto& list = f < 0 ? mine_neg : mine_pos;
          if (g == step_float(cr, 1))
            list.push_back(key);
          else if (g == step_float(cr, -1))
            list.push_back(key | 0x80000000u);
          else
            ++bad;
        }
      }
    }
#pragma omp critical
    {
      log_keys.insert(log_keys.end(), mine_log.begin(), mine_log.end());
      exp_neg.insert(exp_neg.end(), mine_neg.begin(), mine_neg.end());
      exp_pos.insert(exp_pos.end(), mine_pos.begin(), mine_pos.end());
    }
  }
  if (bad) {
    std::fprintf(stderr, "libm_rounding table: %lld results differ by more than one step\n", bad);
    return 1;
  }
  FILE* out = std::fopen(path, "w");
  if (!out) {
    std::fprintf(stderr, "libm_rounding table: cannot write %s\n", path);
    return 1;
  }
  std::fprintf(
      out,
      "// Generated by `libm_rounding table` (bench/extract/libm_rounding.cpp) against glibc "
      "%s: the\n// float arguments where glibc's log(double(f)) and expf differ from "
      "the correctly rounded\n// results (%zu for log, %zu + %zu for expf below and "
      "above 0). Read by glibc_float_math_tables.cpp.\n",
      gnu_get_libc_version(), log_keys.size(), exp_neg.size(), exp_pos.size());
  std::fputs("// clang-format off\n", out);
  std::fputs(encode("kGlibcLogExceptions", log_keys).c_str(), out);
  std::fputs(encode("kGlibcExpfNegativeExceptions", exp_neg).c_str(), out);
  std::fputs(encode("kGlibcExpfPositiveExceptions", exp_pos).c_str(), out);
  std::fputs("// clang-format on\n", out);
  std::fclose(out);
  std::printf("log %zu, expf %zu below 0 and %zu above\n", log_keys.size(), exp_neg.size(),
              exp_pos.size());
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "table") == 0) return write_tables(argv[2]);
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
