// The cross-match over MPI ranks (`mpirun -n N celeris xmatch ...`), built with CELERIS_MPI.
//
// Every rank scans the RA/Dec columns of the inputs and counts rows per coarse HEALPix pixel; the
// chunk plan of the --memory path (plan_chunks, pixels at least one radius wide) is cut into N
// contiguous runs of nearly equal cost (split_chunks), one partition per rank. A rank gathers
// the left rows of its partition and the right rows of its pixels and their neighbours (the
// margin of one radius, as a HATS margin cache holds) and joins them on its cores or its GPU
// (one per rank, by local rank). Every pair belongs to the partition of its left row, so the
// union of the ranks' pairs is the single-process pair set, each pair once. A rank matches its
// partition a chunk at a time (PartitionChunks) and keeps only that chunk's pairs. Find modes that
// need more than one left row's pairs (best, best2, a self-match's best1) select on rank 0
// after the pairs are gathered there; rank 0 writes the output with the single-process writer
// (FITS and HATS inputs: a block of output rows at a time, fetching only their input rows), so the
// file is byte-identical. HATS catalogs whose right side has a margin cache of at least the radius
// skip the row exchange: each rank reads its run of left partitions, the right partitions meeting
// them and their margin files (src/xmatch/mpi/hats_partitions.hpp). `count` reduces the counts
// instead of gathering pairs where the find mode allows (all, best1 of two catalogs).
//
// Failure: every phase ends with an agreement among the ranks; when any rank threw, every rank
// throws JobFailed naming the failed ranks and their partitions, and no output is written (it
// goes to a temporary name renamed only when complete). A rank killed by a signal it can catch
// (SIGSEGV, SIGBUS, SIGFPE, SIGABRT) prints its rank and partition before dying; mpirun then
// ends the job with a non-zero status.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "celeris/error.hpp"
#include "celeris/xmatch.hpp"

namespace celeris::xmatch::mpi {

// Whether this process was started by mpirun / mpiexec (OpenMPI, PMI or PMIx environment).
bool launched_by_mpirun();

// MPI_Init on construction, MPI_Finalize on destruction (one per process).
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // rank among the ranks of this host
  int local_size() const { return local_size_; }
  void barrier() const;  // every rank waits for every other

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
};

// Some rank failed: what() names the ranks, their partitions and their errors. Thrown on every
// rank, so that every rank exits non-zero; only rank 0 need print it.
class JobFailed : public Error {
 public:
  using Error::Error;
};

// Wall seconds of each phase on this rank (the slowest rank's are reported by the CLI).
struct PhaseTimes {
  double read = 0;       // this rank's slice of RA/Dec or HATS partitions (and, rank 0, whole
                         // non-FITS tables for output)
  double partition = 0;  // pixel counts summed over the ranks, the chunk plan, its split
  double gather = 0;     // rows sent to their partitions and margins (MPI_Alltoallv)
  double join = 0;       // match_pairs on the partition
  double exchange = 0;   // pairs or counts to rank 0
  double select = 0;     // find and join on rank 0
  double write = 0;      // the output table on rank 0
};

struct Match {
  std::string left_path, right_path, output;  // output unused when count
  std::string ra1, dec1, ra2, dec2;           // empty: found as find_radec_columns does
  bool self = false;
  std::optional<Frame> frame1, frame2;  // empty: by column name (galactic_by_name)
  bool count = false;  // no table: the number of pairs and a histogram of separations
  int bins = 20;
  // Bytes for each rank's chunks (--memory; planned within half of it, as the streamed single
  // process's); 0: chunks of about 1/16 of a rank's share. Only one chunk's pairs are held on a
  // rank at a time (rank 0 also holds the gathered pairs when they go there).
  size_t memory = 0;
};

struct Result {
  size_t left_rows = 0, right_rows = 0, output_rows = 0;  // output_rows: rank 0 only
  PairCount count;                                        // rank 0 only, when Match::count
  PhaseTimes times;                                       // slowest rank per phase (every rank)
  int ranks = 1;
  size_t chunks = 0;
  int coarse_order = 0;
};

// The whole job, called on every rank. FITS or CSV inputs as the single-process command reads
// them. Options::threads 0 shares the host's cores among its ranks. Backend::Cuda: rank r uses
// GPU (local rank mod device count).
Result crossmatch(const Session& session, const Match& match, const Options& options);

}  // namespace celeris::xmatch::mpi
