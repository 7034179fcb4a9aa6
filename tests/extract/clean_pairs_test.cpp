// CLEAN with its comparisons decided beforehand (stages/clean_pairs.hpp) against CLEAN comparing
// every pair as the sequential pass meets it (CleanParams::compare_every_pair, SExtractor's
// direct form), on random crowded fields built so that merges are frequent, chain (an object
// that has absorbed others is compared again, with its new flux and profile), and compete (a
// newcomer under several brighter profiles, eaten by the first in list order, whose victims
// found before are then spared), with the line buffer's write-outs and a full object stack
// reordering the list. Every output must be identical: NUMBER order, write-out lines, merges
// with their masters and moments, and the merged shapes, thresholds and flags. The same with
// the decisions given as codes (the GPU's form), some left to the host's pow.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "extract/stages/catalog_beside_pass.hpp"
#include "extract/stages/clean.hpp"
#include "extract/stages/clean_pairs.hpp"
#include "extract/stages/clean_zones.hpp"
#include "extract/stages/measure_shape_columns.hpp"

using namespace celeris::extract;

namespace {

struct Field {
  std::vector<uint16_t> flags;
  std::vector<Shape> shapes;
  std::vector<Iso> isos;
  std::vector<int64_t> done_line;
};

// n objects on a side x side field, in detection order (by last row). Fluxes span four decades
// and CLEAN thresholds sit between 1 and 3 times the detection threshold, so that profiles of
// bright objects cover many faint neighbours.
// `spread`: objects have up to 10^spread times the pixels of their core's isophote, which
// flattens their profiles, so that a newcomer often lies under several brighter ones.
Field crowded_field(std::mt19937& rng, int n, int side, double spread) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Field f;
  for (int i = 0; i < n; ++i) {
    Shape s;
    s.mx = side * u(rng);
    s.my = side * u(rng);
    s.a = 0.6 + 3.0 * u(rng);
    s.b = s.a * (0.3 + 0.7 * u(rng));
    s.theta = (u(rng) - 0.5) * 3.14159;
    const double c = std::cos(s.theta), sn = std::sin(s.theta);
    const double ia2 = 1 / (s.a * s.a), ib2 = 1 / (s.b * s.b);
    s.cxx = c * c * ia2 + sn * sn * ib2;
    s.cyy = sn * sn * ia2 + c * c * ib2;
    s.cxy = 2 * c * sn * (ia2 - ib2);
    s.npix = 4 + static_cast<int>(10 * s.a * s.b * (1 + u(rng)) * std::pow(10.0, spread * u(rng)));
    s.flux = 30.0 * std::pow(10.0, 4 * u(rng)) * s.npix / 10;
    s.abcor = static_cast<float>(0.9 + 0.1 * u(rng));
    s.peak = static_cast<float>(s.flux / s.npix * 3);
    const int r = static_cast<int>(2 * s.a) + 1;
    s.xmin = static_cast<int>(s.mx) - r, s.xmax = static_cast<int>(s.mx) + r;
    s.ymin = std::max(0, static_cast<int>(s.my) - r);
    s.ymax = std::min(side - 1, static_cast<int>(s.my) + r);
    Iso iso;
    iso.flux = static_cast<float>(s.flux);
    iso.area = s.npix;
    iso.peak = s.peak;
    iso.cpeak = s.peak;
    iso.xpeak = static_cast<int>(s.mx), iso.ypeak = static_cast<int>(s.my);
    iso.dthresh = 10.0f;
    iso.mthresh = static_cast<float>(10.0 * (1 + 2 * u(rng)));
    f.shapes.push_back(s);
    f.isos.push_back(iso);
    f.flags.push_back(static_cast<uint16_t>(rng() % 4));
  }
  // Detection order: by the row on which each detection completes.
  std::vector<size_t> idx(n);
  for (int i = 0; i < n; ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(),
                   [&](size_t a, size_t b) { return f.shapes[a].ymax < f.shapes[b].ymax; });
  Field g;
  for (size_t i : idx) {
    g.shapes.push_back(f.shapes[i]);
    g.isos.push_back(f.isos[i]);
    g.flags.push_back(f.flags[i]);
    g.done_line.push_back(f.shapes[i].ymax + 1);
  }
  return g;
}

struct Cleaned {
  CleanResult r;
  Field f;
};

