// SExtractor's timeline at the end of the scan (sextractor/scan_order.hpp), against the order of
// events read off scan.c: when the whole image fits in the line buffer, the objects whose
// apertures reach row 0 are written out at the end of the last line, while the blanker (blank_lag
// rows behind) has not yet blanked the last blank_lag - 1 rows, and before the objects touching
// the last row are completed and cleaned (the pixels those merges give back are still blanked).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "celeris/extract.hpp"
#include "extract/sextractor/scan_order.hpp"

using namespace celeris::extract;

namespace {

constexpr int64_t kAfterScan = std::numeric_limits<int64_t>::max();

std::vector<std::pair<int64_t, int64_t>> events(WriteOutSchedule& s, int64_t before) {
  std::vector<std::pair<int64_t, int64_t>> out;
  s.events_before(before, [&](int64_t now, int64_t ymin) { out.emplace_back(now, ymin); });
  return out;
}

Config with_filter(int height) {
  Config c;
  c.filter = true;
  c.filter_width = c.filter_height = height;
  return c;
}

}  // namespace

TEST(WriteOutSchedule, WholeImageWritesOutAtTheEndOfItsLastLine) {
  const LineBuffer b = LineBuffer::of(with_filter(3), 400);
  ASSERT_TRUE(b.holds_whole_image());
  WriteOutSchedule s(b);
  EXPECT_TRUE(events(s, 399).empty());  // objects completed on line 399 join the list first
  const auto e = events(s, 400);        // ... then the buffer wraps round: scan line 400
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].first, 400);  // not after the scan: the last rows are not blanked yet
  EXPECT_EQ(e[0].second, 0);
  EXPECT_TRUE(events(s, kAfterScan).empty());
}

TEST(WriteOutSchedule, FilterTallerThanTheImageNeverWraps) {
  // The buffer is stretched to the 5-line filter, taller than the 4-row image: no event, every
  // object is written out after the scan.
  WriteOutSchedule s(LineBuffer::of(with_filter(5), 4));
  EXPECT_TRUE(events(s, kAfterScan).empty());
  WriteOutSchedule fits(LineBuffer::of(with_filter(5), 5));
  EXPECT_EQ(events(fits, kAfterScan), (std::vector<std::pair<int64_t, int64_t>>{{5, 0}}));
}

TEST(WriteOutSchedule, TallImageEventsFollowTheBuffer) {
  Config c = with_filter(3);
  c.memory_bufsize = 100;
  WriteOutSchedule s(LineBuffer::of(c, 250));  // 100 lines held, 2 read ahead
  const auto e = events(s, kAfterScan);
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(e.front(), (std::pair<int64_t, int64_t>{98, 0}));
  EXPECT_EQ(e.back(), (std::pair<int64_t, int64_t>{247, 149}));
  EXPECT_EQ(e.size(), 150u);
}

TEST(LineBuffer, RowsHeldWhenAnObjectIsWrittenOut) {
  Config c;
  c.filter = false;  // one line read ahead
  c.memory_bufsize = 1024;
  const LineBuffer b = LineBuffer::of(c, 1059);
  // The first 1024 lines are read at once: an object written out early, because the object
  // stack is full, sees them all (SExtractor's readimage.c), not only the lines scanned.
  EXPECT_EQ(b.rows_at_write_out(787).first, 0);
  EXPECT_EQ(b.rows_at_write_out(787).last, 1024);
  // From line rows - margin on, the buffer slides one line a line.
  EXPECT_EQ(b.rows_at_write_out(1023).first, 0);
  EXPECT_EQ(b.rows_at_write_out(1024).first, 1);
  EXPECT_EQ(b.rows_at_write_out(1024).last, 1025);
  // After the scan: the last 1024 rows.
  EXPECT_EQ(b.rows_at_write_out(kAfterScan).first, 35);
  EXPECT_EQ(b.rows_at_write_out(kAfterScan).last, 1059);
}

TEST(BlankingView, LastRowsUnblankedAtTheEndOfTheLastLine) {
  // A 1-column, 4-row image, every pixel detected and owned by no object; 3x3 filter: the
  // blanker runs 2 rows behind the scan.
  const int32_t code[4] = {-1, -1, -1, -1};
  const BlankingView v{code, 1, 3 / 2 + 1};
  EXPECT_TRUE(v.blanked(0, 2, 1, 4));   // row 2 blanked at the end of line 3 (scan line 4)
  EXPECT_FALSE(v.blanked(0, 3, 1, 4));  // the last row only after the scan
  EXPECT_TRUE(v.blanked(0, 3, 1, kAfterScan));
}

