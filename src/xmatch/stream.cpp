// Larger than memory, end to end (streamed_crossmatch): the inputs are never loaded whole and the
// pairs never held whole. Chunks of pairs (each sorted by (i, j)) are spilled to a temporary file
// as runs and merged back in (i, j) order; find and join run on the merged stream, and the output
// table is written in blocks whose input rows are read from the FITS files as needed.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/table.hpp"
#include "celeris/xmatch.hpp"
#include "celeris/xmatch_hats.hpp"
#include "csv.hpp"
#include "pair_order.hpp"
#include "text_catalogs.hpp"

namespace celeris::xmatch {

namespace {

using order::by_i_then_closer;
using order::by_ij;
using order::by_j_then_closer;
using order::closer;
using PairLess = bool (*)(const Pair&, const Pair&);

// A file removed when this goes out of scope (if a path was set).
struct TemporaryFile {
  std::string path;
  TemporaryFile() = default;
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};

// Sorted runs of pairs in a temporary file (removed on destruction).
class PairSpill {
 public:
  struct Run {
    size_t first, count;  // in pairs
  };
  explicit PairSpill(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd_ < 0) throw Error(path_ + ": cannot create (" + std::strerror(errno) + ")");
  }
  ~PairSpill() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  PairSpill(const PairSpill&) = delete;
  PairSpill& operator=(const PairSpill&) = delete;

