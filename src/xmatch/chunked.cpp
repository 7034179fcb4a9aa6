// Larger than memory: the cross-match in HEALPix chunks (chunked_pairs). Both sides are binned by a
// coarse NESTED pixel at least one radius wide, so that every right row within the radius of a
// left row lies in the left row's coarse pixel or one of its 8 neighbours. Runs of consecutive
// coarse pixels (compact on the sky, thanks to the NEST order) are grouped into chunks whose left
// rows plus border-inclusive right rows fit the memory bound; each chunk is gathered by scanning
// the sources again and matched by match_pairs (CPU or GPU), and its pairs are mapped back to the
// global rows. Every pair is found exactly once: in the chunk of its left row.
#include <algorithm>
#include <cctype>
#include <chrono>
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
  void scan(const Visit& visit) const override { scan_rows(0, p_.size(), visit); }
  void scan_rows(size_t first, size_t count, const Visit& visit) const override {
    constexpr size_t kBlock = 1 << 16;
    const size_t end = std::min(p_.size(), first + count);
    for (size_t b = first; b < end; b += kBlock)
      visit(b, p_.ra.data() + b, p_.dec.data() + b, std::min(kBlock, end - b));
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

// Bytes of the right rows a left row of pixel p brings into a chunk (its pixel and neighbours).
uint64_t right_bytes_around(int order, int64_t p, const std::vector<uint64_t>& rc) {
  int64_t nb[9];
  const int nnb = pixel_and_neighbours(order, p, nb);
  uint64_t n = 0;
  for (int a = 0; a < nnb; ++a) n += rc[size_t(nb[a])];
  return n * chunk_bytes_per_right_row;
}

// Rows of `src` for which keep(coarse pixel) holds, called in row order, with their global row
// numbers. Only the region `wanted` (pixels keep can accept) is scanned; keep still sees every
// row of the blocks the source returns, in row order.
template <class Keep>
void gather(const PositionSource& src, int order, const std::vector<uint8_t>& wanted, Keep keep,
            SkyPoints& pts, std::vector<int64_t>& rows) {
  pts.ra.clear();
  pts.dec.clear();
  rows.clear();
  std::vector<int64_t> pix;
  const auto take = [&](size_t first, const double* ra, const double* dec, size_t count) {
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
  };
  src.scan_pixels(order, wanted, take);
}

}  // namespace

int pixel_and_neighbours(int order, int64_t p, int64_t out[9]) {
  int64_t nb[9];
  nb[0] = p;
  hp::neighbours_nest(order, p, nb + 1);
  int n = 0;
  for (int64_t q : nb)
    if (q >= 0 && std::find(out, out + n, q) == out + n) out[n++] = q;
  return n;
}

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

int chunk_order(const Options& o) {
  const int k = hp::order_for_radius(o.radius_arcsec * kArcsec);
  if (k < 0) throw Error("chunked matching needs a radius below 0.6 rad");
  return std::min(k, kMaxCoarseOrder);
}

std::vector<uint64_t> pixel_counts(const PositionSource& src, int order, const std::string& side) {
  std::vector<uint64_t> n(size_t(hp::npix(order)), 0);
  src.scan([&](size_t first, const double* ra, const double* dec, size_t count) {
    for (size_t k = 0; k < count; ++k) {
      check_position(ra[k], dec[k], first + k, side.c_str());
      ++n[size_t(hp::radec2pix_nest(order, ra[k], dec[k]))];
    }
  });
  return n;
}

ChunkPlan plan_chunks(int order, std::vector<uint64_t> lc, std::vector<uint64_t> rc, bool self,
                      size_t memory_bytes) {
  const int64_t npix = hp::npix(order);
  if (lc.size() != size_t(npix) || rc.size() != size_t(npix))
    throw Error("plan_chunks: pixel counts do not match the order");
  ChunkPlan plan;
  plan.order = order;
  plan.self = self;
  std::vector<uint32_t> in(size_t(npix), 0);  // right pixels covered: stamp of the chunk
  uint32_t stamp = 1;
  ChunkRange cur{{0, 0}, {0, 0}, 0, 0};
  auto close = [&](ChunkCut at) {
    cur.end = at;
    plan.chunks.push_back(cur);
    cur = ChunkRange{at, at, 0, 0};
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
                            (cur.right_rows + new_right) * chunk_bytes_per_right_row;
      const uint64_t room =
          used < memory_bytes ? (memory_bytes - used) / chunk_bytes_per_left_row : 0;
      if (room == 0) {
        if (cur.left_rows == 0)
          throw Error("--memory " + std::to_string(memory_bytes) +
                      " bytes is too small: the rows around HEALPix order-" +
                      std::to_string(order) + " pixel " + std::to_string(p) + " need " +
                      std::to_string(used + chunk_bytes_per_left_row) + " bytes");
        close(ChunkCut{p, taken});
        continue;
      }
      if (cur.left_rows == 0) cur.begin = ChunkCut{p, taken};
      for (int a = 0; a < nnb; ++a) in[size_t(nb[a])] = stamp;
      cur.right_rows += new_right;
      const uint64_t n = std::min(room, lc[size_t(p)] - taken);
      cur.left_rows += n;
      taken += n;
      if (taken < lc[size_t(p)]) close(ChunkCut{p, taken});
    }
  }
  if (cur.left_rows > 0) close(ChunkCut{npix, 0});
  plan.left_counts = std::move(lc);
  plan.right_counts = std::move(rc);
  return plan;
}