TEST(BlankingView, GivenBackAfterTheWriteOutsOfItsLine) {
  // Given back by a merge on scan line 4 (moment 4, code -(2 x 4 + 2)): the write-outs at scan
  // line 4 come first and still see it blanked; from scan line 5 on it is back.
  const int32_t code[4] = {-10, -10, -10, -1};
  const BlankingView v{code, 1, 2};
  EXPECT_TRUE(v.blanked(0, 1, 1, 4));
  EXPECT_FALSE(v.blanked(0, 1, 1, 5));
  EXPECT_FALSE(v.blanked(0, 1, 1, kAfterScan));
  EXPECT_FALSE(v.blanked(0, 2, 1, 3));  // the blanker had not reached row 2 on line 3
}

TEST(BlankingView, DualImageMeasurementBlankedAsScanned) {
  // Dual-image mode's measurement image (immediate): a detected pixel is blanked from the line
  // after its own, where the detection image's blanker (2 rows behind) has not yet come.
  const int32_t code[4] = {-1, -1, -1, -1};
  const BlankingView lagged{code, 1, 2};
  const BlankingView now{code, 1, 2, true};
  EXPECT_FALSE(lagged.blanked(0, 3, 1, 4));  // the last row at the end of the last line
  EXPECT_TRUE(now.blanked(0, 3, 1, 4));
  EXPECT_FALSE(now.blanked(0, 3, 1, 3));  // not before its line is scanned
  // Given back by a merge on line 5: row 4 had been blanked as scanned (lines 5 on) and is
  // restored after line 5's write-outs; the lagging blanker reaches it at line 6 and blanks it
  // again (code -(2 x 5 + 1 + 2)). Row 1, long passed by both, stays restored (-(2 x 5 + 2)).
  const int32_t back[6] = {0, -12, 0, 0, -13, 0};
  const BlankingView v{back, 1, 2, true};
  EXPECT_TRUE(v.blanked(0, 4, 1, 5));
  EXPECT_TRUE(v.blanked(0, 4, 1, 6));
  EXPECT_TRUE(v.blanked(0, 1, 1, 5));
  EXPECT_FALSE(v.blanked(0, 1, 1, 6));
  EXPECT_FALSE(v.blanked(0, 1, 1, kAfterScan));
  // Given back on line 6 instead: restored between the write-outs of line 6 and line 7.
  const int32_t late[6] = {0, 0, 0, 0, -15, 0};
  const BlankingView u{late, 1, 3, true};  // a 5x5 filter: 3 rows behind, at line 7
  EXPECT_TRUE(u.blanked(0, 4, 1, 6));
  EXPECT_TRUE(u.blanked(0, 4, 1, 7));
  const int32_t late2[6] = {0, 0, 0, 0, -13, 0};  // merged on line 5, re-blanked at line 7
  const BlankingView u2{late2, 1, 3, true};
  EXPECT_FALSE(u2.blanked(0, 4, 1, 6));
  EXPECT_TRUE(u2.blanked(0, 4, 1, 7));
}

TEST(BlankingView, StackFullWriteOutSeesTheMergesMadeBeforeItOnItsLine) {
  // On scan line 10 three objects complete, in order: the first merges object A (its pixel at
  // row 2), the second finds the object stack full and writes an old object out, then merges B
  // (row 3); the third merges C (row 4). With one stack-full write-out before line 10 (moment =
  // line + 1 there), that write-out is moment 10 + 2: A's merge (moment 11) is made, B's and
  // C's (moment 12) are not. The write-outs when line 10 begins (moment 11) see all three
  // blanked, those of line 11 (moment 12... 13) none.
  const int32_t code[5] = {0, 0, -(2 * 11) - 2, -(2 * 12) - 2, -(2 * 12) - 2};
  const BlankingView v{code, 1, 2};
  EXPECT_TRUE(v.blanked(0, 2, 1, 10, 11));
  EXPECT_TRUE(v.blanked(0, 3, 1, 10, 11));
  EXPECT_FALSE(v.blanked(0, 2, 1, 10, 12));  // A given back before the stack-full write-out
  EXPECT_TRUE(v.blanked(0, 3, 1, 10, 12));   // B and C after it
  EXPECT_TRUE(v.blanked(0, 4, 1, 10, 12));
  EXPECT_FALSE(v.blanked(0, 3, 1, 11, 13));
  EXPECT_FALSE(v.blanked(0, 4, 1, kAfterScan));
}
