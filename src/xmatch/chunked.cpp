// Larger than memory: the cross-match in HEALPix chunks (chunked_pairs). Both sides are binned by a
// coarse NESTED pixel at least one radius wide, so that every right row within the radius of a
// left row lies in the left row's coarse pixel or one of its 8 neighbours. Runs of consecutive
// coarse pixels (compact on the sky, thanks to the NEST order) are grouped into chunks whose left
// rows plus border-inclusive right rows fit the memory bound; each chunk is gathered by scanning
// the sources again and matched by match_pairs (CPU or GPU), and its pairs are mapped back to the
// global rows. Every pair is found exactly once: in the chunk of its left row.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <parallel/algorithm>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"

namespace celeris::xmatch {

namespace hp = celeris::healpix;

namespace {

constexpr double kArcsec = hp::pi / (180.0 * 3600.0);
// Finest partition order: 12 * 4^7 = 196608 coarse pixels (counts: 1.5 MB per side).
constexpr int kMaxCoarseOrder = 7;

class MemoryPositions final : public PositionSource {
 public:
  explicit MemoryPositions(const SkyPoints& p) : p_(p) {}
  size_t rows() const override { return p_.size(); }
  void scan(const Visit& visit) const override {
    constexpr size_t kBlock = 1 << 16;
    for (size_t b = 0; b < p_.size(); b += kBlock)
      visit(b, p_.ra.data() + b, p_.dec.data() + b, std::min(kBlock, p_.size() - b));
  }

 private:
  const SkyPoints& p_;
};

void check_position(double ra, double dec, size_t row, const char* side) {
  if (!std::isfinite(ra) || !std::isfinite(dec) || dec < -90 || dec > 90 || ra < -360 || ra > 360)
    throw Error(std::string(side) + ": row " + std::to_string(row + 1) +
                ": RA/Dec out of range or not finite (" + std::to_string(ra) + ", " +
                std::to_string(dec) + ")");
}

// Rows per coarse pixel of a source (validating every position on the way).
std::vector<uint64_t> count_pixels(const PositionSource& src, int order, const char* side) {
  std::vector<uint64_t> n(size_t(hp::npix(order)), 0);
  src.scan([&](size_t first, const double* ra, const double* dec, size_t count) {
    for (size_t k = 0; k < count; ++k) {
      check_position(ra[k], dec[k], first + k, side);
      ++n[size_t(hp::radec2pix_nest(order, ra[k], dec[k]))];
    }
  });
  return n;
}

// `p` and its neighbours (7 or 8), without repeats: the coarse pixels whose right rows a left row
// in `p` can match. Returns how many were written to `out`.
int pixel_and_neighbours(int order, int64_t p, int64_t out[9]) {
  int64_t nb[9];
  nb[0] = p;
  hp::neighbours_nest(order, p, nb + 1);
  int n = 0;
  for (int64_t q : nb)
    if (q >= 0 && std::find(out, out + n, q) == out + n) out[n++] = q;
  return n;
}

// A position in the order of left rows by (coarse pixel, rank of the row among that pixel's left
// rows): chunks are half-open intervals of it, so a crowded pixel's left rows can be split over
// several chunks (its right rows and its neighbours' go to each of them).
struct Cut {
  int64_t pix;
  uint64_t rank;
  bool operator<=(const Cut& o) const { return pix < o.pix || (pix == o.pix && rank <= o.rank); }
};

struct Chunk {
  Cut begin, end;  // left rows in [begin, end)
  uint64_t left_rows;
};

// Greedy chunks in (pixel, rank) order within the bound.
std::vector<Chunk> plan_chunks(int order, const std::vector<uint64_t>& lc,
                               const std::vector<uint64_t>& rc, size_t memory_bytes) {
  const int64_t npix = hp::npix(order);
  std::vector<uint32_t> in(size_t(npix), 0);  // right pixels covered: stamp of the chunk
  std::vector<Chunk> chunks;
  uint32_t stamp = 1;
  Chunk cur{{0, 0}, {0, 0}, 0};
  uint64_t right = 0;
  auto close = [&](Cut at) {
    cur.end = at;
    chunks.push_back(cur);
    cur = Chunk{at, at, 0};
    right = 0;
    ++stamp;
  };
  for (int64_t p = 0; p < npix; ++p) {
    if (lc[size_t(p)] == 0) continue;  // no left rows: nothing to match here
    int64_t nb[9];
    const int nnb = pixel_and_neighbours(order, p, nb);
    for (uint64_t taken = 0; taken < lc[size_t(p)];) {
      // Right rows this pixel adds to the chunk (pixels already covered cost nothing).
      uint64_t new_right = 0;
      for (int a = 0; a < nnb; ++a)
        if (in[size_t(nb[a])] != stamp) new_right += rc[size_t(nb[a])];
      const uint64_t used = cur.left_rows * chunk_bytes_per_left_row +
                            (right + new_right) * chunk_bytes_per_right_row;
      const uint64_t room =
          used < memory_bytes ? (memory_bytes - used) / chunk_bytes_per_left_row : 0;
      if (room == 0) {
        if (cur.left_rows == 0)
          throw Error("--memory " + std::to_string(memory_bytes) +
                      " bytes is too small: the rows around HEALPix order-" +
                      std::to_string(order) + " pixel " + std::to_string(p) + " need " +
                      std::to_string(used + chunk_bytes_per_left_row) + " bytes");
        close(Cut{p, taken});
        continue;
      }
      if (cur.left_rows == 0) cur.begin = Cut{p, taken};
      for (int a = 0; a < nnb; ++a) in[size_t(nb[a])] = stamp;
      right += new_right;
      const uint64_t n = std::min(room, lc[size_t(p)] - taken);
      cur.left_rows += n;
      taken += n;
      if (taken < lc[size_t(p)]) close(Cut{p, taken});
    }
  }
  if (cur.left_rows > 0) close(Cut{npix, 0});
  return chunks;
}

// Rows of `src` for which keep(coarse pixel) holds, called in row order, with their global row
// numbers.
template <class Keep>
void gather(const PositionSource& src, int order, Keep keep, SkyPoints& pts,
            std::vector<int64_t>& rows) {
  pts.ra.clear();
  pts.dec.clear();
  rows.clear();
  std::vector<int64_t> pix;
  src.scan([&](size_t first, const double* ra, const double* dec, size_t count) {
    pix.resize(count);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < int64_t(count); ++k)
      pix[size_t(k)] = hp::radec2pix_nest(order, ra[k], dec[k]);
    for (size_t k = 0; k < count; ++k)
      if (keep(pix[k])) {
        pts.ra.push_back(ra[k]);
        pts.dec.push_back(dec[k]);
        rows.push_back(int64_t(first + k));
      }
  });
}

}  // namespace

