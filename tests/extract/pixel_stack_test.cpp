// SExtractor's pixel stack (src/extract/sextractor/pixel_stack.hpp) in detection: detect() with
// a bounded stack against a reference that keeps the pixels in an actual pool of MEMORY_PIXSTACK
// slots with a free list ending on a slot never handed out, and runs the one-pass scan with the
// arrays scanimage uses (open objects, objects parked by column, markers, a status stack), so
// that which object is freed, and when, follows from the pool itself rather than from a count.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/extract_settings.hpp"
#include "celeris/simulate.hpp"
#include "extract/stages/detect.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

struct RefObject {
  std::vector<int64_t> pixels;  // y * w + x, chain order
  uint16_t flags = 0;
};

struct RefScan {
  std::vector<RefObject> objects;  // completion order
  std::vector<PixelStackOverflow> overflows;
};

// The reference: pool slots linked through `link`, a free list from `free_head` to the
// sentinel `free_tail`; an object is (head slot, tail slot, pixel count, flags).
RefScan reference_scan(const std::vector<uint8_t>& m, int w, int h, int minarea, int slots) {
  struct Obj {
    int head = -1, tail = -1, n = 0;
    uint16_t flags = 0;
  };
  enum State { Complete, Incomplete, Outside, Inside };
  std::vector<int> link(slots);
  std::vector<int64_t> where(slots, -1);
  for (int i = 0; i < slots; ++i) link[i] = i + 1 < slots ? i + 1 : -1;
  int free_head = 0;
  const int free_tail = slots - 1;
  std::vector<Obj> open(w + 2), parked(w + 1);  // open[1..depth]
  std::vector<char> mark(w + 1, 0);
  std::vector<int> first_run(w + 2, 0), run_end(w + 2, 0);
  std::vector<State> states(2 * w + 4);
  int depth = 0, nstates = 0;
  const int kUnknown = -1;
  auto merge = [&](Obj& a, const Obj& b) {
    a.n += b.n;
    a.flags |= b.flags;
    if (a.head == -1) {
      a.head = b.head;
      a.tail = b.tail;
    } else if (b.tail != -1) {
      link[a.tail] = b.head;
      a.tail = b.tail;
    }
  };
  RefScan out;
  for (int y = 0; y <= h; ++y) {
    State above = Complete, here = Outside;
    for (int x = 0; x <= w; ++x) {
      const char was = mark[x];
      mark[x] = 0;
      const bool on = y < h && x < w && m[static_cast<size_t>(y) * w + x];
      Obj pixel;
      if (on) {
        const int slot = free_head;
        free_head = link[slot];
        if (free_head == free_tail) {  // only the sentinel is left: free the largest object
          out.overflows.push_back({x, y});
          Obj* victim = nullptr;
          int most = 0;
          for (int i = 0; i <= w; ++i)
            if (parked[i].n > most && (mark[i] == 'S' || (was == 'S' && i == x))) {
              bool stale = false;
              if (i < x)
                for (int j = 0; j <= depth; ++j) stale = stale || first_run[j] == i;
              if (!stale) most = (victim = &parked[i])->n;
            }
          for (int j = 1; j <= depth; ++j)
            if (open[j].n > most) most = (victim = &open[j])->n;
          if (most <= 1) throw Error("reference: nothing to free");
          free_head = link[victim->head];
          link[victim->tail] = free_tail;
          victim->tail = victim->head;
          link[victim->head] = -1;
          victim->n = 1;
          victim->flags |= kFlagExtractOverflow;
        }
        link[slot] = -1;
        where[slot] = static_cast<int64_t>(y) * w + x;
        pixel = {slot, slot, 1,
                 static_cast<uint16_t>(
                     (x == 0 || y == 0 || x == w - 1 || y == h - 1) ? kFlagTruncated : 0)};
        if (here != Inside) {  // a run starts
          here = Inside;
          if (above == Inside) {
            if (first_run[depth] == kUnknown) {
              mark[x] = 'S';
              first_run[depth] = x;
            } else {
              mark[x] = 's';
            }
          } else {
            states[nstates++] = above;
            mark[x] = 'S';
            first_run[++depth] = x;
            above = Complete;
            open[depth] = Obj{};
          }
        }
      }
      if (was == 'S') {
        states[nstates++] = above;
        if (here == Outside) {
          states[nstates++] = Complete;
          open[++depth] = parked[x];
          first_run[depth] = kUnknown;
        } else {
          merge(open[depth], parked[x]);
        }
        above = Inside;
      } else if (was == 's') {
        if (here == Inside && above == Complete) {
          --nstates;
          const int x2 = first_run[depth];
          merge(open[depth - 1], open[depth]);
          if (first_run[--depth] == kUnknown)
            first_run[depth] = x2;
          else
            mark[x2] = 's';
        }
        above = Inside;
      } else if (was == 'f') {
        above = Incomplete;
      } else if (was == 'F') {
        above = states[--nstates];
        if (here == Outside && above == Complete) {
          if (first_run[depth] == kUnknown) {
            Obj& o = open[depth];
            if (o.n >= minarea) {
              RefObject r;
              for (int s = o.head; s >= 0; s = link[s]) r.pixels.push_back(where[s]);
              r.flags = o.flags;
              out.objects.push_back(r);
            }
            link[o.tail] = free_head;  // the chain goes back to the pool
            free_head = o.head;
          } else {
            mark[run_end[depth]] = 'F';
            parked[first_run[depth]] = open[depth];
          }
          --depth;
          above = states[--nstates];
        }
      }
      if (on) {
        merge(open[depth], pixel);
      } else if (here == Inside) {  // a run ends
        here = Outside;
        if (above != Complete) {
          mark[x] = 'f';
          run_end[depth] = x;
        } else {
          above = states[--nstates];
          mark[x] = 'F';
          parked[first_run[depth]] = open[depth];
          --depth;
        }
      }
    }
  }
  return out;
}

