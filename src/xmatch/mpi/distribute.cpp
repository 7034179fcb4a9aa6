// Each rank reads a slice of the rows, the pixel counts are summed over the ranks (so every rank
// builds the same plan), and the rows travel to the partitions that need them in one
// MPI_Alltoallv: no rank reads the whole catalog.
#include "distribute.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <unordered_map>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"

namespace celeris::xmatch::mpi {

namespace hp = celeris::healpix;

namespace {

// One row in flight: position and global row number.
struct Record {
  double ra, dec;
  int64_t row;
};
static_assert(sizeof(Record) == 24, "Record is sent as 24 raw bytes");

// Partition k holds the left rows at cuts [begin[k], end[k]) (empty parts have none).
class Parts {
 public:
  Parts(const ChunkPlan& plan, const std::vector<size_t>& bounds) {
    for (size_t k = 0; k + 1 < bounds.size(); ++k)
      if (bounds[k] < bounds[k + 1]) {
        part_.push_back(int(k));
        begin_.push_back(plan.chunks[bounds[k]].begin);
      }
  }
  // The partition of a left row's cut (cuts are covered by the plan, so one always exists).
  int of(ChunkCut c) const {
    const auto it =
        std::upper_bound(begin_.begin(), begin_.end(), c,
                         [](const ChunkCut& x, const ChunkCut& b) { return !(b <= x); });
    return part_[size_t(it - begin_.begin()) - 1];
  }

 private:
  std::vector<int> part_;
  std::vector<ChunkCut> begin_;
};

// Records to every rank, packed by destination, then exchanged. `dest(k, out)` lists the
// destinations of local row k.
template <class Dest>
std::vector<Record> alltoall(const Session& s, const Slice& slice, Dest dest) {
  const size_t n = slice.points.size();
  std::vector<int> to;
  std::vector<uint64_t> count(size_t(s.size()), 0);
  for (size_t k = 0; k < n; ++k) {
    to.clear();
    dest(k, to);
    for (int r : to) ++count[size_t(r)];
  }
  std::vector<uint64_t> offset(size_t(s.size()) + 1, 0);
  for (int r = 0; r < s.size(); ++r) offset[size_t(r) + 1] = offset[size_t(r)] + count[size_t(r)];
  std::vector<Record> send(offset.back());
  std::vector<uint64_t> at(offset.begin(), offset.end() - 1);
  for (size_t k = 0; k < n; ++k) {
    to.clear();
    dest(k, to);
    for (int r : to)
      send[at[size_t(r)]++] =
          Record{slice.points.ra[k], slice.points.dec[k], int64_t(slice.first + k)};
  }
  std::vector<uint64_t> rcount(size_t(s.size()), 0);
  MPI_Alltoall(count.data(), 1, MPI_UINT64_T, rcount.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  std::vector<int> sc(size_t(s.size())), sd(size_t(s.size())), rc(size_t(s.size())),
      rd(size_t(s.size()));
  uint64_t rtotal = 0;
  for (int r = 0; r < s.size(); ++r) {
    // MPI counts and displacements are ints (in records of 24 B): 2^31 records, 48 GiB.
    if (offset[size_t(r) + 1] > uint64_t(INT_MAX) || rtotal + rcount[size_t(r)] > uint64_t(INT_MAX))
      throw Error("a rank would exchange more than 2^31 rows: use more ranks");
    sc[size_t(r)] = int(count[size_t(r)]);
    sd[size_t(r)] = int(offset[size_t(r)]);
    rc[size_t(r)] = int(rcount[size_t(r)]);
    rd[size_t(r)] = int(rtotal);
    rtotal += rcount[size_t(r)];
  }
  std::vector<Record> recv(rtotal);
  MPI_Datatype record;
  MPI_Type_contiguous(int(sizeof(Record)), MPI_BYTE, &record);
  MPI_Type_commit(&record);
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), record, recv.data(), rc.data(), rd.data(),
                record, MPI_COMM_WORLD);
  MPI_Type_free(&record);
  // Senders' slices are in rank order and each sender packs its rows in row order, so the
  // records arrive sorted by global row.
  return recv;
}

void unpack(const std::vector<Record>& recs, SkyPoints& pts, std::vector<int64_t>& rows) {
  pts.ra.resize(recs.size());
  pts.dec.resize(recs.size());
  rows.resize(recs.size());
  for (size_t k = 0; k < recs.size(); ++k) {
    pts.ra[k] = recs[k].ra;
    pts.dec[k] = recs[k].dec;
    rows[k] = recs[k].row;
  }
}

}  // namespace

Slice read_slice(const PositionSource& src, int rank, int size) {
  const size_t n = src.rows();
  const size_t first = size_t(uint64_t(n) * uint64_t(rank) / uint64_t(size));
  const size_t last = size_t(uint64_t(n) * uint64_t(rank + 1) / uint64_t(size));
  Slice s;
  s.first = first;
  s.points.ra.reserve(last - first);
  s.points.dec.reserve(last - first);
  src.scan_rows(first, last - first, [&](size_t, const double* ra, const double* dec, size_t c) {
    s.points.ra.insert(s.points.ra.end(), ra, ra + c);
    s.points.dec.insert(s.points.dec.end(), dec, dec + c);
  });
  if (s.points.size() != last - first) throw Error("read fewer rows than the table holds");
  return s;
}

