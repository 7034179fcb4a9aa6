// Output files: written to a temporary sibling and committed when complete; temporaries removed
// on SIGINT/SIGTERM; outputs that are devices, FIFOs or standard output written in place; the
// outputs of a failed run removed (OutputRun).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/table.hpp"

namespace celeris {

namespace {

// ---- temporaries removed by the signal handler ----------------------------------------------
// Fixed slots of fixed-size names: the handler may only use async-signal-safe calls (no
// allocation, no locks), so it reads these with atomics and unlinks with unlink(2).
constexpr size_t kSlots = 64, kPathMax = 4096;
struct Slot {
  std::atomic<bool> used{false};
  char path[kPathMax] = {0};
};
std::array<Slot, kSlots> g_slots;
std::mutex g_slots_mutex;  // writers only; the handler never locks

// Files derived from a temporary's name by the larger-than-memory cross-match
// (src/xmatch/stream.cpp: spills and converted inputs), removed with it.
constexpr const char* kDerivedSuffixes[] = {"",       ".pairs",     ".selected",  ".bysep",
                                            ".bykey", ".left.fits", ".right.fits"};

void remove_registered_temporaries() {
  char name[kPathMax + 32];
  for (Slot& s : g_slots) {
    if (!s.used.load(std::memory_order_acquire)) continue;
    const size_t n = ::strnlen(s.path, kPathMax);
    for (const char* suffix : kDerivedSuffixes) {
      const size_t m = std::strlen(suffix);
      std::memcpy(name, s.path, n);
      std::memcpy(name + n, suffix, m + 1);
      ::unlink(name);
    }
  }
}

extern "C" void celeris_on_fatal_signal(int sig) {
  remove_registered_temporaries();
  std::signal(sig, SIG_DFL);
  std::raise(sig);  // die of the signal, as the shell expects (exit status 128 + sig)
}

// Installs the handler for SIGINT, SIGTERM and SIGHUP where the program left the default.
void install_signal_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = celeris_on_fatal_signal;
      sigemptyset(&sa.sa_mask);
      sigaction(sig, &sa, nullptr);
    }
  });
}

void track(const std::string& tmp) {
  install_signal_handlers();
  if (tmp.size() >= kPathMax) return;
  std::lock_guard lock(g_slots_mutex);
  for (Slot& s : g_slots) {
    if (s.used.load(std::memory_order_relaxed)) continue;
    std::memcpy(s.path, tmp.c_str(), tmp.size() + 1);
    s.used.store(true, std::memory_order_release);
    return;
  }
}

void untrack(const std::string& tmp) {
  std::lock_guard lock(g_slots_mutex);
  for (Slot& s : g_slots)
    if (s.used.load(std::memory_order_relaxed) && tmp == s.path) {
      s.used.store(false, std::memory_order_release);
      return;
    }
}

// ---- outputs committed during an OutputRun --------------------------------------------------
std::mutex g_run_mutex;
std::vector<std::vector<std::string>*> g_runs;  // innermost last

void record_committed(const std::string& path) {
  std::lock_guard lock(g_run_mutex);
  if (!g_runs.empty()) g_runs.back()->push_back(path);
}

// An existing output that is not a regular file (/dev/null, a FIFO, a terminal): renaming a
// temporary over it would replace the device by a regular file, so it is written in place.
bool is_special(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

void copy_into(const std::string& tmp, int fd, const std::string& path) {
  const int in = ::open(tmp.c_str(), O_RDONLY);
  if (in < 0) throw Error(path + ": cannot reread the temporary output");
  std::vector<char> buf(1 << 16);
  ssize_t n = 0;
  bool ok = true;
  while (ok && (n = ::read(in, buf.data(), buf.size())) > 0)
    for (ssize_t off = 0; off < n;) {
      const ssize_t w = ::write(fd, buf.data() + off, static_cast<size_t>(n - off));
      if (w <= 0) {
        ok = false;
        break;
      }
      off += w;
    }
  ::close(in);
  if (!ok || n < 0) throw Error(path + ": write error");
}

}  // namespace

std::string with_output_name(std::string message, const std::string& tmp, const std::string& path) {
  for (size_t at = message.find(tmp); at != std::string::npos;
       at = message.find(tmp, at + path.size()))
    message.replace(at, tmp.size(), path);
  return message;
}

bool is_stdout_name(const std::string& path) {
  return path == "STDOUT";
}

std::string temporary_sibling(const std::string& path) {
  const std::string suffix = ".tmp" + std::to_string(::getpid());
  std::string tmp;
  if (is_stdout_name(path) || is_special(path)) {
    // Beside /dev/null is no place for a temporary: the system's temporary directory is.
    const std::string name = std::filesystem::path(path).filename().string();
    tmp = (std::filesystem::temp_directory_path() / ("celeris-" + name + suffix)).string();
  } else {
    tmp = path + suffix;
  }
  track(tmp);
  return tmp;
}

void commit_temporary(const std::string& tmp, const std::string& path) {
  untrack(tmp);
  std::error_code ec;
  if (is_stdout_name(path) || is_special(path)) {
    try {
      if (is_stdout_name(path)) {
        std::fflush(stdout);
        copy_into(tmp, STDOUT_FILENO, path);
      } else {
        const int fd = ::open(path.c_str(), O_WRONLY);
        if (fd < 0) throw Error(path + ": cannot open for writing");
        copy_into(tmp, fd, path);
        ::close(fd);
      }
    } catch (...) {
      std::filesystem::remove(tmp, ec);
      throw;
    }
    std::filesystem::remove(tmp, ec);
    return;
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw Error(path + ": cannot write (" + ec.message() + ")");
  }
  record_committed(path);
}

void discard_temporary(const std::string& tmp) {
  untrack(tmp);
  std::error_code ec;
  std::filesystem::remove(tmp, ec);
}

void refuse_output_over_input(const std::string& output, const std::string& input,
                              const std::string& what) {
  // CFITSIO's extended syntax: "img.fits[1]" is the file img.fits.
  const std::string file = input.substr(0, input.find('['));
  std::error_code ec;
  if (!is_stdout_name(output) && std::filesystem::equivalent(output, file, ec) && !ec)
    throw Error(what + " " + output + " is the input " + file +
                "; writing it would destroy the input (choose another name)");
}

OutputRun::OutputRun() {
  std::lock_guard lock(g_run_mutex);
  g_runs.push_back(&committed_);
}

OutputRun::~OutputRun() {
  {
    std::lock_guard lock(g_run_mutex);
    std::erase(g_runs, &committed_);
  }
  if (kept_) return;
  std::error_code ec;
  for (const std::string& p : committed_) std::filesystem::remove(p, ec);
}

void OutputRun::keep() {
  kept_ = true;
}

}  // namespace celeris