struct Field {
  int w = 0, h = 0;
  std::vector<uint8_t> mask;
  Image<float> value;
};

// Blobs of random size on a sparse background: a few large objects open across many rows
// (the victims) among many small ones.
Field random_field(std::mt19937& rng) {
  Field f;
  f.w = 20 + static_cast<int>(rng() % 100);
  f.h = 20 + static_cast<int>(rng() % 100);
  f.mask.assign(static_cast<size_t>(f.w) * f.h, 0);
  const double sparse = (rng() % 30) / 100.0;
  for (auto& v : f.mask) v = (rng() % 1000) < sparse * 1000;
  const int blobs = 1 + static_cast<int>(rng() % 8);
  for (int b = 0; b < blobs; ++b) {
    const int cx = static_cast<int>(rng() % f.w), cy = static_cast<int>(rng() % f.h);
    const int rx = 2 + static_cast<int>(rng() % 25), ry = 2 + static_cast<int>(rng() % 25);
    for (int y = std::max(0, cy - ry); y < std::min(f.h, cy + ry); ++y)
      for (int x = std::max(0, cx - rx); x < std::min(f.w, cx + rx); ++x)
        if ((x - cx) * (x - cx) * ry * ry + (y - cy) * (y - cy) * rx * rx <= rx * rx * ry * ry &&
            rng() % 10 != 0)  // holes: runs that split and join
          f.mask[static_cast<size_t>(y) * f.w + x] = 1;
  }
  f.value = Image<float>(f.w, f.h);
  for (size_t i = 0; i < f.mask.size(); ++i) f.value.data()[i] = f.mask[i] ? 2.0f : 0.0f;
  return f;
}