Cleaned run(Field f, CleanParams p, bool every_pair) {
  p.compare_every_pair = every_pair;
  const CleanZones zones = clean_zones(f.shapes, p.threads);
  CleanPairs pairs = clean_pairs(f.shapes, f.isos, zones, p.clean_param, p.clean_margin, p.threads);
  CleanResult r = clean_objects(f.flags, f.shapes, f.isos, f.done_line, zones, pairs, p);
  return {std::move(r), std::move(f)};
}

// The decisions from codes made elsewhere (as the GPU's beside the zones: clean_pair_sure, for
// each pair of the zones), every third left to the pow (kCleanPairUnsure) whatever its answer,
// so that clean_pairs_from_codes takes those itself; with each newcomer's flags (as the GPU makes
// them beside the codes) the same pairs.
Cleaned run_from_codes(Field f, CleanParams p, long& unsure) {
  const CleanZones zones = clean_zones(f.shapes, p.threads);
  const size_t n = f.shapes.size();
  std::vector<CleanProfile> profile(n);
  std::vector<CleanRows> rows(n);
  clean_profiles(f.shapes, f.isos, 0, n, p.clean_param, p.clean_margin, p.threads, profile, rows);
  std::vector<uint8_t> codes(zones.neighbours.size());
  for (size_t i = 0; i < n; ++i)
    for (int64_t k = zones.offset[i]; k < zones.offset[i + 1]; ++k) {
      const uint32_t o = zones.neighbours[k];
      codes[k] = k % 3 == 0 ? kCleanPairUnsure
                            : clean_pair_sure(clean_pair_input(f.shapes[i], f.isos[i], profile[i]),
                                              clean_pair_input(f.shapes[o], f.isos[o], profile[o]),
                                              p.clean_param);
      unsure += codes[k] == kCleanPairUnsure;
    }
  std::vector<uint8_t> flags(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (int64_t k = zones.offset[i]; k < zones.offset[i + 1]; ++k)
      flags[i] |= codes[k] == kCleanPairUnsure ? kPairFlagUnsure
                  : codes[k] != 0              ? kPairFlagFires
                                               : 0;
  const CleanPairs flagged = clean_pairs_from_codes(f.shapes, f.isos, zones, p.clean_param,
                                                    p.threads, profile, codes, &flags);
  CleanPairs pairs =
      clean_pairs_from_codes(f.shapes, f.isos, zones, p.clean_param, p.threads, profile, codes);
  EXPECT_EQ(flagged.pair, pairs.pair);
  EXPECT_EQ(flagged.any, pairs.any);
  pairs.profile = std::move(profile);
  pairs.rows = std::move(rows);
  CleanResult r = clean_objects(f.flags, f.shapes, f.isos, f.done_line, zones, pairs, p);
  return {std::move(r), std::move(f)};
}

// The pass a random range of newcomers at a time (CleanPass), each range's zones and pairs made
// after the pass has taken the ranges before it, as the pipelined back end does
// (back_end.hpp). The columns must stay as detected until finish().
Cleaned run_in_chunks(Field f, CleanParams p, std::mt19937& rng) {
  const size_t n = f.shapes.size();
  const CleanZones all = clean_zones(f.shapes, p.threads);
  std::vector<CleanProfile> profile(n);
  std::vector<CleanRows> rows(n);
  const std::vector<Shape> detected = f.shapes;
  const std::vector<Iso> detected_iso = f.isos;
  CleanPass pass(n, f.flags, f.shapes, f.isos, f.done_line, profile, rows, p);
  for (size_t begin = 0; begin < n;) {
    const size_t end = std::min(n, begin + 1 + rng() % (n / 3 + 1));
    const CleanZones zones = clean_zones(f.shapes, begin, end, p.threads);
    // The range's zones are the whole frame's, sliced.
    EXPECT_EQ(zones.first, begin);
    EXPECT_EQ(zones.offset.size(), end - begin + 1);
    for (size_t i = begin; i < end; ++i) {
      const auto* a = all.neighbours.data();
      const std::vector<uint32_t> want(a + all.offset[i], a + all.offset[i + 1]);
      const auto* b = zones.neighbours.data();
      const std::vector<uint32_t> got(b + zones.offset[i - begin], b + zones.offset[i - begin + 1]);
      EXPECT_EQ(got, want) << i;
    }
    const CleanPairs pairs = clean_pairs(f.shapes, f.isos, zones, p.clean_param, p.clean_margin,
                                         p.threads, profile, rows);
    EXPECT_EQ(pass.next(), begin);
    pass.take(zones, pairs.pair, pairs.any);
    begin = end;
  }
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(f.shapes[i].flux, detected[i].flux) << i;
    EXPECT_EQ(f.shapes[i].npix, detected[i].npix) << i;
    EXPECT_EQ(f.isos[i].flux, detected_iso[i].flux) << i;
  }
  CleanResult r = pass.finish(f.shapes, f.isos);
  return {std::move(r), std::move(f)};
}

