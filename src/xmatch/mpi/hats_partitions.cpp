// The MPI match of HATS catalogs by partitions (hats_partitions.hpp). Why it is exact: every left
// row x lies in one of this rank's left partitions (checked). A right row y within the radius of
// x is either in the right partition Q holding x's position, which this rank reads whole, or
// outside Q within the radius of it, hence in Q's margin file (threshold >= radius). Where no
// right partition holds x (a hole in the right catalog's coverage), y lies in x's coarse pixel or
// one of its 8 neighbours (pixels at least one radius wide), and the right partitions meeting
// those are read whole. Each pair is found by the rank of its left row only, so the union of the
// ranks' pairs is the single-process pair set, each pair once.
#include "hats_partitions.hpp"

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <map>
#include <tuple>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "parquet_file.hpp"

namespace celeris::xmatch::mpi {

namespace hp = celeris::healpix;

namespace {

constexpr int max_order = 29;

int64_t first29(const HatsPartition& p) {
  return p.pix << (2 * (max_order - p.order));
}
int64_t end29(const HatsPartition& p) {
  return (p.pix + 1) << (2 * (max_order - p.order));
}

bool same_name(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// RA/Dec of one Parquet file appended to `out`, validated; the file's own spelling of the names.
size_t read_positions(const std::string& file, const std::string& ra, const std::string& dec,
                      SkyPoints& out) {
  const parquet_file::File f(file);
  const Table schema = f.schema();
  std::string r, d;
  for (const Column& c : schema.columns) {
    if (same_name(c.name, ra)) r = c.name;
    if (same_name(c.name, dec)) d = c.name;
  }
  if (r.empty() || d.empty()) throw Error(file + ": no numeric column " + (r.empty() ? ra : dec));
  Table t;
  f.read({r, d}, t);
  const double* a = t.columns[0].values.data();
  const double* b = t.columns[1].values.data();
  for (size_t k = 0; k < t.rows; ++k) check_sky_position(a[k], b[k], k, file, r, d);
  out.ra.insert(out.ra.end(), a, a + t.rows);
  out.dec.insert(out.dec.end(), b, b + t.rows);
  return t.rows;
}

// The partition of `parts` (sky order, disjoint) holding order-29 pixel x; parts.size() if none.
size_t holding(const std::vector<HatsPartition>& parts, int64_t x) {
  auto it = std::upper_bound(parts.begin(), parts.end(), x,
                             [](int64_t v, const HatsPartition& p) { return v < first29(p); });
  if (it == parts.begin()) return parts.size();
  --it;
  return x < end29(*it) ? size_t(it - parts.begin()) : parts.size();
}

// Partitions of `parts` meeting order-29 pixels [a, b), appended to `out`; returns the pixels
// of [a, b) they cover.
int64_t meeting(const std::vector<HatsPartition>& parts, int64_t a, int64_t b,
                std::vector<size_t>& out) {
  auto it = std::upper_bound(parts.begin(), parts.end(), a,
                             [](int64_t v, const HatsPartition& p) { return v < first29(p); });
  if (it != parts.begin() && end29(*(it - 1)) > a) --it;
  int64_t covered = 0;
  for (; it != parts.end() && first29(*it) < b; ++it) {
    out.push_back(size_t(it - parts.begin()));
    covered += std::min(b, end29(*it)) - std::max(a, first29(*it));
  }
  return covered;
}

// A margin row's catalog row is asked of its partition's owner by exact position. `file` numbers
// the asking rank's margin files: a row may sit in the margins of several partitions, and each
// margin file's copies of one position are handed distinct rows, in turn.
struct Lookup {
  double ra, dec;
  int32_t part, file;
};
static_assert(sizeof(Lookup) == 24, "Lookup is sent as 24 raw bytes");

// Lists to every rank, lists from every rank (one MPI_Alltoallv of raw records).
template <class T>
std::vector<std::vector<T>> alltoall_lists(const std::vector<std::vector<T>>& out) {
  const size_t ranks = out.size();
  const int n = int(ranks);
  std::vector<uint64_t> count(ranks), rcount(ranks);
  for (int r = 0; r < n; ++r) count[size_t(r)] = out[size_t(r)].size();
  MPI_Alltoall(count.data(), 1, MPI_UINT64_T, rcount.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  std::vector<int> sc(ranks), sd(ranks), rc(ranks), rd(ranks);
  std::vector<T> send, recv;
  uint64_t s = 0, t = 0;
  for (int r = 0; r < n; ++r) {
    // Both totals are far below 2^31 records: only margin rows outside a rank's partitions move
    // (read() refuses more).
    sc[size_t(r)] = int(count[size_t(r)]);
    sd[size_t(r)] = int(s);
    rc[size_t(r)] = int(rcount[size_t(r)]);
    rd[size_t(r)] = int(t);
    s += count[size_t(r)];
    t += rcount[size_t(r)];
    send.insert(send.end(), out[size_t(r)].begin(), out[size_t(r)].end());
  }
  recv.resize(t);
  MPI_Datatype type;
  MPI_Type_contiguous(int(sizeof(T)), MPI_BYTE, &type);
  MPI_Type_commit(&type);
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), type, recv.data(), rc.data(), rd.data(), type,
                MPI_COMM_WORLD);
  MPI_Type_free(&type);
  std::vector<std::vector<T>> in(ranks);
  for (int r = 0; r < n; ++r)
    in[size_t(r)].assign(recv.begin() + rd[size_t(r)],
                         recv.begin() + rd[size_t(r)] + rc[size_t(r)]);
  return in;
}

// One right partition's rows by exact position (bits of RA and Dec), for margin lookups.
struct PositionIndex {
  struct Entry {
    uint64_t ra, dec;
    int64_t row;
    bool operator<(const Entry& o) const {
      return std::tie(ra, dec, row) < std::tie(o.ra, o.dec, o.row);
    }
  };
  std::vector<Entry> entries;
  static uint64_t bits(double v) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
  PositionIndex(const double* ra, const double* dec, size_t n, int64_t first_row) {
    entries.resize(n);
    for (size_t k = 0; k < n; ++k)
      entries[k] = Entry{bits(ra[k]), bits(dec[k]), first_row + int64_t(k)};
    std::sort(entries.begin(), entries.end());
  }
  // The catalog row of the `used[...]`-th row at this exact position (rows at one position are
  // handed out in turn, so duplicates map to distinct rows); -1 when there is none left.
  int64_t find(double ra, double dec, std::map<size_t, uint32_t>& used) const {
    const Entry key{bits(ra), bits(dec), INT64_MIN};
    const auto lo = std::lower_bound(entries.begin(), entries.end(), key);
    size_t at = size_t(lo - entries.begin());
    const uint32_t k = used[at]++;
    at += k;
    if (at >= entries.size() || entries[at].ra != key.ra || entries[at].dec != key.dec) return -1;
    return entries[at].row;
  }
};

std::string partition_name(const HatsPartition& p) {
  return "Norder=" + std::to_string(p.order) + " Npix=" + std::to_string(p.pix);
}

}  // namespace

std::optional<HatsInputs> hats_partition_inputs(const Match& m, const Options& o,
                                                std::string& why_not) {
  why_not.clear();
  const bool lh = is_hats_catalog(m.left_path);
  const bool rh = !m.self && is_hats_catalog(m.right_path);
  if ((!lh && !rh) || !parquet_available()) return std::nullopt;
  auto refuse = [&](const std::string& why) {
    why_not = why;
    return std::nullopt;
  };
  if (!lh) return refuse(m.left_path + " is not a HATS catalog");
  if (!m.self && !rh) return refuse(m.right_path + " is not a HATS catalog");
  if (m.memory > 0) return refuse("--memory bounds the chunks of the row exchange");
  const std::string& rpath = m.self ? m.left_path : m.right_path;
  std::optional<HatsMargin> margin = find_hats_margin(rpath);
  if (!margin) return refuse(rpath + " has no margin cache");
  if (margin->threshold_arcsec < o.radius_arcsec)
    return refuse("the margin cache " + margin->path + " holds " +
                  std::to_string(margin->threshold_arcsec) + " arcsec, less than the radius (" +
                  std::to_string(o.radius_arcsec) + " arcsec)");
  HatsInputs in;
  in.self = m.self;
  in.margin = std::move(*margin);
  in.left = open_hats(m.left_path);
  in.right = m.self ? in.left : open_hats(m.right_path);
  std::tie(in.ra1, in.dec1) =
      find_radec_columns(hats_schema(m.left_path), m.ra1, m.dec1, m.left_path);
  if (is_galactic(m.frame1, in.ra1, in.dec1))
    return refuse("Galactic positions are rotated to ICRS, the partitions are not");
  if (m.self) {
    in.ra2 = in.ra1;
    in.dec2 = in.dec1;
  } else {
    std::tie(in.ra2, in.dec2) =
        find_radec_columns(hats_schema(m.right_path), m.ra2, m.dec2, m.right_path);
    if (is_galactic(m.frame2, in.ra2, in.dec2))
      return refuse("Galactic positions are rotated to ICRS, the partitions are not");
  }
  // A margin partition must be one of the catalog's: the margin of partition Q is looked up at
  // Q's own pixel, so a margin cut on other pixels would be missed.
  for (const HatsPartition& p : in.margin.partitions) {
    const size_t k = holding(in.right.partitions, first29(p));
    if (k == in.right.partitions.size() || in.right.partitions[k].order != p.order)
      return refuse("the margin cache " + in.margin.path + " has partition " + partition_name(p) +
                    ", not one of its catalog's");
  }
  return in;
}

struct HatsPartitions::Impl {
  HatsInputs in;
  Options options;
  int rank = 0, size = 1;
  int order = 0;  // coarse order: pixels at least one radius wide
  // Catalog row of each partition's first row (footers), and its rows; right == left when self.
  std::vector<int64_t> lfirst, lrows, rfirst, rrows;
  std::vector<size_t> bounds;       // this rank: left partitions [bounds[rank], bounds[rank + 1])
  std::vector<int64_t> owner_from;  // rank r owns right partitions starting in
                                    // [owner_from[r], owner_from[r + 1]) (order-29 pixels)
  // Rows held.
  SkyPoints left;
  std::vector<size_t> unit_begin;  // left rows of partition bounds[rank] + k: unit_begin[k..k+1)
  SkyPoints right;
  std::vector<int64_t> right_rows;  // catalog rows; -1 while a margin row is unresolved
  std::vector<size_t> full;         // right partitions read whole, ascending
  std::vector<size_t> full_begin;   // their rows in `right`: [full_begin[k], full_begin[k + 1])
  std::map<size_t, PositionIndex> index;  // right partitions indexed for lookups
  std::vector<std::vector<Lookup>> out, in_lookups;
  std::vector<std::vector<size_t>> out_rows;  // the local right row of each outgoing lookup
  std::vector<std::vector<int64_t>> answers, back;
  bool ok = true;
  std::string why_not;
  // Coarse buckets of the right rows (after resolve).
  std::vector<uint64_t> start;
  std::vector<uint32_t> bucket;
  std::vector<uint32_t> stamp;
  uint32_t mark = 0;