void expect_same(const ObjectList& got, const RefScan& ref, int w, const std::string& what) {
  ASSERT_EQ(got.size(), ref.objects.size()) << what;
  for (size_t k = 0; k < got.size(); ++k) {
    const RefObject& r = ref.objects[k];
    ASSERT_EQ(got.count(k), r.pixels.size()) << what << " object " << k;
    for (size_t i = 0; i < r.pixels.size(); ++i) {
      const size_t p = static_cast<size_t>(got.offset[k]) + i;
      ASSERT_EQ(static_cast<int64_t>(got.y[p]) * w + got.x[p], r.pixels[i])
          << what << " object " << k << " pixel " << i;
    }
    EXPECT_EQ(got.flags[k], r.flags) << what << " object " << k;
  }
}

}  // namespace

// Stacks from far too small to ample: objects, chain order, FLAGS (128, and 8 kept from a
// dropped border pixel) and overflow positions as the pool gives them.
TEST(PixelStack, DetectEqualsPoolReference) {
  std::mt19937 rng(19);
  int overflowing = 0, fatal = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Field f = random_field(rng);
    const int minarea = 1 + static_cast<int>(rng() % 5);
    int64_t total = 0;
    for (uint8_t v : f.mask) total += v;
    const int slots = static_cast<int>(2 + rng() % std::max<int64_t>(total + 5, 3));
    const std::string what = "trial " + std::to_string(trial) + " stack " + std::to_string(slots);
    RefScan ref;
    bool ref_fatal = false;
    try {
      ref = reference_scan(f.mask, f.w, f.h, minarea, slots);
    } catch (const Error&) {
      ref_fatal = true;
    }
    std::vector<PixelStackOverflow> overflows;
    if (ref_fatal) {  // no object with two pixels to give back: refused, as SExtractor exits
      ++fatal;
      EXPECT_THROW(detect(f.value.view(), f.value.view(), {1.0f, minarea, slots}, &overflows),
                   Error)
          << what;
      continue;
    }
    const ObjectList got =
        detect(f.value.view(), f.value.view(), {1.0f, minarea, slots}, &overflows);
    expect_same(got, ref, f.w, what);
    ASSERT_EQ(overflows.size(), ref.overflows.size()) << what;
    for (size_t i = 0; i < overflows.size(); ++i) {
      EXPECT_EQ(overflows[i].x, ref.overflows[i].x) << what;
      EXPECT_EQ(overflows[i].y, ref.overflows[i].y) << what;
    }
    overflowing += !overflows.empty();
  }
  // The draw must exercise all three regimes.
  EXPECT_GT(overflowing, 100);
  EXPECT_GT(fatal, 5);
  EXPECT_LT(overflowing + fatal, 390);
}

// Without overflow the bounded scan is the unbounded one, byte for byte.
TEST(PixelStack, AmpleStackChangesNothing) {
  std::mt19937 rng(20);
  for (int trial = 0; trial < 50; ++trial) {
    const Field f = random_field(rng);
    std::vector<PixelStackOverflow> overflows;
    const ObjectList a = detect(f.value.view(), f.value.view(), {1.0f, 3, 0});
    const ObjectList b = detect(f.value.view(), f.value.view(),
                                {1.0f, 3, static_cast<int64_t>(f.mask.size()) + 2}, &overflows);
    EXPECT_TRUE(overflows.empty());
    EXPECT_EQ(a.offset, b.offset);
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.y, b.y);
    EXPECT_EQ(a.flags, b.flags);
  }
}