void expect_same(const Cleaned& a, const Cleaned& b) {
  ASSERT_EQ(a.r.order, b.r.order);
  ASSERT_EQ(a.r.written_at, b.r.written_at);
  ASSERT_EQ(a.r.buffer_at, b.r.buffer_at);
  ASSERT_EQ(a.r.written_moment, b.r.written_moment);
  ASSERT_EQ(a.r.stack_full_lines, b.r.stack_full_lines);
  ASSERT_EQ(a.r.removed.size(), b.r.removed.size());
  for (size_t k = 0; k < a.r.removed.size(); ++k) {
    const CleanVictim &x = a.r.removed[k], &y = b.r.removed[k];
    ASSERT_EQ(x.object, y.object) << k;
    ASSERT_EQ(x.master, y.master) << k;
    ASSERT_EQ(x.by, y.by) << k;
    ASSERT_EQ(x.line, y.line) << k;
    ASSERT_EQ(x.moment, y.moment) << k;
  }
  ASSERT_EQ(a.f.flags, b.f.flags);
  for (size_t i = 0; i < a.f.shapes.size(); ++i) {
    const Shape &s = a.f.shapes[i], &t = b.f.shapes[i];
    ASSERT_EQ(s.flux, t.flux) << i;
    ASSERT_EQ(s.npix, t.npix) << i;
    ASSERT_EQ(s.peak, t.peak) << i;
    ASSERT_EQ(s.xmin, t.xmin) << i;
    ASSERT_EQ(s.xmax, t.xmax) << i;
    ASSERT_EQ(s.ymin, t.ymin) << i;
    ASSERT_EQ(s.ymax, t.ymax) << i;
    ASSERT_EQ(a.f.isos[i].flux, b.f.isos[i].flux) << i;
    ASSERT_EQ(a.f.isos[i].cpeak, b.f.isos[i].cpeak) << i;
  }
}

TEST(CleanPairs, DecisionsMadeBeforehandEqualTheSequentialComparisons) {
  std::mt19937 rng(17);
  long merges = 0, chained = 0, stack_full = 0, trials = 0, unsure = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int side = 200 + static_cast<int>(rng() % 300);
    const int n = 500 + static_cast<int>(rng() % 2500);
    const Field f = crowded_field(rng, n, side, trial % 4 < 2 ? 0.0 : 2.5);
    CleanParams p;
    p.clean_param = trial % 3 == 0 ? 1.0 + 0.5 * (trial % 4) : 1.0;
    p.detect_thresh = 10.0f;
    p.clean_margin = static_cast<int>(rng() % 20);
    p.buffer.height = side;
    p.buffer.rows = trial % 5 == 0 ? side + 10 : 30 + static_cast<int>(rng() % 100);
    p.buffer.margin = 1 + static_cast<int>(rng() % 3);
    p.buffer.filter_rows = 3;
    p.stack_size = trial % 2 == 0 ? 3000 : 20 + static_cast<int>(rng() % 200);
    p.threads = 1 + trial % 3;
    const Cleaned direct = run(f, p, true);
    const Cleaned fast = run(f, p, false);
    expect_same(direct, fast);
    if (HasFatalFailure()) {
      ADD_FAILURE() << "trial " << trial;
      return;
    }
    expect_same(direct, run_in_chunks(f, p, rng));
    if (HasFatalFailure() || HasNonfatalFailure()) {
      ADD_FAILURE() << "trial " << trial << ", in chunks";
      return;
    }
    expect_same(direct, run_from_codes(f, p, unsure));
    if (HasFatalFailure()) {
      ADD_FAILURE() << "trial " << trial << ", from codes";
      return;
    }
    ++trials;
    merges += static_cast<long>(direct.r.removed.size());
    stack_full += static_cast<long>(direct.r.stack_full_lines.size());
    // Masters merged into more than once: objects compared again after a merge changed them.
    std::map<size_t, int> times;
    for (const CleanVictim& v : direct.r.removed) ++times[v.master];
    for (const auto& [m, t] : times) chained += t > 1;
  }
  // The fields exercise what makes order matter.
  EXPECT_GT(merges, 5000);
  EXPECT_GT(chained, 500);
  EXPECT_GT(stack_full, 1000);
  EXPECT_GT(unsure, 10000);
  EXPECT_EQ(trials, 60);
}

