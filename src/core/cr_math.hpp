// Correctly rounded exp and log of float arguments, the same bits on the host and on the GPU:
// double-double arithmetic (a value as an unevaluated sum hi + lo of two doubles, about 106
// bits) from IEEE additions and multiplications alone, with products split by Dekker's method
// rather than fused (the GPU code is compiled without contraction, --fmad=false), then one
// rounding to the result's format. A step towards glibc's own expf and log on the GPU: those
// are correctly rounded except on a known list of arguments (bench/extract/libm_rounding.cpp,
// bench/results/libm-rounding-2026-11-29.md), which a caller would look up first. Checked on the
// host against __float128 for every float argument (exp on [-70, 70), log on every positive
// float): correctly rounded throughout, the log's rounding certain throughout.
// Plain C++17 (CELERIS_HD): no CUDA headers, no libm calls. Compile with contraction off
// (-ffp-contract=off; nvcc --fmad=false): a fused multiply-add would break the exact sums.
#pragma once

#include <cstdint>
#include <cstring>

#include "celeris/host_device.hpp"

namespace celeris::crmath {

struct DD {
  double hi, lo;
};

// a + b exactly, as a sum of two doubles (Knuth's two-sum).
CELERIS_HD inline DD two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// a + b exactly when |a| >= |b| (or a is 0).
CELERIS_HD inline DD fast_two_sum(double a, double b) {
  const double s = a + b;
  return {s, b - (s - a)};
}

// a * b exactly (Dekker: each factor split into two halves of 26 bits, the four products exact).
CELERIS_HD inline DD two_prod(double a, double b) {
  constexpr double kSplit = 134217729.0;  // 2^27 + 1
  const double p = a * b;
  const double ca = kSplit * a, cb = kSplit * b;
  const double ahi = ca - (ca - a), alo = a - ahi;
  const double bhi = cb - (cb - b), blo = b - bhi;
  return {p, ((ahi * bhi - p) + ahi * blo + alo * bhi) + alo * blo};
}

CELERIS_HD inline DD add(DD a, DD b) {
  DD s = two_sum(a.hi, b.hi);
  const DD t = two_sum(a.lo, b.lo);
  s.lo += t.hi;
  s = fast_two_sum(s.hi, s.lo);
  s.lo += t.lo;
  return fast_two_sum(s.hi, s.lo);
}

CELERIS_HD inline DD mul(DD a, DD b) {
  DD p = two_prod(a.hi, b.hi);
  p.lo += a.hi * b.lo + a.lo * b.hi;
  return fast_two_sum(p.hi, p.lo);
}

CELERIS_HD inline DD mul(DD a, double b) {
  DD p = two_prod(a.hi, b);
  p.lo += a.lo * b;
  return fast_two_sum(p.hi, p.lo);
}

// a / b: a first quotient, then two corrections from the exact remainder.
CELERIS_HD inline DD div(DD a, DD b) {
  const double q1 = a.hi / b.hi;
  DD r = add(a, mul(b, -q1));
  const double q2 = r.hi / b.hi;
  r = add(r, mul(b, -q2));
  const double q3 = r.hi / b.hi;
  return add(fast_two_sum(q1, q2), DD{q3, 0.0});
}

// ln 2 as hi + lo (its first 106 bits, from its decimal expansion).
constexpr DD kLn2{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};

// x * 2^k for an integer k that keeps the result a normal double (a multiplication by an exact
// power of two).
CELERIS_HD inline double scale(double x, int k) {
  const uint64_t bits = static_cast<uint64_t>(k + 1023) << 52;
  double p;
  std::memcpy(&p, &bits, sizeof p);
  return x * p;
}

// hi + lo (normalised, |lo| <= half an ulp of hi, positive) correctly rounded to float: hi's
// rounding, except where hi lies exactly halfway between two floats; then lo's sign decides.
CELERIS_HD inline float cr_float(DD v) {
  const float f = static_cast<float>(v.hi);
  const double d = v.hi - static_cast<double>(f);  // exact
  if (d == 0.0 || v.lo == 0.0) return f;
  // The float on hi's other side, one step from f towards hi (results here are positive).
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits = d > 0 ? bits + 1 : bits - 1;
  float g;
  std::memcpy(&g, &bits, sizeof g);
  if (static_cast<double>(f) + static_cast<double>(g) != 2.0 * v.hi) return f;  // not halfway
  return (v.lo > 0) == (d > 0) ? g : f;  // the true value lies on g's side of the midpoint
}

// exp(x) for a float x with |x| < 87 (a normal float result), correctly rounded to float.
// x = k ln2 + r with |r| < 0.35; exp(r) by Horner's form of its Taylor series to r^24 / 24!
// (below 2^-110 of the sum; the coefficients 1/n! as double-doubles from their decimal
// expansions); the result's two halves rounded to float once (cr_float).
CELERIS_HD inline float cr_expf(float x) {
  const DD inverse_factorial[25] = {
      {0x1.0000000000000p+0, 0x0.0p+0},
      {0x1.0000000000000p+0, 0x0.0p+0},
      {0x1.0000000000000p-1, 0x0.0p+0},
      {0x1.5555555555555p-3, 0x1.5555555555555p-57},
      {0x1.5555555555555p-5, 0x1.5555555555555p-59},
      {0x1.1111111111111p-7, 0x1.1111111111111p-63},
      {0x1.6c16c16c16c17p-10, -0x1.f49f49f49f49fp-65},
      {0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-73},
      {0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-76},
      {0x1.71de3a556c734p-19, -0x1.c154f8ddc6c00p-73},
      {0x1.27e4fb7789f5cp-22, 0x1.cbbc05b4fa99ap-76},
      {0x1.ae64567f544e4p-26, -0x1.c062e06d1f209p-80},
      {0x1.1eed8eff8d898p-29, -0x1.2aec959e14c06p-83},
      {0x1.6124613a86d09p-33, 0x1.f28e0cc748ebep-87},
      {0x1.93974a8c07c9dp-37, 0x1.05d6f8a2efd1fp-92},
      {0x1.ae7f3e733b81fp-41, 0x1.1d8656b0ee8cbp-97},
      {0x1.ae7f3e733b81fp-45, 0x1.1d8656b0ee8cbp-101},
      {0x1.952c77030ad4ap-49, 0x1.ac981465ddc6cp-103},
      {0x1.6827863b97d97p-53, 0x1.eec01221a8b0bp-107},
      {0x1.2f49b46814157p-57, 0x1.2650f61dbdcb4p-112},
      {0x1.e542ba4020225p-62, 0x1.ea72b4afe3c2fp-120},
      {0x1.71b8ef6dcf572p-66, -0x1.d043ae40c4647p-120},
      {0x1.0ce396db7f853p-70, -0x1.aebcdbd20331cp-124},
      {0x1.761b41316381ap-75, -0x1.3423c7d91404fp-130},
      {0x1.f2cf01972f578p-80, -0x1.9ada5fcc1ab14p-135},
  };
  const double xd = x;
  const double t = xd * 0x1.71547652b82fep+0;  // x / ln 2, within an ulp
  const int k = static_cast<int>(t >= 0 ? t + 0.5 : t - 0.5);
  const DD r = add(DD{xd, 0.0}, mul(kLn2, -static_cast<double>(k)));
  DD sum = inverse_factorial[24];
  for (int n = 23; n >= 0; --n) sum = add(inverse_factorial[n], mul(r, sum));
  return cr_float(DD{scale(sum.hi, k), scale(sum.lo, k)});
}

// log(x) for a positive float x (subnormal ones too), correctly rounded to double, and whether
// the rounding was certain: `certain` false when the double-double value lies within its error
// bound of the midpoint between two doubles (the exhaustive check, bench/extract/libm_rounding.cpp,
// says whether any float argument does). x = m 2^e with m in [sqrt(1/2), sqrt(2)); log m =
// 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.1716, by its series to s^43 / 43.
CELERIS_HD inline double cr_log_of_float(float x, bool& certain) {
  const double xd = x;  // a normal double for every positive float
  uint64_t bits;
  std::memcpy(&bits, &xd, sizeof bits);
  int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  const uint64_t mbits = (bits & 0xfffffffffffffull) | (uint64_t{1023} << 52);
  double m;
  std::memcpy(&m, &mbits, sizeof m);                     // in [1, 2), 24 significant bits at most
  if (m > 1.4142135623730951) m *= 0.5, ++e;             // exact
  const DD s = div(DD{m - 1.0, 0.0}, DD{m + 1.0, 0.0});  // m - 1 and m + 1 exact
  const DD s2 = mul(s, s);
  // 1 / (2j + 1) for j = 0 .. 21, as double-doubles from their decimal expansions.
  const DD inverse_odd[22] = {
      {0x1.0000000000000p+0, 0x0.0p+0},
      {0x1.5555555555555p-2, 0x1.5555555555555p-56},
      {0x1.999999999999ap-3, -0x1.999999999999ap-57},
      {0x1.2492492492492p-3, 0x1.2492492492492p-57},
      {0x1.c71c71c71c71cp-4, 0x1.c71c71c71c71cp-58},
      {0x1.745d1745d1746p-4, -0x1.745d1745d1746p-59},
      {0x1.3b13b13b13b14p-4, -0x1.3b13b13b13b14p-58},
      {0x1.1111111111111p-4, 0x1.1111111111111p-60},
      {0x1.e1e1e1e1e1e1ep-5, 0x1.e1e1e1e1e1e1ep-61},
      {0x1.af286bca1af28p-5, 0x1.af286bca1af28p-59},
      {0x1.8618618618618p-5, 0x1.8618618618618p-59},
      {0x1.642c8590b2164p-5, 0x1.642c8590b2164p-60},
      {0x1.47ae147ae147bp-5, -0x1.eb851eb851eb8p-61},
      {0x1.2f684bda12f68p-5, 0x1.2f684bda12f68p-59},
      {0x1.1a7b9611a7b96p-5, 0x1.1a7b9611a7b96p-61},
      {0x1.0842108421084p-5, 0x1.0842108421084p-60},
      {0x1.f07c1f07c1f08p-6, -0x1.f07c1f07c1f08p-61},
      {0x1.d41d41d41d41dp-6, 0x1.0750750750750p-60},
      {0x1.bacf914c1bad0p-6, -0x1.bacf914c1bad0p-60},
      {0x1.a41a41a41a41ap-6, 0x1.0690690690690p-60},
      {0x1.8f9c18f9c18fap-6, -0x1.f3831f3831f38p-61},
      {0x1.7d05f417d05f4p-6, 0x1.7d05f417d05f4p-62},
  };
  DD t = inverse_odd[21];
  for (int j = 20; j >= 0; --j) t = add(inverse_odd[j], mul(s2, t));
  DD v = mul(mul(s, t), 2.0);
  v = add(mul(kLn2, static_cast<double>(e)), v);
  // hi is v rounded to double; the true log lies within about 2^-100 |v| of v. The midpoint on
  // lo's side is half an ulp of hi away (a quarter below a power of two).
  const double hi = v.hi, lo = v.lo;
  uint64_t hbits;
  std::memcpy(&hbits, &hi, sizeof hbits);
  const int hexp = static_cast<int>((hbits >> 52) & 0x7ff) - 1023;
  const bool power_of_two = (hbits & 0xfffffffffffffull) == 0;
  const bool towards_zero = (lo < 0) == (hi > 0);
  const double half_ulp = scale(1.0, hexp - (power_of_two && towards_zero ? 54 : 53));
  const double bound = scale(1.0, hexp - 98);  // 2^-98 of |hi|, generously above the error
  const double gap = half_ulp - (lo < 0 ? -lo : lo);
  certain = hi == 0.0 || gap > bound;
  return hi;
}

}  // namespace celeris::crmath