  int owner(int64_t x) const {
    return int(std::upper_bound(owner_from.begin(), owner_from.end() - 1, x) - owner_from.begin()) -
           1;
  }
  void fail(const std::string& why) {
    if (ok) why_not = why;
    ok = false;
  }
  // The coarse pixels of left partition p.
  std::pair<int64_t, int64_t> coarse_range(const HatsPartition& p) const {
    if (p.order >= order) {
      const int64_t q = p.pix >> (2 * (p.order - order));
      return {q, q + 1};
    }
    const int s = 2 * (order - p.order);
    return {p.pix << s, (p.pix + 1) << s};
  }
  const PositionIndex& indexed(size_t part) {
    auto it = index.find(part);
    if (it != index.end()) return it->second;
    const auto f = std::lower_bound(full.begin(), full.end(), part);
    if (f != full.end() && *f == part) {
      const size_t k = size_t(f - full.begin()), b = full_begin[k], e = full_begin[k + 1];
      return index
          .emplace(part,
                   PositionIndex(right.ra.data() + b, right.dec.data() + b, e - b, rfirst[part]))
          .first->second;
    }
    // Not read here: read its positions for the lookups only.
    SkyPoints pts;
    for (const std::string& file : in.right.partitions[part].files)
      read_positions(file, in.ra2, in.dec2, pts);
    if (int64_t(pts.size()) != rrows[part])
      throw Error(in.right.partitions[part].files.front() + ": row count differs from its footer");
    return index
        .emplace(part, PositionIndex(pts.ra.data(), pts.dec.data(), pts.size(), rfirst[part]))
        .first->second;
  }
};

HatsPartitions::HatsPartitions(const HatsInputs& inputs, const Options& o, int rank, int size)
    : impl_(new Impl) {
  Impl& m = *impl_;
  m.in = inputs;
  m.options = o;
  m.options.find = Find::All;
  m.options.join = Join::And;
  m.rank = rank;
  m.size = size;
  m.order = chunk_order(o);
  auto footers = [](const HatsCatalog& cat, std::vector<int64_t>& first,
                    std::vector<int64_t>& rows) {
    int64_t at = 0;
    for (const HatsPartition& p : cat.partitions) {
      int64_t n = 0;
      for (const std::string& f : p.files) n += int64_t(parquet_file::File(f).rows());
      first.push_back(at);
      rows.push_back(n);
      at += n;
    }
  };
  footers(m.in.left, m.lfirst, m.lrows);
  if (m.in.self) {
    m.rfirst = m.lfirst;
    m.rrows = m.lrows;
  } else {
    footers(m.in.right, m.rfirst, m.rrows);
  }
  if (left_rows() == 0) throw Error(m.in.left.path + ": empty table (no rows)");
  if (right_rows() == 0) throw Error(m.in.right.path + ": empty table (no rows)");
  // Contiguous runs of left partitions of nearly equal rows: rank r starts at the first
  // partition whose rows before it reach r/size of the total.
  const size_t n = m.in.left.partitions.size();
  const uint64_t total = left_rows();
  m.bounds.assign(size_t(size) + 1, n);
  m.bounds[0] = 0;
  for (int r = 1; r < size; ++r) {
    const uint64_t target = total * uint64_t(r) / uint64_t(size);
    size_t k = m.bounds[size_t(r) - 1];
    while (k < n && uint64_t(m.lfirst[k]) < target) ++k;
    m.bounds[size_t(r)] = k;
  }
  // Rank r owns the right partitions starting between its first left partition and the next
  // rank's (the whole sphere is covered: rank 0 from pixel 0).
  m.owner_from.assign(size_t(size) + 1, hp::npix(max_order));
  m.owner_from[0] = 0;
  for (int r = 1; r < size; ++r)
    m.owner_from[size_t(r)] = m.bounds[size_t(r)] < n
                                  ? first29(m.in.left.partitions[m.bounds[size_t(r)]])
                                  : hp::npix(max_order);
}

HatsPartitions::~HatsPartitions() = default;

size_t HatsPartitions::left_rows() const {
  return size_t(impl_->lfirst.empty() ? 0 : impl_->lfirst.back() + impl_->lrows.back());
}
size_t HatsPartitions::right_rows() const {
  return size_t(impl_->rfirst.empty() ? 0 : impl_->rfirst.back() + impl_->rrows.back());
}
size_t HatsPartitions::size() const {
  return impl_->bounds[size_t(impl_->rank) + 1] - impl_->bounds[size_t(impl_->rank)];
}
const std::string& HatsPartitions::why_not() const {
  return impl_->why_not;
}

std::string HatsPartitions::describe() const {
  const Impl& m = *impl_;
  std::string s = "partition " + std::to_string(m.rank + 1) + "/" + std::to_string(m.size) + ": ";
  const size_t b = m.bounds[size_t(m.rank)], e = m.bounds[size_t(m.rank) + 1];
  if (b >= e) return s + "no HATS partitions";
  return s + "HATS partitions " + partition_name(m.in.left.partitions[b]) + " to " +
         partition_name(m.in.left.partitions[e - 1]) + " of " + m.in.left.path;
}

void HatsPartitions::read() {
  Impl& m = *impl_;
  const auto& lparts = m.in.left.partitions;
  const auto& rparts = m.in.right.partitions;
  const size_t b = m.bounds[size_t(m.rank)], e = m.bounds[size_t(m.rank) + 1];
  // Left rows: this rank's partitions, each row checked inside its partition's pixel (the right
  // rows read below are those of the partitions meeting these pixels).
  m.unit_begin.push_back(0);
  for (size_t k = b; k < e; ++k) {
    const HatsPartition& p = lparts[k];
    const size_t at = m.left.size();
    for (const std::string& f : p.files) read_positions(f, m.in.ra1, m.in.dec1, m.left);
    if (int64_t(m.left.size() - at) != m.lrows[k])
      throw Error(p.files.front() + ": row count differs from its footer");
    for (size_t r = at; r < m.left.size(); ++r)
      if (hp::radec2pix_nest(p.order, m.left.ra[r], m.left.dec[r]) != p.pix) {
        m.fail("a row of " + p.files.front() + " lies outside its partition's pixel");
        break;
      }
    m.unit_begin.push_back(m.left.size());
  }
  // Right partitions: those meeting a left partition (read whole, with their margin files); where
  // they leave a hole, those meeting the hole's coarse pixels and their neighbours (whole).
  std::vector<size_t> meet, whole;
  for (size_t k = b; k < e; ++k) {
    const HatsPartition& p = lparts[k];
    if (meeting(rparts, first29(p), end29(p), meet) == end29(p) - first29(p)) continue;
    const auto [q0, q1] = m.coarse_range(p);
    const int shift = 2 * (max_order - m.order);
    for (int64_t q = q0; q < q1; ++q) {
      int64_t nb[9];
      const int nnb = pixel_and_neighbours(m.order, q, nb);
      for (int a = 0; a < nnb; ++a) meeting(rparts, nb[a] << shift, (nb[a] + 1) << shift, whole);
    }
  }
  std::sort(meet.begin(), meet.end());
  meet.erase(std::unique(meet.begin(), meet.end()), meet.end());
  m.full = meet;
  m.full.insert(m.full.end(), whole.begin(), whole.end());
  std::sort(m.full.begin(), m.full.end());
  m.full.erase(std::unique(m.full.begin(), m.full.end()), m.full.end());
  m.full_begin.push_back(0);
  for (size_t q : m.full) {
    const size_t at = m.right.size();
    if (m.in.self && q >= b && q < e) {
      // A self-match's own partitions are already held as left rows.
      const size_t u = q - b;
      m.right.ra.insert(m.right.ra.end(), m.left.ra.begin() + int64_t(m.unit_begin[u]),
                        m.left.ra.begin() + int64_t(m.unit_begin[u + 1]));
      m.right.dec.insert(m.right.dec.end(), m.left.dec.begin() + int64_t(m.unit_begin[u]),
                         m.left.dec.begin() + int64_t(m.unit_begin[u + 1]));
    } else {
      for (const std::string& f : rparts[q].files) read_positions(f, m.in.ra2, m.in.dec2, m.right);
    }
    if (int64_t(m.right.size() - at) != m.rrows[q])
      throw Error(rparts[q].files.front() + ": row count differs from its footer");
    for (int64_t r = 0; r < m.rrows[q]; ++r) m.right_rows.push_back(m.rfirst[q] + r);
    m.full_begin.push_back(m.right.size());
  }
  // Margin files of the partitions meeting this rank's left partitions. A margin row of a
  // partition held whole is a duplicate (checked to be there); the others are looked up.
  m.out.assign(size_t(m.size), {});
  m.out_rows.assign(size_t(m.size), {});
  const auto& mparts = m.in.margin.partitions;
  int32_t file = 0;
  for (size_t q : meet) {
    const size_t k = holding(mparts, first29(rparts[q]));
    if (k == mparts.size() || mparts[k].order != rparts[q].order) continue;  // empty margin
    if (!m.in.margin.missing[k].empty()) throw Error(m.in.margin.missing[k]);
    SkyPoints pts;
    for (const std::string& f : mparts[k].files) read_positions(f, m.in.ra2, m.in.dec2, pts);
    std::map<size_t, std::map<size_t, uint32_t>> used;  // per partition: positions handed out
    for (size_t r = 0; r < pts.size(); ++r) {
      const int64_t x = hp::radec2pix_nest(max_order, pts.ra[r], pts.dec[r]);
      const size_t src = holding(rparts, x);
      if (src == rparts.size() || src == q) {
        m.fail("a row of the margin cache " + mparts[k].files.front() +
               " lies in no other partition of " + m.in.right.path);
        continue;
      }
      if (std::binary_search(m.full.begin(), m.full.end(), src)) {
        if (m.indexed(src).find(pts.ra[r], pts.dec[r], used[src]) < 0)
          m.fail("a row of the margin cache " + mparts[k].files.front() +
                 " is not in its partition " + partition_name(rparts[src]));
        continue;
      }
      const int o = m.owner(first29(rparts[src]));
      m.out[size_t(o)].push_back(Lookup{pts.ra[r], pts.dec[r], int32_t(src), file});
      m.out_rows[size_t(o)].push_back(m.right.size());
      m.right.ra.push_back(pts.ra[r]);
      m.right.dec.push_back(pts.dec[r]);
      m.right_rows.push_back(-1);
    }
    ++file;
  }
  if (m.right.size() > size_t(UINT32_MAX) || m.left.size() > size_t(UINT32_MAX))
    throw Error("a partition of more than 2^32 rows: use more ranks");
}

void HatsPartitions::exchange_lookups() {
  impl_->in_lookups = alltoall_lists(impl_->out);
}

void HatsPartitions::answer() {
  Impl& m = *impl_;
  m.answers.assign(size_t(m.size), {});
  for (int r = 0; r < m.size; ++r) {
    // The duplicates of one position in one margin file get distinct rows, in turn.
    std::map<size_t, std::map<size_t, uint32_t>> used;
    int32_t file = -1;
    for (const Lookup& l : m.in_lookups[size_t(r)]) {
      if (l.file != file) used.clear();
      file = l.file;
      const size_t part = size_t(l.part);
      m.answers[size_t(r)].push_back(m.indexed(part).find(l.ra, l.dec, used[part]));
    }
  }
  m.in_lookups.clear();
}

void HatsPartitions::exchange_answers() {
  impl_->back = alltoall_lists(impl_->answers);
  impl_->answers.clear();
}

bool HatsPartitions::resolve() {
  Impl& m = *impl_;
  for (int r = 0; r < m.size; ++r)
    for (size_t k = 0; k < m.back[size_t(r)].size(); ++k) {
      const int64_t row = m.back[size_t(r)][k];
      if (row < 0)
        m.fail("a row of the margin cache " + m.in.margin.path + " is not in its partition");
      m.right_rows[m.out_rows[size_t(r)][k]] = row;
    }
  m.back.clear();
  m.out.clear();
  m.out_rows.clear();
  m.index.clear();
  if (!m.ok) return false;
  // The right rows in catalog row order, each once (a row may come from several margin files).
  std::vector<uint32_t> order(m.right.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = uint32_t(k);
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return m.right_rows[a] < m.right_rows[b]; });
  SkyPoints pts;
  std::vector<int64_t> rows;
  for (uint32_t k : order) {
    if (!rows.empty() && rows.back() == m.right_rows[k]) continue;
    rows.push_back(m.right_rows[k]);
    pts.ra.push_back(m.right.ra[k]);
    pts.dec.push_back(m.right.dec[k]);
  }
  m.right = std::move(pts);
  m.right_rows = std::move(rows);
  // Bucket the right rows by coarse pixel (a counting sort keeps each pixel's rows in row order).
  const int64_t npix = hp::npix(m.order);
  std::vector<int32_t> pix(m.right.size());
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < int64_t(pix.size()); ++k)
    pix[size_t(k)] =
        int32_t(hp::radec2pix_nest(m.order, m.right.ra[size_t(k)], m.right.dec[size_t(k)]));
  m.start.assign(size_t(npix) + 1, 0);
  for (int32_t p : pix) ++m.start[size_t(p) + 1];
  for (int64_t p = 0; p < npix; ++p) m.start[size_t(p) + 1] += m.start[size_t(p)];
  std::vector<uint64_t> next(m.start.begin(), m.start.end() - 1);
  m.bucket.resize(pix.size());
  for (size_t k = 0; k < pix.size(); ++k) m.bucket[next[size_t(pix[k])]++] = uint32_t(k);
  m.stamp.assign(size_t(npix), 0);
  return true;
}

