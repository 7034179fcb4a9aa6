// MPI start and stop, the agreement after each phase, and the message a dying rank prints.
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "collective.hpp"

namespace celeris::xmatch::mpi {

bool launched_by_mpirun() {
  // OpenMPI sets OMPI_COMM_WORLD_SIZE; MPICH/Hydra and Slurm's PMI set PMI_SIZE; PMIx PMIX_RANK.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

Session::Session() {
  int started = 0;
  MPI_Initialized(&started);
  if (started) throw Error("MPI is already initialised (one mpi::Session per process)");
  MPI_Init(nullptr, nullptr);
  // Errors in MPI calls abort the job (MPI's default), which mpirun reports with the rank.
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host);
  MPI_Comm_rank(host, &local_rank_);
  MPI_Comm_size(host, &local_size_);
  MPI_Comm_free(&host);
}

Session::~Session() {
  MPI_Finalize();
}

void Session::barrier() const {
  MPI_Barrier(MPI_COMM_WORLD);
}

void collectively(const Session& s, const std::string& where, const std::function<void()>& work) {
  std::string error;
  try {
    work();
  } catch (const std::bad_alloc&) {
    error = "out of memory";
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown error";
  }
  if (!error.empty()) error = "rank " + std::to_string(s.rank()) + " (" + where + "): " + error;
  // Every rank learns every rank's message (empty when it succeeded).
  const int len = int(error.size());
  std::vector<int> lens(size_t(s.size())), offsets(size_t(s.size()), 0);
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < s.size(); ++r) {
    offsets[size_t(r)] = total;
    total += lens[size_t(r)];
  }
  if (total == 0) return;
  std::string all(size_t(total), '\0');
  MPI_Allgatherv(error.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR,
                 MPI_COMM_WORLD);
  std::string message;
  for (int r = 0; r < s.size(); ++r) {
    if (lens[size_t(r)] == 0) continue;
    if (!message.empty()) message += "; ";
    message += all.substr(size_t(offsets[size_t(r)]), size_t(lens[size_t(r)]));
  }
  throw JobFailed(message);
}

namespace {

char g_crash_message[1024];
size_t g_crash_length = 0;

extern "C" void on_fatal_signal(int sig) {
  // Only async-signal-safe calls: write(2), then the default action (SA_RESETHAND) again.
  char tail[16];
  int n = 0;
  char digits[8];
  int d = 0;
  for (int v = sig; v > 0 && d < 8; v /= 10) digits[d++] = char('0' + v % 10);
  while (d > 0) tail[n++] = digits[--d];
  tail[n++] = '\n';
  ssize_t ignored = ::write(STDERR_FILENO, g_crash_message, g_crash_length);
  ignored = ::write(STDERR_FILENO, tail, size_t(n));
  (void)ignored;
  ::raise(sig);
}

}  // namespace

void set_crash_context(int rank, const std::string& where) {
  static bool installed = false;
  const std::string text =
      "celeris xmatch: rank " + std::to_string(rank) + " (" + where + ") died on signal ";
  g_crash_length = std::min(text.size(), sizeof g_crash_message);
  std::memcpy(g_crash_message, text.data(), g_crash_length);
  if (installed) return;
  installed = true;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGABRT}) sigaction(sig, &sa, nullptr);
}

void maybe_inject_fault(int rank) {
  const char* spec = std::getenv("CELERIS_XMATCH_MPI_FAULT");
  if (!spec) return;
  const std::string s = spec;
  const size_t colon = s.find(':');
  if (colon == std::string::npos || std::atoi(s.substr(0, colon).c_str()) != rank) return;
  const std::string what = s.substr(colon + 1);
  if (what == "abort") std::abort();
  throw Error("injected failure (CELERIS_XMATCH_MPI_FAULT=" + s + ")");
}

}  // namespace celeris::xmatch::mpi
