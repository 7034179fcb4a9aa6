// core/glibc_float_math.hpp: glibc's log(double(f)) and expf reproduced from the correctly
// rounded results and the generated exception lists, against this process's glibc: at every
// listed argument (the lists must describe this glibc) and at millions of random ones (the lists
// must miss none); the lookup's own steps at the edges of the float and double formats.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "core/glibc_float_math.hpp"
#include "core/glibc_float_math_tables.hpp"

using namespace celeris::glibcmath;

namespace {

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

bool same(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}
bool same(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST(GlibcFloatMath, TheListsDescribeThisGlibc) {
  const ExceptionLists& l = host_exception_lists();
  // glibc 2.36 and 2.39 (stop 38, 39): 65,604 log arguments; expf about 168,000 in (-70, 70).
  EXPECT_GT(l.log.size, 10000);
  EXPECT_GT(l.expf_below.size + l.expf_above.size, 10000);
  for (const ExceptionList* list : {&l.log, &l.expf_below, &l.expf_above})
    for (int64_t k = 1; k < list->size; ++k)
      ASSERT_LT(list->entries[k - 1] & 0x7fffffffu, list->entries[k] & 0x7fffffffu) << k;
  EXPECT_EQ(log_exceptions_mismatch(), "");
  EXPECT_EQ(expf_exceptions_mismatch(), "");
}

TEST(GlibcFloatMath, RandomArgumentsGiveGlibcsBits) {
  const ExceptionLists& l = host_exception_lists();
  std::mt19937_64 rng(20261129);
  int64_t listed = 0;
  for (int k = 0; k < 4000000; ++k) {
    // Every positive finite float alike (bit patterns, so every exponent is drawn).
    const float f = from_bits(1u + static_cast<uint32_t>(rng() % 0x7f7fffffu));
    ASSERT_TRUE(same(glibc_log(f, l), std::log(static_cast<double>(f)))) << "log " << f;
    // expf on (-70, 70): a uniform value and a uniform bit pattern of that range.
    const float u = static_cast<float>(static_cast<double>(rng() % 1400000000u) / 1e7 - 70.0);
    const float b = from_bits(static_cast<uint32_t>(rng() % 0x428c0000u) |
                              static_cast<uint32_t>((rng() & 1) << 31));
    for (const float x : {u, b}) {
      if (!(x > -70.0f && x < 70.0f)) continue;
      ASSERT_TRUE(same(glibc_expf(x, l), std::exp(x))) << "expf " << x;
      uint32_t key;
      std::memcpy(&key, &x, sizeof key);
      listed += exception_step(x < 0 ? l.expf_below : l.expf_above, key & 0x7fffffffu) != 0;
    }
  }
  // The lists were used (on the order of one argument in 10,000 is one of glibc's exceptions).
  EXPECT_GT(listed, 0);
}

TEST(GlibcFloatMath, StepsAndLookupAtTheEdges) {
  EXPECT_EQ(step_double(1.0, 1), std::nextafter(1.0, 2.0));
  EXPECT_EQ(step_double(1.0, -1), std::nextafter(1.0, 0.0));
  EXPECT_EQ(step_double(-1.0, 1), std::nextafter(-1.0, 0.0));
  EXPECT_EQ(step_double(-1.0, -1), std::nextafter(-1.0, -2.0));
  EXPECT_EQ(step_float(1.0f, 1), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(step_float(1.0f, -1), std::nextafter(1.0f, 0.0f));
  const uint32_t entries[] = {5u, 9u | 0x80000000u, 12u};
  const ExceptionList list{entries, 3};
  EXPECT_EQ(exception_step(list, 5), 1);
  EXPECT_EQ(exception_step(list, 9), -1);
  EXPECT_EQ(exception_step(list, 12), 1);
  for (uint32_t key : {0u, 6u, 10u, 13u, 0x7fffffffu}) EXPECT_EQ(exception_step(list, key), 0);
  EXPECT_EQ(exception_step(ExceptionList{}, 5), 0);
}
