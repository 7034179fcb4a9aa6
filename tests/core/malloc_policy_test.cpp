// celeris::keep_freed_heap_memory (malloc_policy.hpp): memory a "frame" frees is there for the
// next one without new page faults. ctest runs each test in a process of its own, so the
// policy is set here first.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>

#include "celeris/malloc_policy.hpp"

namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Faults taken by allocating, touching every 4 KB and freeing `bytes` (the sum read back keeps
// the compiler from leaving the allocation out).
long faults_of_one_frame(size_t bytes, long& sum) {
  const long before = minor_faults();
  volatile char* p = static_cast<volatile char*>(std::malloc(bytes));
  for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  for (size_t i = 0; i < bytes; i += 4096) sum += p[i];
  std::free(const_cast<char*>(p));
  return minor_faults() - before;
}

}  // namespace

TEST(MallocPolicy, SecondFrameReusesTheFirstFramesMemory) {
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "glibc's malloc only (AddressSanitizer replaces it)";
#else
  if (std::getenv("GLIBC_TUNABLES") || std::getenv("MALLOC_TRIM_THRESHOLD_") ||
      std::getenv("MALLOC_MMAP_THRESHOLD_"))
    GTEST_SKIP() << "malloc's thresholds set by the environment";
  ASSERT_TRUE(celeris::keep_freed_heap_memory());
  // 16 MB: below the 32 MB threshold, above glibc's default one (and its default trim).
  constexpr size_t kBytes = size_t(16) << 20;
  long sum = 0;
  const long first = faults_of_one_frame(kBytes, sum);
  const long second = faults_of_one_frame(kBytes, sum);
  EXPECT_EQ(sum, 2 * static_cast<long>(kBytes / 4096));
  EXPECT_GT(first, 0);  // fresh memory was faulted in once
  // Without the policy the block is unmapped or trimmed at free, and the second frame faults
  // it in again (4,096 faults with 4 KB pages, 8 with transparent huge pages).
  EXPECT_EQ(second, 0) << "first frame " << first << " faults";
#endif
}