std::unique_ptr<PositionSource> memory_positions(const SkyPoints& points) {
  if (points.ra.size() != points.dec.size()) throw Error("RA and Dec have different lengths");
  return std::make_unique<MemoryPositions>(points);
}

size_t parse_memory_size(const std::string& s) {
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(s, &pos);
  } catch (...) {
    throw Error("bad memory size '" + s + "' (e.g. 2G, 500M, 64k)");
  }
  std::string unit = s.substr(pos);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  double mult = 1;
  if (unit.size() == 1) {
    const char c = char(std::tolower(static_cast<unsigned char>(unit[0])));
    mult = c == 'k'   ? 1024.0
           : c == 'm' ? 1048576.0
           : c == 'g' ? 1073741824.0
           : c == 't' ? 1099511627776.0
                      : 0;
  } else if (!unit.empty()) {
    mult = 0;
  }
  if (!(v > 0) || mult == 0) throw Error("bad memory size '" + s + "' (e.g. 2G, 500M, 64k)");
  return size_t(v * mult);
}

void chunked_pairs_each(const PositionSource& left, const PositionSource& right, bool self,
                        const Options& o, size_t memory_bytes,
                        const std::function<void(std::vector<Pair>&)>& each_chunk,
                        const std::function<void(size_t, size_t)>& progress, ChunkStats* stats) {
  const PositionSource& rsrc = self ? left : right;
  const double r = o.radius_arcsec * kArcsec;
  const int k = hp::order_for_radius(r);
  if (k < 0) throw Error("chunked matching needs a radius below 0.6 rad");
  const int order = std::min(k, kMaxCoarseOrder);
  const std::vector<uint64_t> lc = count_pixels(left, order, self ? "catalog" : "left catalog");
  const std::vector<uint64_t> rc = self ? lc : count_pixels(rsrc, order, "right catalog");
  const std::vector<Chunk> chunks = plan_chunks(order, lc, rc, memory_bytes);
  if (stats) *stats = ChunkStats{chunks.size(), order, 0};

  Options chunk_options = o;
  chunk_options.find = Find::All;
  chunk_options.join = Join::And;
  std::vector<uint8_t> in_right(size_t(hp::npix(order)), 0);
  std::vector<uint64_t> rank(size_t(hp::npix(order)));
  SkyPoints lp, rp;
  std::vector<int64_t> lrow, rrow;
  size_t done = 0;
  for (const Chunk& c : chunks) {
    // Right pixels of this chunk: the pixels of its left rows and their neighbours.
    std::fill(in_right.begin(), in_right.end(), 0);
    const int64_t last = c.end.rank > 0 ? c.end.pix : c.end.pix - 1;
    for (int64_t p = c.begin.pix; p <= last; ++p) {
      if (lc[size_t(p)] == 0) continue;
      int64_t nb[9];
      const int nnb = pixel_and_neighbours(order, p, nb);
      for (int a = 0; a < nnb; ++a) in_right[size_t(nb[a])] = 1;
    }
    std::fill(rank.begin(), rank.end(), 0);
    gather(
        left, order,
        [&](int64_t p) {
          const Cut at{p, rank[size_t(p)]++};
          return c.begin <= at && !(c.end <= at);
        },
        lp, lrow);
    gather(
        rsrc, order, [&](int64_t p) { return in_right[size_t(p)] != 0; }, rp, rrow);
    if (stats) stats->peak_rows = std::max(stats->peak_rows, lp.size() + rp.size());
    // Local rows were gathered in global row order, so the mapped pairs stay sorted by (i, j).
    std::vector<Pair> pairs = match_pairs(lp, rp, chunk_options);
    size_t kept = 0;
    for (const Pair& q : pairs) {
      const int64_t i = lrow[size_t(q.i)], j = rrow[size_t(q.j)];
      if (!self || j > i) pairs[kept++] = Pair{i, j, q.sep_arcsec};
    }
    pairs.resize(kept);
    each_chunk(pairs);
    done += lp.size();
    if (progress) progress(done, left.rows());
  }
}

std::vector<Pair> chunked_pairs(const PositionSource& left, const PositionSource& right, bool self,
                                const Options& o, size_t memory_bytes,
                                const std::function<void(size_t, size_t)>& progress,
                                ChunkStats* stats) {
  std::vector<Pair> pairs;
  chunked_pairs_each(
      left, right, self, o, memory_bytes,
      [&](std::vector<Pair>& chunk) { pairs.insert(pairs.end(), chunk.begin(), chunk.end()); },
      progress, stats);
  __gnu_parallel::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
    return a.i != b.i ? a.i < b.i : a.j < b.j;
  });
  return pairs;
}

}  // namespace celeris::xmatch