// A crowded field of 40,000 objects with its zones and pairs, and a clean pass over it with a
// small object stack (its write-outs amid lines), for a reader on another thread to watch.
struct WatchedPass {
  static constexpr int kSide = 2000, kObjects = 40000;
  explicit WatchedPass(unsigned seed) : rng(seed), f(crowded_field(rng, kObjects, kSide, 2.5)) {
    p.detect_thresh = 10.0f;
    p.clean_margin = 5;
    p.buffer.height = kSide;
    p.buffer.rows = 64;
    p.buffer.margin = 2;
    p.buffer.filter_rows = 3;
    p.stack_size = 300;
    zones = clean_zones(f.shapes, 1);
    pairs = clean_pairs(f.shapes, f.isos, zones, p.clean_param, p.clean_margin, 1);
    pass = std::make_unique<CleanPass>(kObjects, f.flags, f.shapes, f.isos, f.done_line,
                                       pairs.profile, pairs.rows, p);
  }
  void take() { pass->take(zones, pairs.pair, pairs.any); }
  // The same newcomers `ranges` ranges at a time, calling between(k) after range k but the last
  // (each range's zones and decisions made as run_in_chunks makes them; the pass reads the
  // whole frame's profiles and rows given at construction, which these equal).
  template <class Between>
  void take_in_ranges(size_t ranges, Between between) {
    std::vector<CleanProfile> profile(kObjects);
    std::vector<CleanRows> rows(kObjects);
    for (size_t k = 0; k < ranges; ++k) {
      const size_t begin = kObjects * k / ranges, end = kObjects * (k + 1) / ranges;
      const CleanZones z = clean_zones(f.shapes, begin, end, 1);
      const CleanPairs d =
          clean_pairs(f.shapes, f.isos, z, p.clean_param, p.clean_margin, 1, profile, rows);
      pass->take(z, d.pair, d.any);
      if (k + 1 < ranges) between(k);
    }
  }
  CleanResult finish() { return pass->finish(f.shapes, f.isos); }
  std::mt19937 rng;
  Field f;
  CleanParams p;
  CleanZones zones;
  CleanPairs pairs;
  std::unique_ptr<CleanPass> pass;
};

// Yields until `there()` holds or 30 s have passed (then the caller's check fails): the main
// thread waiting for the reader between the pass's ranges.
template <class There>
void yield_until(There there) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!there() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
}

