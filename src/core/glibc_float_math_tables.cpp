#include "core/glibc_float_math_tables.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

std::string first_log_mismatch() {
  const ExceptionLists& l = host_exception_lists();
  for (int64_t k = 0; k < l.log.size; ++k) {
    const uint32_t key = l.log.entries[k] & 0x7fffffffu;
    float f;
    std::memcpy(&f, &key, sizeof f);
    const double want = std::log(static_cast<double>(f)), got = glibc_log(f, l);
    if (std::memcmp(&want, &got, sizeof want) != 0) {
      char text[128];
      std::snprintf(text, sizeof text, "log(%a): glibc %a, the list %a", f, want, got);
      return text;
    }
  }
  return {};
}

std::string first_expf_mismatch() {
  const ExceptionLists& l = host_exception_lists();
  for (const ExceptionList* list : {&l.expf_below, &l.expf_above})
    for (int64_t k = 0; k < list->size; ++k) {
      const uint32_t sign = list == &l.expf_below ? 0x80000000u : 0u;
      const uint32_t key = (list->entries[k] & 0x7fffffffu) | sign;
      float x;
      std::memcpy(&x, &key, sizeof x);
      const float want = std::exp(x), got = glibc_expf(x, l);
      if (std::memcmp(&want, &got, sizeof want) != 0) {
        char text[128];
        std::snprintf(text, sizeof text, "expf(%a): glibc %a, the list %a", x, want, got);
        return text;
      }
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

}  // namespace celeris::glibcmath