size_t min_chunk_bytes(int order, const std::vector<uint64_t>& lc,
                       const std::vector<uint64_t>& rc) {
  uint64_t most = 0;
  for (int64_t p = 0; p < int64_t(lc.size()); ++p)
    if (lc[size_t(p)] > 0) most = std::max(most, right_bytes_around(order, p, rc));
  return size_t(most + chunk_bytes_per_left_row);
}

std::vector<size_t> split_chunks(const ChunkPlan& plan, int parts) {
  if (parts < 1) throw Error("split_chunks: parts must be >= 1");
  auto cost = [](const ChunkRange& c) {
    return c.left_rows * chunk_bytes_per_left_row + c.right_rows * chunk_bytes_per_right_row;
  };
  uint64_t total = 0;
  for (const ChunkRange& c : plan.chunks) total += cost(c);
  // Part k ends at the first chunk boundary where the running cost reaches (k + 1) / parts of the
  // total (rounded to the nearer boundary), so parts are contiguous runs of nearly equal cost.
  std::vector<size_t> bounds(size_t(parts) + 1, plan.chunks.size());
  bounds[0] = 0;
  uint64_t run = 0;
  size_t c = 0;
  for (int k = 1; k < parts; ++k) {
    const long double target = (long double)total * k / parts;
    while (c < plan.chunks.size() && (long double)run + cost(plan.chunks[c]) / 2.0L <= target)
      run += cost(plan.chunks[c++]);
    bounds[size_t(k)] = c;
  }
  return bounds;
}

std::vector<Pair> match_chunk_range(const PositionSource& left, const PositionSource& right,
                                    const Options& o, const ChunkPlan& plan, size_t first,
                                    size_t last, ChunkStats* stats) {
  std::vector<Pair> pairs;
  if (first >= last) return pairs;
  if (last > plan.chunks.size()) throw Error("match_chunk_range: chunk index out of range");
  const PositionSource& rsrc = plan.self ? left : right;
  const int order = plan.order;
  const ChunkCut begin = plan.chunks[first].begin, end = plan.chunks[last - 1].end;
  // Right pixels of these chunks: the pixels of their left rows and those pixels' neighbours (the
  // margin of one radius, as every right row within the radius lies there).
  std::vector<uint8_t> in_right(size_t(hp::npix(order)), 0);
  const int64_t last_pix = end.rank > 0 ? end.pix : end.pix - 1;
  for (int64_t p = begin.pix; p <= last_pix; ++p) {
    if (plan.left_counts[size_t(p)] == 0) continue;
    int64_t nb[9];
    const int nnb = pixel_and_neighbours(order, p, nb);
    for (int a = 0; a < nnb; ++a) in_right[size_t(nb[a])] = 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> rank(size_t(hp::npix(order)), 0);
  SkyPoints lp, rp;
  std::vector<int64_t> lrow, rrow;
  // The left rows of pixel p are ranked in row order among all of p's rows: every row of p is
  // in the region scanned, so the ranks are those of the plan.
  std::vector<uint8_t> in_left(size_t(hp::npix(order)), 0);
  for (int64_t p = begin.pix; p <= last_pix; ++p) in_left[size_t(p)] = 1;
  gather(
      left, order, in_left,
      [&](int64_t p) {
        const ChunkCut at{p, rank[size_t(p)]++};
        return begin <= at && !(end <= at);
      },
      lp, lrow);
  gather(
      rsrc, order, in_right, [&](int64_t p) { return in_right[size_t(p)] != 0; }, rp, rrow);
  const auto t1 = std::chrono::steady_clock::now();
  Options chunk_options = o;
  chunk_options.find = Find::All;
  chunk_options.join = Join::And;
  // Local rows were gathered in global row order, so the mapped pairs stay sorted by (i, j).
  pairs = match_pairs(lp, rp, chunk_options);
  size_t kept = 0;
  for (const Pair& q : pairs) {
    const int64_t i = lrow[size_t(q.i)], j = rrow[size_t(q.j)];
    if (!plan.self || j > i) pairs[kept++] = Pair{i, j, q.sep_arcsec};
  }
  pairs.resize(kept);
  pairs.shrink_to_fit();
  if (stats) {
    const auto t2 = std::chrono::steady_clock::now();
    stats->peak_rows = std::max(stats->peak_rows, lp.size() + rp.size());
    stats->gather_seconds += std::chrono::duration<double>(t1 - t0).count();
    stats->join_seconds += std::chrono::duration<double>(t2 - t1).count();
  }
  return pairs;
}

void chunked_pairs_each(const PositionSource& left, const PositionSource& right, bool self,
                        const Options& o, size_t memory_bytes,
                        const std::function<void(std::vector<Pair>&)>& each_chunk,
                        const std::function<void(size_t, size_t)>& progress, ChunkStats* stats) {
  const int order = chunk_order(o);
  std::vector<uint64_t> lc = pixel_counts(left, order, self ? "catalog" : "left catalog");
  std::vector<uint64_t> rc = self ? lc : pixel_counts(right, order, "right catalog");
  const ChunkPlan plan = plan_chunks(order, std::move(lc), std::move(rc), self, memory_bytes);
  if (stats) *stats = ChunkStats{plan.chunks.size(), order, 0, 0, 0};
  size_t done = 0;
  for (size_t c = 0; c < plan.chunks.size(); ++c) {
    std::vector<Pair> pairs = match_chunk_range(left, right, o, plan, c, c + 1, stats);
    each_chunk(pairs);
    done += plan.chunks[c].left_rows;
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