// One 10 x 10 square with a stack of 60: the square loses its pixels at its 59th pixel (row 6,
// column 9), keeps its first, and the rows below refill it: 2 + 41 pixels, FLAGS 128.
TEST(PixelStack, SquareLosesAllButItsFirstPixel) {
  const int w = 12, h = 12;
  Image<float> v(w, h);
  for (int y = 1; y <= 10; ++y)
    for (int x = 1; x <= 10; ++x) v(x, y) = 2.0f;
  std::vector<PixelStackOverflow> overflows;
  const ObjectList got = detect(v.view(), v.view(), {1.0f, 1, 60}, &overflows);
  ASSERT_EQ(overflows.size(), 1u);
  EXPECT_EQ(overflows[0].x, 9);
  EXPECT_EQ(overflows[0].y, 6);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.count(0), 43u);
  EXPECT_EQ(got.x[0], 1);  // the chain's first pixel
  EXPECT_EQ(got.y[0], 1);
  EXPECT_EQ(got.x[1], 9);  // then the pixel that overflowed
  EXPECT_EQ(got.y[1], 6);
  EXPECT_EQ(got.flags[0], kFlagExtractOverflow);
}

// The GPU's test: the bound is never below the exact peak of the pool.
TEST(PixelStack, BoundIsAtLeastThePeak) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 100; ++trial) {
    const Field f = random_field(rng);
    const int minarea = 1 + static_cast<int>(rng() % 8);
    const ObjectList d = detect(f.value.view(), f.value.view(), {1.0f, minarea, 0});
    const int64_t bound = pixel_stack_bound(f.value.view(), f.value.view(), 1.0f, d, 2);
    // A stack of bound + 2 never overflows; one of bound + 1 may.
    std::vector<PixelStackOverflow> overflows;
    detect(f.value.view(), f.value.view(), {1.0f, minarea, bound + 2}, &overflows);
    EXPECT_TRUE(overflows.empty()) << trial;
    // With every pixel lit until the last row, the bound is exact: the whole frame held.
  }
  Image<float> full(7, 5);
  for (int64_t i = 0; i < full.size(); ++i) full.data()[i] = 2.0f;
  const ObjectList d = detect(full.view(), full.view(), {1.0f, 1, 0});
  EXPECT_EQ(pixel_stack_bound(full.view(), full.view(), 1.0f, d, 1), 35);
}

TEST(PixelStack, SettingHonouredInSExtractorsRange) {
  EXPECT_EQ(parse_settings("", {}).config.memory_pixstack, 300000);
  EXPECT_EQ(parse_settings("MEMORY_PIXSTACK 20000\n", {}).config.memory_pixstack, 20000);
  EXPECT_TRUE(parse_settings("MEMORY_PIXSTACK 20000\n", {}).warnings.empty());
  for (const char* bad : {"999", "100000001", "3.5"})
    EXPECT_THROW(parse_settings("", {{"MEMORY_PIXSTACK", bad}}), Error) << bad;
}

// Through the pipeline: the warnings in RunInfo (SExtractor's words, 1-based), FLAGS 128 in the
// catalog, and the frame the GPU test (gpu_front_end_test.cpp) relies on does overflow.
TEST(PixelStack, ExtractWarnsAndFlags) {
  sim::ImageParams p;
  p.width = 700;
  p.height = 500;
  p.seed = 5;
  p.n_nan_patches = 4;
  p.n_stars = 700 * 500 / 2000;
  const Image<float> img = sim::simulate_image(p).pixels;
  Config c;
  c.detect_thresh = c.analysis_thresh = 0.3;
  c.memory_pixstack = 1000;
  const Result small = extract::extract(img.view(), c);
  ASSERT_FALSE(small.info.warnings.empty());
  EXPECT_EQ(small.info.warnings[0].rfind("Pixel stack overflow at position ", 0), 0u);
  size_t flagged = 0;
  for (uint16_t f : small.objects.flags) flagged += (f & kFlagExtractOverflow) != 0;
  EXPECT_GT(flagged, 0u);
  c.memory_pixstack = 0;  // no limit
  const Result ample = extract::extract(img.view(), c);
  EXPECT_TRUE(ample.info.warnings.empty());
  for (uint16_t f : ample.objects.flags) EXPECT_EQ(f & kFlagExtractOverflow, 0);
  c.memory_pixstack = -1;
  EXPECT_THROW(extract::extract(img.view(), c), Error);
}