// CleanPass::progress read by another thread while the pass runs (as the GPU photometry beside
// it does, stages/measure_beside_pass.hpp): each snapshot's rows and merges are a prefix of the
// finished result, snapshots only grow, and a snapshot holds every merge made at a moment before
// its last row's write-out.
TEST(CleanPass, ProgressSeenFromAnotherThreadIsAPrefixOfTheResult) {
  WatchedPass w(5);
  const CleanPass& pass = *w.pass;
  struct Seen {
    size_t rows, removed;
    size_t last_object;   // order[rows - 1]
    int64_t last_moment;  // written_moment[rows - 1]
    size_t last_victim;   // victims[removed - 1].object
  };
  std::vector<Seen> seen;
  std::atomic<bool> started{false}, done{false};
  std::atomic<size_t> seen_rows{0};  // the rows of the reader's latest snapshot
  std::thread reader([&] {
    started = true;
    while (!done.load()) {
      const CleanProgress c = pass.progress();
      if (c.rows == 0 || (!seen.empty() && seen.back().rows == c.rows)) continue;
      seen.push_back({c.rows, c.removed, c.order[c.rows - 1], c.written_moment[c.rows - 1],
                      c.removed ? c.victims[c.removed - 1].object : SIZE_MAX});
      seen_rows = c.rows;
    }
  });
  while (!started.load()) std::this_thread::yield();
  // The pass in ranges, and between them the reader is waited for until its snapshot holds
  // every row written so far: the reader is not left to the scheduler alone (on two busy cores
  // it was once not run until the whole pass had ended), so it sees the pass mid-way at least
  // once a range, and reads freely beside it while each range runs.
  constexpr size_t kRanges = 6;
  size_t ranges_caught = 0;
  w.take_in_ranges(kRanges, [&](size_t) {
    const size_t rows = pass.progress().rows;
    yield_until([&] { return seen_rows.load() >= rows; });
    ranges_caught += seen_rows.load() >= rows && rows > 0;
  });
  done = true;
  reader.join();
  const CleanResult r = w.finish();
  ASSERT_GT(r.removed.size(), 1000u);
  EXPECT_EQ(ranges_caught, kRanges - 1) << "the reader did not catch up between ranges";
  ASSERT_GE(seen.size(), kRanges - 1) << "too few snapshots while the pass ran";
  for (size_t k = 0; k < seen.size(); ++k) {
    const Seen& s = seen[k];
    if (k) {
      EXPECT_GE(s.rows, seen[k - 1].rows);
      EXPECT_GE(s.removed, seen[k - 1].removed);
    }
    ASSERT_LE(s.rows, r.order.size());
    ASSERT_LE(s.removed, r.removed.size());
    EXPECT_EQ(s.last_object, r.order[s.rows - 1]) << k;
    EXPECT_EQ(s.last_moment, r.written_moment[s.rows - 1]) << k;
    if (s.removed) EXPECT_EQ(s.last_victim, r.removed[s.removed - 1].object) << k;
    for (size_t v = s.removed; v < r.removed.size(); ++v)
      ASSERT_GE(r.removed[v].moment, s.last_moment) << "snapshot " << k << " lacks merge " << v;
  }
}

// CleanPass::wait_for from another thread (the GPU photometry's feeder): the pass wakes the
// waiter once its rows reach the target, long before the timeout, and each answer holds at
// least the rows asked for; release_waiters ends a wait for rows the pass never reaches.
TEST(CleanPass, WaitForRowsIsWokenByThePass) {
  WatchedPass w(7);
  const CleanPass& pass = *w.pass;
  using Clock = std::chrono::steady_clock;
  constexpr auto kLong = std::chrono::seconds(20);
  struct Wait {
    size_t target, rows;
    double seconds;
    bool after_the_pass;
  };
  std::vector<Wait> waits;
  std::atomic<bool> started{false}, done{false};
  std::atomic<size_t> waiting_for{0};  // the target of the reader's wait under way
  std::thread reader([&] {
    started = true;
    size_t target = 500;
    while (!done.load()) {
      const auto t = Clock::now();
      waiting_for = target;
      const CleanProgress c = pass.wait_for(target, SIZE_MAX, kLong);
      waits.push_back(
          {target, c.rows, std::chrono::duration<double>(Clock::now() - t).count(), done.load()});
      target = c.rows + 500;
    }
  });
  while (!started.load()) std::this_thread::yield();
  // The pass in ranges; between them the reader is waited for until it waits for rows not yet
  // written, so its waits are answered while the pass runs whatever the scheduler does.
  constexpr size_t kRanges = 6;
  w.take_in_ranges(kRanges, [&](size_t) {
    const size_t rows = pass.progress().rows;
    yield_until([&] { return waiting_for.load() > rows; });
  });
  done = true;
  pass.release_waiters();
  reader.join();
  // Released, a wait returns at once whatever it asks.
  const auto t = Clock::now();
  EXPECT_LT(pass.wait_for(SIZE_MAX, SIZE_MAX, kLong).rows, SIZE_MAX);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t).count(), 10.0);
  const CleanResult r = w.finish();
  ASSERT_GT(r.order.size(), 5000u);
  size_t during = 0;
  for (const Wait& w : waits) {
    EXPECT_LT(w.seconds, 10.0) << "a wait for " << w.target << " rows ran to its timeout";
    if (w.after_the_pass) continue;
    ++during;
    EXPECT_GE(w.rows, w.target);
  }
  EXPECT_GE(during, kRanges - 1) << "the reader saw too few batches while the pass ran";
}

