// Internal to src/xmatch/mpi: agreement among the ranks after each phase, so that one rank's
// error ends every rank (instead of leaving the others blocked in the next collective call),
// and the context a rank prints when it dies on a signal.
#pragma once

#include <functional>
#include <string>

#include "celeris/xmatch_mpi.hpp"

namespace celeris::xmatch::mpi {

// Runs `work` on this rank, then agrees with every rank: when it threw on any rank, every rank
// throws JobFailed naming each failed rank, its `where` (e.g. its partition) and its error.
void collectively(const Session& session, const std::string& where,
                  const std::function<void()>& work);

// What this rank is doing, printed (with the rank) should it die on SIGSEGV, SIGBUS, SIGFPE or
// SIGABRT. The first call installs the handlers.
void set_crash_context(int rank, const std::string& where);

// Test hook: CELERIS_XMATCH_MPI_FAULT="RANK:throw" (or ":abort") makes that rank throw an Error
// (or abort) in its join phase, to test that the job fails as a whole.
void maybe_inject_fault(int rank);

}  // namespace celeris::xmatch::mpi
