#include "core/glibc_float_math_tables.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace celeris::glibcmath {

namespace {

#include "core/glibc_float_math_tables.inc"

// One list from its text: distances from the previous argument's key, each followed by 'u' or
// 'd' (glibc's result one step towards +inf or -inf), separated by blanks.
std::vector<uint32_t> decode(const char* text) {
  std::vector<uint32_t> out;
  uint32_t key = 0;
  for (const char* p = text; *p;) {
    if (*p == ' ' || *p == '\n') {
      ++p;
      continue;
    }
    char* end = nullptr;
    key += static_cast<uint32_t>(std::strtoul(p, &end, 10));
    out.push_back(*end == 'd' ? key | 0x80000000u : key);
    p = end + 1;
  }
  return out;
}

struct Decoded {
  std::vector<uint32_t> log, below, above;
  ExceptionLists lists;
  Decoded()
      : log(decode(kGlibcLogExceptions)),
        below(decode(kGlibcExpfNegativeExceptions)),
        above(decode(kGlibcExpfPositiveExceptions)) {
    lists.log = {log.data(), static_cast<int64_t>(log.size())};
    lists.expf_below = {below.data(), static_cast<int64_t>(below.size())};
    lists.expf_above = {above.data(), static_cast<int64_t>(above.size())};
  }
};

const Decoded& decoded() {
  static const Decoded* d = new Decoded;  // never destroyed: GPU stages may read it at exit
  return *d;
}

// The first of `count` entries (by index) at which `differs` holds, -1 for none. Every entry is
// checked, on all threads: each process checks its glibc once, on the GPU path's first frame
// (about 80 ms of one core for the three lists on the development machine, where the frame
// itself takes 20-30 ms).
template <class Differs>
int64_t first_differing(int64_t count, Differs differs) {
  int64_t first = count;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (int64_t k = 0; k < count; ++k)
    if (k < first && differs(k)) first = k;
  return first < count ? first : -1;
}

std::string first_log_mismatch() {
  const ExceptionLists& l = host_exception_lists();
  auto argument = [&](int64_t k) {
    const uint32_t key = l.log.entries[k] & 0x7fffffffu;
    float f;
    std::memcpy(&f, &key, sizeof f);
    return f;
  };
  auto results = [&](float f, double& want, double& got) {
    want = std::log(static_cast<double>(f)), got = glibc_log(f, l);
  };
  const int64_t k = first_differing(l.log.size, [&](int64_t i) {
    double want, got;
    results(argument(i), want, got);
    return std::memcmp(&want, &got, sizeof want) != 0;
  });
  if (k < 0) return {};
  const float f = argument(k);
  double want, got;
  results(f, want, got);
  char text[128];
  std::snprintf(text, sizeof text, "log(%a): glibc %a, the list %a", f, want, got);
  return text;
}

std::string first_expf_mismatch() {
  const ExceptionLists& l = host_exception_lists();
  for (const ExceptionList* list : {&l.expf_below, &l.expf_above}) {
    const uint32_t sign = list == &l.expf_below ? 0x80000000u : 0u;
    auto argument = [&](int64_t k) {
      const uint32_t key = (list->entries[k] & 0x7fffffffu) | sign;
      float x;
      std::memcpy(&x, &key, sizeof x);
      return x;
    };
    const int64_t k = first_differing(list->size, [&](int64_t i) {
      const float x = argument(i), want = std::exp(x), got = glibc_expf(x, l);
      return std::memcmp(&want, &got, sizeof want) != 0;
    });
    if (k < 0) continue;
    const float x = argument(k), want = std::exp(x), got = glibc_expf(x, l);
    char text[128];
    std::snprintf(text, sizeof text, "expf(%a): glibc %a, the list %a", x, want, got);
    return text;
  }
  return {};
}

}  // namespace

const ExceptionLists& host_exception_lists() {
  return decoded().lists;
}

const std::string& log_exceptions_mismatch() {
  static const std::string* m = new std::string(first_log_mismatch());
  return *m;
}

const std::string& expf_exceptions_mismatch() {
  static const std::string* m = new std::string(first_expf_mismatch());
  return *m;
}

void check_exception_lists_ahead() {
  // Joined at exit: the thread may still be inside its OpenMP loop when main returns.
  struct Ahead {
    std::thread thread{[] {
      log_exceptions_mismatch();
      expf_exceptions_mismatch();
    }};
    ~Ahead() { thread.join(); }
  };
  static Ahead ahead;
}

}  // namespace celeris::glibcmath