  void add_run(const std::vector<Pair>& pairs) {
    if (pairs.empty()) return;
    const char* p = reinterpret_cast<const char*>(pairs.data());
    size_t left = pairs.size() * sizeof(Pair);
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw Error(path_ + ": write failed (" + std::strerror(errno) + ")");
      p += n;
      left -= size_t(n);
    }
    runs_.push_back(Run{total_, pairs.size()});
    total_ += pairs.size();
  }
  void read(size_t first, size_t count, Pair* out) const {
    char* p = reinterpret_cast<char*>(out);
    size_t left = count * sizeof(Pair);
    off_t at = off_t(first * sizeof(Pair));
    while (left > 0) {
      const ssize_t n = ::pread(fd_, p, left, at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw Error(path_ + ": read failed");
      p += n;
      at += n;
      left -= size_t(n);
    }
  }
  const std::vector<Run>& runs() const { return runs_; }
  size_t total() const { return total_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<Run> runs_;
  size_t total_ = 0;
};

// A stream of pairs (sorted by (i, j) unless said otherwise).
class PairStream {
 public:
  virtual ~PairStream() = default;
  virtual bool next(Pair& p) = 0;
};

// k-way merge of the spilled runs (each sorted by `less`), each read through a buffer.
class MergeStream final : public PairStream {
 public:
  MergeStream(const PairSpill& spill, size_t buffer_bytes, PairLess less = by_ij)
      : spill_(spill), heap_(Later{&cursors_, less}) {
    const size_t nruns = std::max<size_t>(spill.runs().size(), 1);
    per_run_ = std::max<size_t>(64, buffer_bytes / sizeof(Pair) / nruns);
    cursors_.resize(spill.runs().size());
    for (size_t r = 0; r < cursors_.size(); ++r) {
      cursors_[r].next = spill.runs()[r].first;
      cursors_[r].end = spill.runs()[r].first + spill.runs()[r].count;
      if (refill(cursors_[r])) heap_.push(r);
    }
  }
  bool next(Pair& p) override {
    if (heap_.empty()) return false;
    const size_t r = heap_.top();
    heap_.pop();
    Cursor& c = cursors_[r];
    p = c.buf[c.pos++];
    if (c.pos < c.buf.size() || refill(c)) heap_.push(r);
    return true;
  }

 private:
  struct Cursor {
    size_t next = 0, end = 0;  // pairs of the run still in the file
    std::vector<Pair> buf;
    size_t pos = 0;
  };
  bool refill(Cursor& c) {
    const size_t n = std::min(per_run_, c.end - c.next);
    c.buf.resize(n);
    c.pos = 0;
    if (n == 0) {
      c.buf.shrink_to_fit();
      return false;
    }
    spill_.read(c.next, n, c.buf.data());
    c.next += n;
    return true;
  }
  struct Later {
    const std::vector<Cursor>* cs;
    PairLess less;
    bool operator()(size_t a, size_t b) const {
      return less((*cs)[b].buf[(*cs)[b].pos], (*cs)[a].buf[(*cs)[a].pos]);
    }
  };
  const PairSpill& spill_;
  size_t per_run_ = 64;
  std::vector<Cursor> cursors_;
  std::priority_queue<size_t, std::vector<size_t>, Later> heap_;
};

// An external sort: pairs added in any order come back sorted by `less`, holding at most
// `run_bytes` of them in memory (sorted runs spilled to a temporary file, then merged).
class SortedSpill {
 public:
  SortedSpill(std::string path, size_t run_bytes, PairLess less)
      : spill_(std::move(path)),
        run_pairs_(std::max<size_t>(1024, run_bytes / sizeof(Pair))),
        less_(less) {}
  void add(const Pair& p) {
    buf_.push_back(p);
    if (buf_.size() >= run_pairs_) flush();
  }
  // Ends the input; the stream can be opened again (each one reads the file from the start).
  std::unique_ptr<PairStream> stream(size_t merge_bytes) {
    flush();
    std::vector<Pair>().swap(buf_);
    return std::make_unique<MergeStream>(spill_, merge_bytes, less_);
  }
  size_t total() const { return spill_.total() + buf_.size(); }

 private:
  void flush() {
    std::sort(buf_.begin(), buf_.end(), less_);
    spill_.add_run(buf_);
    buf_.clear();
  }
  PairSpill spill_;
  size_t run_pairs_;
  PairLess less_;
  std::vector<Pair> buf_;
};

// find best1 on a stream: the nearest pair of every left row (ties: smaller j), as select_pairs.
class Best1Stream final : public PairStream {
 public:
  explicit Best1Stream(std::unique_ptr<PairStream> in) : in_(std::move(in)) {
    have_ = in_->next(ahead_);
  }
  bool next(Pair& p) override {
    if (!have_) return false;
    Pair best = ahead_;
    while ((have_ = in_->next(ahead_)) && ahead_.i == best.i)
      if (ahead_.sep_arcsec < best.sep_arcsec) best = ahead_;  // equal: the earlier (smaller j)
    p = best;
    return true;
  }

 private:
  std::unique_ptr<PairStream> in_;
  Pair ahead_{};
  bool have_ = false;
};

// Rows `wanted` (sorted, distinct) of a FITS table, read in runs of nearby rows (a gap of a few
// rows is cheaper to read through than to seek over).
Table fetch_rows(const FitsTableReader& reader, const std::vector<int64_t>& wanted) {
  constexpr int64_t kGap = 16, kMaxRun = 4096;
  const Table& schema = reader.schema();
  Table out;
  out.rows = wanted.size();
  for (const Column& c : schema.columns) {
    Column o = c;
    o.values.resize(wanted.size() * size_t(c.repeat));
    out.columns.push_back(std::move(o));
  }
  Table run;
  for (size_t a = 0; a < wanted.size();) {
    size_t b = a;
    while (b + 1 < wanted.size() && wanted[b + 1] - wanted[b] <= kGap &&
           wanted[b + 1] - wanted[a] < kMaxRun)
      ++b;
    const int64_t first = wanted[a];
    reader.read(size_t(first), size_t(wanted[b] - first + 1), run);
    for (size_t c = 0; c < out.columns.size(); ++c) {
      const size_t rep = size_t(out.columns[c].repeat);
      for (size_t k = a; k <= b; ++k)
        std::copy_n(run.columns[c].values.begin() + std::ptrdiff_t(size_t(wanted[k] - first) * rep),
                    rep, out.columns[c].values.begin() + std::ptrdiff_t(k * rep));
    }
    a = b + 1;
  }
  return out;
}

// A FITS table's rows by number (fetch_rows on a FitsTableReader).
class FitsRows final : public RowFetcher {
 public:
  explicit FitsRows(const std::string& path) : own_(std::make_unique<FitsTableReader>(path)) {
    reader_ = own_.get();
  }
  explicit FitsRows(const FitsTableReader& reader) : reader_(&reader) {}
  const Table& schema() const override { return reader_->schema(); }
  Table fetch(const std::vector<int64_t>& wanted) const override {
    return fetch_rows(*reader_, wanted);
  }

 private:
  std::unique_ptr<FitsTableReader> own_;
  const FitsTableReader* reader_;
};

// Output rows collected in blocks; each block's input rows are read and joined_table'd.
class BlockWriter {
 public:
  BlockWriter(const RowFetcher& left, const RowFetcher& right, Join join, bool blank1, bool blank2,
              CatalogWriter& out, size_t block_rows)
      : left_(left),
        right_(right),
        join_(join),
        blank1_(blank1),
        blank2_(blank2),
        out_(out),
        block_rows_(block_rows) {}
  void add(const Pair& p) {
    rows_.push_back(p);
    if (rows_.size() >= block_rows_) flush();
  }
  void flush() {
    if (rows_.empty()) return;
    std::vector<int64_t> wi, wj;
    for (const Pair& p : rows_) {
      if (p.i >= 0) wi.push_back(p.i);
      if (p.j >= 0) wj.push_back(p.j);
    }
    for (auto* w : {&wi, &wj}) {
      std::sort(w->begin(), w->end());
      w->erase(std::unique(w->begin(), w->end()), w->end());
    }
    const Table lt = left_.fetch(wi), rt = right_.fetch(wj);
    auto local = [](const std::vector<int64_t>& w, int64_t r) {
      return r < 0 ? r : int64_t(std::lower_bound(w.begin(), w.end(), r) - w.begin());
    };
    for (Pair& p : rows_) {
      p.i = local(wi, p.i);
      p.j = local(wj, p.j);
    }
    out_.append(joined_table(lt, rt, rows_, join_, blank1_, blank2_));
    written_ += rows_.size();
    rows_.clear();
  }
  size_t written() const { return written_; }

 private:
  const RowFetcher& left_;
  const RowFetcher& right_;
  Join join_;
  bool blank1_, blank2_;
  CatalogWriter& out_;
  size_t block_rows_;
  std::vector<Pair> rows_;
  size_t written_ = 0;
};

size_t output_row_bytes(const Table& schema) {
  size_t b = 0;
  for (const Column& c : schema.columns) b += 8 * size_t(c.repeat);
  return b;
}

}  // namespace

StreamedCounts streamed_crossmatch(const StreamedMatch& files, const Options& o,
                                   size_t memory_bytes,
                                   const std::function<void(size_t, size_t)>& progress) {
  const bool self = files.self;
  if (self && o.join != Join::And && o.join != Join::All1 && o.join != Join::Not2)
    throw Error("a self-match supports --join 1and2, all1 or 1not2 only");
  // CSV inputs are first converted, block by block, to temporary FITS tables next to the output
  // (their positions validated on the way, errors naming the CSV file).
  for (const std::string& in : {files.left_path, files.right_path})
    if (is_hats_catalog(in))
      throw Error(in +
                  ": --memory streams FITS and CSV inputs only (this is a HATS catalog; drop "
                  "--memory, or count the pairs with --count --memory)");
  for (const std::string& in : {files.left_path, files.right_path})
    if (!in.empty() && in.find('[') == std::string::npos && (is_votable(in) || is_ascii_head(in)))
      throw Error(in + ": --memory streams FITS and CSV inputs only (this is a " +
                  (is_votable(in) ? "VOTable" : "SExtractor ASCII_HEAD catalog") +
                  "; drop --memory, or convert it to FITS)");
  const std::string tmp = temporary_sibling(files.output);
  TemporaryFile left_fits, right_fits;
  std::string left_path = files.left_path, right_path = self ? files.left_path : files.right_path;
  if (csv::is_csv_path(left_path)) {
    left_fits.path = tmp + ".left.fits";
    csv::to_fits(files.left_path, left_fits.path, files.ra1, files.dec1, memory_bytes / 8);
    left_path = left_fits.path;
    if (self) right_path = left_path;
  }
  if (!self && csv::is_csv_path(right_path)) {
    right_fits.path = tmp + ".right.fits";
    csv::to_fits(files.right_path, right_fits.path, files.ra2, files.dec2, memory_bytes / 8);
    right_path = right_fits.path;
  }
  const std::string& right_name = self ? files.left_path : files.right_path;
  const FitsTableReader left(left_path);
  const FitsTableReader right(right_path);
  for (const auto* r : {&left, &right})
    if (r->schema().rows == 0)
      throw Error((r == &left ? files.left_path : right_name) + ": empty table (no rows)");
  const size_t n1 = left.schema().rows, n2 = right.schema().rows;
  const auto [ra1, dec1] =
      find_radec_columns(left.schema(), files.ra1, files.dec1, files.left_path);
  const auto [ra2, dec2] =
      self ? std::pair{ra1, dec1}
           : find_radec_columns(right.schema(), files.ra2, files.dec2, right_name);

  // Budget: half of the bound for the chunk's working set (its pairs and match_pairs' scratch
  // come on top of chunk_bytes_per_*_row), an eighth for the merge buffers, an eighth for the
  // output blocks, and the matched-row flags.
  const size_t flags = n1 + n2;
  if (memory_bytes / 2 <= flags)
    throw Error("--memory " + std::to_string(memory_bytes) +
                " bytes is too small: " + std::to_string(n1) + " + " + std::to_string(n2) +
                " rows need more than " + std::to_string(2 * flags) +
                " bytes (1 B per row for the matched-row flags, doubled)");
  const size_t chunk_bytes = memory_bytes / 2 - flags;

  // Pass 1: match in chunks, spill each chunk's sorted pairs.
  PairSpill spill(tmp + ".pairs");
  {
    auto src1 = fits_positions(left_path, ra1, dec1, 1 << 16);
    auto src2 = fits_positions(right_path, ra2, dec2, 1 << 16);
    if (is_galactic(files.frame1, ra1, dec1)) src1 = galactic_to_icrs(std::move(src1));
    if (is_galactic(self ? files.frame1 : files.frame2, ra2, dec2))
      src2 = galactic_to_icrs(std::move(src2));
    chunked_pairs_each(
        *src1, *src2, self, o, chunk_bytes, [&](std::vector<Pair>& c) { spill.add_run(c); },
        progress);
  }

  // The pairs after find, as a stream that can be restarted (flags pass, then output pass). All
  // and best1 follow the merged (i, j) order; the others re-sort the pairs on disk (SortedSpill)
  // as select_pairs orders them in memory, and spill their result sorted by (i, j).
  const size_t merge_bytes = memory_bytes / 8, run_bytes = memory_bytes / 4;
  const bool streamable = o.find == Find::All || (o.find == Find::Best1 && !self);
  std::unique_ptr<SortedSpill> selected;
  if (!streamable) {
    selected = std::make_unique<SortedSpill>(tmp + ".selected", run_bytes, by_ij);
    if (o.find == Find::Greedy) {
      // Greedy by increasing separation; a row used on either side (both, in a self-match) is
      // skipped afterwards.
      SortedSpill by_sep(tmp + ".bysep", run_bytes, closer);
      {
        MergeStream all(spill, merge_bytes);
        for (Pair p; all.next(p);) by_sep.add(p);
      }
      order::GreedyBest greedy(n1, n2, self);
      auto s = by_sep.stream(merge_bytes);
      for (Pair p; s->next(p);)
        if (greedy.take(p)) selected->add(p);
    } else if (o.find == Find::Best && !self) {
      // STILTS best: the nearest pair of every row of the larger side (left when equal), then of
      // those the nearest of every row of the other side (as select_pairs).
      const bool left_first = n1 >= n2;
      SortedSpill by_first(tmp + ".bykey", run_bytes,
                           left_first ? by_i_then_closer : by_j_then_closer);
      {
        MergeStream all(spill, merge_bytes);
        for (Pair p; all.next(p);) by_first.add(p);
      }
      SortedSpill by_second(tmp + ".bykey2", run_bytes,
                            left_first ? by_j_then_closer : by_i_then_closer);
      {
        auto s = by_first.stream(merge_bytes);
        Pair prev{-1, -1, 0};
        for (Pair p; s->next(p);) {
          if ((left_first ? p.i : p.j) == (left_first ? prev.i : prev.j)) continue;
          prev = p;
          by_second.add(p);
        }
      }
      auto s = by_second.stream(merge_bytes);
      Pair prev{-1, -1, 0};
      for (Pair p; s->next(p);) {
        if ((left_first ? p.j : p.i) == (left_first ? prev.j : prev.i)) continue;
        prev = p;
        selected->add(p);
      }
    } else {
      // Nearest per row: per right row (best2), or per row of either side in a self-match, where
      // every pair counts in both orientations, as (row, other). A self-match's best keeps the
      // mutually nearest pairs: (r, o) whose (o, r) is also a row's nearest, once, as i < j.
      const bool per_j = !self;
      const bool mutual = self && o.find == Find::Best;
      SortedSpill by_key(tmp + ".bykey", run_bytes, per_j ? by_j_then_closer : by_i_then_closer);
      {
        MergeStream all(spill, merge_bytes);
        for (Pair p; all.next(p);) {
          by_key.add(p);
          if (self) by_key.add(Pair{p.j, p.i, p.sep_arcsec});
        }
      }
      std::unique_ptr<SortedSpill> nearest;
      if (mutual) nearest = std::make_unique<SortedSpill>(tmp + ".bykey2", run_bytes, by_ij);
      auto s = by_key.stream(merge_bytes);
      Pair prev{-1, -1, 0};
      for (Pair p; s->next(p);) {
        if ((per_j ? p.j : p.i) == (per_j ? prev.j : prev.i)) continue;
        prev = p;
        if (!mutual) {
          selected->add(p);
        } else {
          if (p.i > p.j) std::swap(p.i, p.j);
          nearest->add(p);
        }
      }
      if (mutual) {
        auto m = nearest->stream(merge_bytes);
        Pair last{-1, -1, 0};
        for (Pair p; m->next(p);) {
          if (p.i == last.i && p.j == last.j) selected->add(p);
          last = p;
        }
      }
    }
  }
  auto stream = [&]() -> std::unique_ptr<PairStream> {
    if (selected) return selected->stream(merge_bytes);
    auto merged = std::make_unique<MergeStream>(spill, merge_bytes);
    if (o.find == Find::Best1) return std::make_unique<Best1Stream>(std::move(merged));
    return merged;
  };

  // join_rows on the stream: which rows are matched after find, then the output rows in order.
  const Join join = o.join;
  const bool with_pairs = join != Join::Not1 && join != Join::Not2;
  const bool left_blanks = join == Join::Or || join == Join::All1 || join == Join::Not2;
  const bool right_blanks = !self && (join == Join::Or || join == Join::All2 || join == Join::Not1);
  std::vector<char> m1, m2;
  bool blank1 = false, blank2 = false;  // some output row has i < 0 / j < 0
  if (left_blanks || right_blanks) {
    m1.assign(n1, 0);
    m2.assign(n2, 0);
    auto s = stream();
    for (Pair p; s->next(p);) {
      m1[size_t(p.i)] = m2[size_t(p.j)] = 1;
      if (self) m1[size_t(p.j)] = m2[size_t(p.i)] = 1;
    }
    blank2 = left_blanks && std::find(m1.begin(), m1.end(), 0) != m1.end();
    blank1 = right_blanks && std::find(m2.begin(), m2.end(), 0) != m2.end();
  }

  const Table schema = joined_table(left.schema(), right.schema(), {}, join, blank1, blank2);
  const size_t row_bytes = output_row_bytes(left.schema()) + output_row_bytes(right.schema()) + 8;
  const size_t block_rows =
      std::clamp<size_t>(memory_bytes / 8 / (3 * row_bytes + 64), 256, size_t(1) << 20);
  CatalogWriter out(files.output, schema);
  const FitsRows left_rows(left), right_rows(right);
  BlockWriter blocks(left_rows, right_rows, join, blank1, blank2, out, block_rows);
  {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto s = stream();
    Pair p{};
    bool have = s->next(p);
    for (size_t i = 0; i < n1; ++i) {
      if (left_blanks && !m1[i]) blocks.add(Pair{int64_t(i), -1, nan});
      for (; have && p.i == int64_t(i); have = s->next(p))
        if (with_pairs) blocks.add(p);
    }
    if (right_blanks)
      for (size_t j = 0; j < n2; ++j)
        if (!m2[j]) blocks.add(Pair{-1, int64_t(j), nan});
  }
  blocks.flush();
  out.finish();
  return StreamedCounts{n1, n2, blocks.written()};
}

std::unique_ptr<RowFetcher> fits_rows(const std::string& path) {
  return std::make_unique<FitsRows>(path);
}

size_t write_joined_rows(const RowFetcher& left, const RowFetcher& right,
                         const std::vector<Pair>& rows, Join join, const std::string& output,
                         size_t block_rows) {
  // Blank sides as joined_table finds them on the whole list, so every block has the same types.
  bool blank1 = false, blank2 = false;
  for (const Pair& p : rows) {
    blank1 |= p.i < 0;
    blank2 |= p.j < 0;
  }
  const Table schema = joined_table(left.schema(), right.schema(), {}, join, blank1, blank2);
  CatalogWriter out(output, schema);
  BlockWriter blocks(left, right, join, blank1, blank2, out, std::max<size_t>(1, block_rows));
  for (const Pair& p : rows) blocks.add(p);
  blocks.flush();
  out.finish();
  return blocks.written();
}

}  // namespace celeris::xmatch