std::vector<uint64_t> slice_counts(Slice& slice, int order) {
  const size_t n = slice.points.size();
  slice.pix.resize(n);
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < int64_t(n); ++k) {
    const double ra = slice.points.ra[size_t(k)], dec = slice.points.dec[size_t(k)];
    slice.pix[size_t(k)] = hp::radec2pix_nest(order, ra, dec);
  }
  std::vector<uint64_t> c(size_t(hp::npix(order)), 0);
  for (int64_t p : slice.pix) ++c[size_t(p)];
  return c;
}

PixelCounts sum_counts(const std::vector<uint64_t>& mine) {
  PixelCounts c;
  c.total.assign(mine.size(), 0);
  c.before.assign(mine.size(), 0);
  MPI_Allreduce(mine.data(), c.total.data(), int(mine.size()), MPI_UINT64_T, MPI_SUM,
                MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Exscan(mine.data(), c.before.data(), int(mine.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::fill(c.before.begin(), c.before.end(), 0);  // undefined on rank 0
  return c;
}

PartitionRows exchange_rows(const Session& s, const ChunkPlan& plan,
                            const std::vector<size_t>& bounds, const Slice& left,
                            const std::vector<uint64_t>& left_before, const Slice* right) {
  const Parts parts(plan, bounds);
  // Right rows: every partition holding left rows in the row's pixel or a neighbour. The left
  // rows of pixel q span the partitions of its first and last cut (contiguous runs).
  std::unordered_map<int64_t, std::vector<int>> owners;
  auto owners_of = [&](int64_t p) -> const std::vector<int>& {
    auto it = owners.find(p);
    if (it != owners.end()) return it->second;
    std::vector<int> o;
    int64_t nb[9];
    const int nnb = pixel_and_neighbours(plan.order, p, nb);
    for (int a = 0; a < nnb; ++a) {
      const uint64_t n = plan.left_counts[size_t(nb[a])];
      if (n == 0) continue;
      const int lo = parts.of(ChunkCut{nb[a], 0}), hi = parts.of(ChunkCut{nb[a], n - 1});
      for (int k = lo; k <= hi; ++k) o.push_back(k);
    }
    std::sort(o.begin(), o.end());
    o.erase(std::unique(o.begin(), o.end()), o.end());
    return owners.emplace(p, std::move(o)).first->second;
  };
  const Slice& rs = right ? *right : left;
  PartitionRows out;
  unpack(alltoall(s, rs,
                  [&](size_t k, std::vector<int>& to) {
                    const auto& o = owners_of(rs.pix[k]);
                    to.insert(to.end(), o.begin(), o.end());
                  }),
         out.right, out.right_rows);

  if (!right) {
    // Self-match: the left rows are among the right rows received (a partition receives every
    // row of each pixel that holds its left rows), so they are neither sent nor held twice:
    // PartitionRows::left_in_right names them (4 B a row). Rows arrive in global row order, so a
    // row's rank in its pixel is the number of its pixel's rows received before it; the left
    // rows are those whose (pixel, rank) cut lies in this partition.
    if (out.right.size() > size_t(UINT32_MAX))
      throw Error("a partition of more than 2^32 rows: use more ranks");
    const size_t first = bounds[size_t(s.rank())], last = bounds[size_t(s.rank()) + 1];
    if (first >= last) return out;
    const ChunkCut begin = plan.chunks[first].begin, end = plan.chunks[last - 1].end;
    const size_t n = out.right.size();
    std::vector<int64_t> pix(n);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < int64_t(n); ++k)
      pix[size_t(k)] =
          hp::radec2pix_nest(plan.order, out.right.ra[size_t(k)], out.right.dec[size_t(k)]);
    uint64_t mine = 0;
    for (size_t c = first; c < last; ++c) mine += plan.chunks[c].left_rows;
    out.left_in_right.reserve(mine);
    std::vector<uint64_t> seen(plan.left_counts.size(), 0);
    for (size_t k = 0; k < n; ++k) {
      const ChunkCut at{pix[k], seen[size_t(pix[k])]++};
      if (begin <= at && !(end <= at)) out.left_in_right.push_back(uint32_t(k));
    }
    return out;
  }

  // Two catalogs: each left row goes to the partition of its (pixel, rank among the pixel's left
  // rows in row order) cut.
  std::vector<uint64_t> seen(left_before);
  std::vector<int> left_part(left.points.size());
  for (size_t k = 0; k < left.points.size(); ++k) {
    const int64_t p = left.pix[k];
    left_part[k] = parts.of(ChunkCut{p, seen[size_t(p)]++});
  }
  unpack(alltoall(s, left, [&](size_t k, std::vector<int>& to) { to.push_back(left_part[k]); }),
         out.left, out.left_rows);
  return out;
}

}  // namespace celeris::xmatch::mpi
