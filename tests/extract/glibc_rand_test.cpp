// glibc's rand() stream (sextractor/glibc_rand.hpp): the jump-ahead against stepping one number
// at a time, and the threaded stream against the sequential one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "extract/sextractor/glibc_rand.hpp"

using celeris::extract::glibc_rand_stream;
using celeris::extract::GlibcRand;

namespace {

// The stream from seed 1 after `n` numbers, stepped one at a time (the reference).
GlibcRand stepped(uint64_t n) {
  GlibcRand r;
  for (uint64_t i = 0; i < n; ++i) r();
  return r;
}

// The next `count` numbers of two generators agree.
void expect_same_next(GlibcRand a, GlibcRand b, int count, uint64_t offset) {
  for (int i = 0; i < count; ++i) ASSERT_EQ(a(), b()) << "offset " << offset << ", number " << i;
}

}  // namespace

TEST(GlibcRand, GenerateIsTheSameAsCalls) {
  std::srand(1);
  std::vector<int32_t> v(5000);
  GlibcRand r;
  r.generate(v.data(), v.size());
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], std::rand()) << i;
}

// Blocks of any size, between single calls, from any place in the window: around the window's
// length and generate's block of 4096.
TEST(GlibcRand, GenerateInPiecesIsTheSameAsCalls) {
  std::srand(1);
  GlibcRand r;
  for (int i = 0; i < 7; ++i) ASSERT_EQ(r(), std::rand());
  for (size_t count : {size_t{0}, size_t{1}, size_t{2}, size_t{30}, size_t{31}, size_t{32},
                       size_t{4095}, size_t{4096}, size_t{4097}, size_t{10000}}) {
    std::vector<int32_t> v(count);
    r.generate(v.data(), count);
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(v[i], std::rand()) << count << ", " << i;
    ASSERT_EQ(r(), std::rand()) << "the call after a block of " << count;
  }
}

TEST(GlibcRand, DiscardIsTheSameAsStepping) {
  // Around the window's length (31) and the recurrence's taps (3, 31), the switch from steps to
  // the polynomial power (124), powers of two, and random offsets up to 10^6.
  std::vector<uint64_t> offsets = {0,    1,    2,     3,     4,      27,      28,     29,  30,
                                   31,   32,   33,    34,    35,     61,      62,     63,  64,
                                   123,  124,  125,   127,   128,    129,     255,    256, 1000,
                                   4095, 4096, 65536, 65537, 999999, 1000000, 1000001};
  std::mt19937_64 gen(17);
  for (int k = 0; k < 40; ++k) offsets.push_back(gen() % 1000000);
  for (uint64_t n : offsets) {
    GlibcRand jumped;
    jumped.discard(n);
    expect_same_next(jumped, stepped(n), 40, n);
  }
}

TEST(GlibcRand, DiscardIsTheSameAsTheCLibraryAfterAMillion) {
  std::srand(1);
  for (int i = 0; i < 1000003; ++i) std::rand();
  GlibcRand r;
  r.discard(1000003);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(r(), std::rand()) << i;
}

TEST(GlibcRand, DiscardIsTheSameAsSteppingAtABillion) {
  // One sequential reference at 10^9 + 7 (about a second), and jumps made in several pieces
  // (1, 30, 31, 34, then the rest) and from a generator already advanced.
  const uint64_t n = 1000000007;
  const GlibcRand reference = stepped(n);
  GlibcRand jumped;
  jumped.discard(n);
  expect_same_next(jumped, reference, 100, n);
  GlibcRand pieces;
  for (uint64_t step : {1, 30, 31, 34}) pieces.discard(step);
  pieces.discard(n - 96);
  expect_same_next(pieces, reference, 100, n);
  GlibcRand advanced;
  for (int i = 0; i < 1000; ++i) advanced();
  advanced.discard(n - 1000);
  expect_same_next(advanced, reference, 100, n);
  // An off-by-one either way is a different stream.
  GlibcRand early, late;
  early.discard(n - 1);
  late.discard(n + 1);
  GlibcRand ref = reference;
  const int32_t first = ref();
  EXPECT_NE(early(), first);
  EXPECT_NE(late(), first);
}

TEST(GlibcRand, ThreadedStreamIsTheSequentialOne) {
  // Slices of at least 2^16 numbers per thread: counts below, at and above a few slices.
  for (uint64_t skip : {uint64_t{0}, uint64_t{1}, uint64_t{31}, uint64_t{1234567}}) {
    for (size_t count : {size_t{0}, size_t{1}, size_t{65535}, size_t{65536}, size_t{300001}}) {
      GlibcRand r = stepped(skip);
      std::vector<int32_t> want(count);
      r.generate(want.data(), count);
      for (int threads : {1, 2, 3, 8}) {
        std::vector<int32_t> got(count, -1);
        glibc_rand_stream(skip, got.data(), count, threads);
        ASSERT_EQ(got, want) << "skip " << skip << ", count " << count << ", threads " << threads;
      }
    }
  }
}