std::vector<Pair> HatsPartitions::match(size_t k) {
  Impl& m = *impl_;
  if (k >= size()) throw Error("HatsPartitions: partition index out of range");
  const size_t part = m.bounds[size_t(m.rank)] + k;
  const HatsPartition& p = m.in.left.partitions[part];
  const size_t lb = m.unit_begin[k], le = m.unit_begin[k + 1];
  if (lb == le) return {};
  // Right rows of the partition's coarse pixels and their neighbours: every right row within
  // the radius of its rows.
  ++m.mark;
  std::vector<uint32_t> ri;
  const auto [q0, q1] = m.coarse_range(p);
  for (int64_t q = q0; q < q1; ++q) {
    int64_t nb[9];
    const int nnb = pixel_and_neighbours(m.order, q, nb);
    for (int a = 0; a < nnb; ++a) {
      if (m.stamp[size_t(nb[a])] == m.mark) continue;
      m.stamp[size_t(nb[a])] = m.mark;
      ri.insert(ri.end(), m.bucket.begin() + int64_t(m.start[size_t(nb[a])]),
                m.bucket.begin() + int64_t(m.start[size_t(nb[a]) + 1]));
    }
  }
  std::sort(ri.begin(), ri.end());  // catalog row order: the pairs come out sorted by (i, j)
  SkyPoints lp, rp;
  lp.ra.assign(m.left.ra.begin() + int64_t(lb), m.left.ra.begin() + int64_t(le));
  lp.dec.assign(m.left.dec.begin() + int64_t(lb), m.left.dec.begin() + int64_t(le));
  rp.ra.resize(ri.size());
  rp.dec.resize(ri.size());
  for (size_t n = 0; n < ri.size(); ++n) {
    rp.ra[n] = m.right.ra[ri[n]];
    rp.dec[n] = m.right.dec[ri[n]];
  }
  std::vector<Pair> pairs = match_pairs(lp, rp, m.options);
  size_t kept = 0;
  for (const Pair& q : pairs) {
    const int64_t i = m.lfirst[part] + q.i;
    const int64_t j = m.right_rows[ri[size_t(q.j)]];
    if (!m.in.self || j > i) pairs[kept++] = Pair{i, j, q.sep_arcsec};
  }
  pairs.resize(kept);
  return pairs;
}

}  // namespace celeris::xmatch::mpi