// The catalog's rows begun beside the pass (stages/catalog_beside_pass.hpp): every row written
// out while the pass ran is considered; those whose objects were merged into are left, and they
// are exactly the masters among them; every other row's shape columns, written from the shapes
// as detected while the pass ran, equal the columns of its merged shape after the pass's finish.
TEST(CatalogBesidePass, RowsBegunBesideThePassAreTheFinishedObjects) {
  WatchedPass w(11);
  CatalogBesidePass::Inputs in;
  in.shapes = &w.f.shapes;
  in.isos = &w.f.isos;
  in.objects = WatchedPass::kObjects;
  in.n_aper = 2;
  in.n_frac = 1;
  in.batch_rows = 64;
  CatalogBesidePass beside(in);
  beside.prepare();
  beside.begin(*w.pass);
  // The pass in ranges, the thread given time to write between them.
  w.take_in_ranges(6, [&](size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); });
  const size_t written = w.pass->progress().rows;  // before the finish's write-outs
  beside.end();
  CatalogBesidePass::Rows got = beside.take();
  const CleanResult r = w.finish();
  ASSERT_TRUE(beside.started());
  ASSERT_GT(written, 5000u);
  EXPECT_EQ(got.rows, written);
  ASSERT_EQ(got.catalog.size(), got.rows);
  std::vector<uint8_t> master(WatchedPass::kObjects, 0);
  for (const CleanVictim& v : r.removed) master[v.master] = 1;
  std::vector<size_t> masters;
  for (size_t i = 0; i < got.rows; ++i)
    if (master[r.order[i]]) masters.push_back(i);
  EXPECT_GT(masters.size(), 1000u);  // merged-into rows occur, or the test proves little
  EXPECT_EQ(got.left, masters);
  Objects want;
  want.resize(got.rows, 2, 1);
  for (size_t i = 0; i < got.rows; ++i)
    write_shape_columns(want, i, w.f.shapes[r.order[i]], w.f.isos[r.order[i]], false);
  size_t checked = 0;
  for (size_t i = 0, k = 0; i < got.rows; ++i) {
    if (k < got.left.size() && got.left[k] == i) {
      ++k;
      continue;
    }
    ++checked;
    const Objects& g = got.catalog;
    ASSERT_TRUE(g.x[i] == want.x[i] && g.y[i] == want.y[i] && g.xmin[i] == want.xmin[i] &&
                g.xmax[i] == want.xmax[i] && g.ymin[i] == want.ymin[i] &&
                g.ymax[i] == want.ymax[i] && g.isoarea[i] == want.isoarea[i] &&
                g.isoareaf[i] == want.isoareaf[i] && g.flux_iso[i] == want.flux_iso[i] &&
                g.fluxerr_iso[i] == want.fluxerr_iso[i] && g.flux_max[i] == want.flux_max[i] &&
                g.a[i] == want.a[i] && g.theta[i] == want.theta[i] && g.xpeak[i] == want.xpeak[i] &&
                g.threshold[i] == want.threshold[i])
        << "row " << i;
  }
  EXPECT_GT(checked, 500u) << got.rows << " rows, " << got.left.size() << " left";
}

// clean_pair against the comparison written out: the newcomer is the victim's master when the
// earlier object is fainter, else the earlier one may absorb it; outside the zone, nothing.
TEST(CleanPairs, PairAnswersFollowTheFluxOrder) {
  Shape bright, faint;
  bright.mx = 10, bright.my = 10, bright.a = bright.b = 2, bright.cxx = bright.cyy = 0.25;
  bright.npix = 2000, bright.flux = 1e5;  // a wide profile: 362 ADU at 4 px
  faint = bright;
  faint.mx = 14, faint.flux = 50, faint.npix = 5;
  Iso iso;
  iso.dthresh = 10, iso.mthresh = 15;
  const CleanProfile pb(bright, iso.dthresh, 1.0), pf(faint, iso.dthresh, 1.0);
  EXPECT_EQ(clean_pair(bright, iso, pb, faint, iso, pf, 1.0), CleanPair::kVictim);
  EXPECT_EQ(clean_pair(faint, iso, pf, bright, iso, pb, 1.0), CleanPair::kMaster);
  Shape far = faint;
  far.mx = 10 + 41;  // beyond 10 x (2 + 2)
  EXPECT_EQ(clean_pair(bright, iso, pb, far, iso, pf, 1.0), CleanPair::kNone);
  Iso high = iso;
  high.mthresh = 1e9;  // above any profile
  EXPECT_EQ(clean_pair(faint, high, pf, bright, iso, pb, 1.0), CleanPair::kNone);
}

}  // namespace
