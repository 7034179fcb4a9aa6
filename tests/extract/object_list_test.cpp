// objects.hpp ObjectList: pixel weights (var, dthresh) kept only in lists that have them, and
// every pixel's 0 elsewhere, through views, appends and concatenations.
#include <gtest/gtest.h>

#include <vector>

#include "extract/objects.hpp"

using namespace celeris::extract;

namespace {

ObjectList two_objects(bool weights, float base) {
  ObjectList l;
  l.pixel_weights = weights;
  l.push_pixel({1, 2, base, base + 1, base + 2, base + 3});
  l.push_pixel({3, 4, base + 4, base + 5, base + 6, base + 7});
  l.end_object(1);
  l.push_pixel({5, 6, base + 8, base + 9, base + 10, base + 11});
  l.end_object(2);
  return l;
}

}  // namespace

TEST(ObjectList, WithoutPixelWeightsTheColumnsStayEmptyAndReadZero) {
  const ObjectList l = two_objects(false, 10);
  EXPECT_TRUE(l.var.empty());
  EXPECT_TRUE(l.dthresh.empty());
  EXPECT_EQ(l.pixel_count(), 3u);
  const ObjectView v = l[0];
  EXPECT_EQ(v.var, nullptr);
  const Pixel p = v[1];
  EXPECT_EQ(p.x, 3);
  EXPECT_EQ(p.value, 14.0f);
  EXPECT_EQ(p.cvalue, 15.0f);
  EXPECT_EQ(p.var, 0.0f);
  EXPECT_EQ(p.dthresh, 0.0f);
}

TEST(ObjectList, WithPixelWeightsEveryPixelKeepsItsOwn) {
  const ObjectList l = two_objects(true, 10);
  ASSERT_EQ(l.var.size(), 3u);
  const Pixel p = l[1][0];
  EXPECT_EQ(p.var, 20.0f);
  EXPECT_EQ(p.dthresh, 21.0f);
  // of(): weights where a pixel has them.
  EXPECT_FALSE(ObjectList::of({{0, 0, 1.0f, 1.0f}}).pixel_weights);
  EXPECT_TRUE(ObjectList::of({{0, 0, 1.0f, 1.0f}, {1, 0, 1.0f, 1.0f, 0.0f, 2.0f}}).pixel_weights);
}

TEST(ObjectList, AppendAndConcatenateMixWeightsWithZeros) {
  // A list without weights, then one with: the first's pixels 0, the second's their own.
  ObjectList a = two_objects(false, 10);
  a.append(two_objects(true, 100));
  ASSERT_TRUE(a.pixel_weights);
  ASSERT_EQ(a.var.size(), 6u);
  EXPECT_EQ(a[1][0].var, 0.0f);
  EXPECT_EQ(a[2][0].var, 102.0f);
  EXPECT_EQ(a[3][0].dthresh, 111.0f);
  // And the other way round.
  ObjectList b = two_objects(true, 10);
  b.append(two_objects(false, 100));
  ASSERT_EQ(b.dthresh.size(), 6u);
  EXPECT_EQ(b[0][1].dthresh, 17.0f);
  EXPECT_EQ(b[3][0].dthresh, 0.0f);
  // Without weights on either side: none kept.
  ObjectList c = two_objects(false, 10);
  c.append(two_objects(false, 100));
  EXPECT_FALSE(c.pixel_weights);
  EXPECT_TRUE(c.var.empty());
  EXPECT_EQ(c[3][0].value, 108.0f);

  std::vector<ObjectList> parts;
  parts.push_back(two_objects(false, 10));
  parts.push_back(two_objects(true, 100));
  parts.push_back(two_objects(false, 200));
  const ObjectList all = ObjectList::concatenate(parts, 2);
  ASSERT_TRUE(all.pixel_weights);
  ASSERT_EQ(all.var.size(), 9u);
  EXPECT_EQ(all[1][0].var, 0.0f);
  EXPECT_EQ(all[2][1].var, 106.0f);
  EXPECT_EQ(all[5][0].var, 0.0f);
  EXPECT_EQ(all[5][0].value, 208.0f);
  std::vector<ObjectList> plain;
  plain.push_back(two_objects(false, 10));
  plain.push_back(two_objects(false, 20));
  EXPECT_TRUE(ObjectList::concatenate(plain).var.empty());
  // add_pixel_weights: the pixels so far 0, the next ones their own.
  ObjectList d = two_objects(false, 10);
  d.add_pixel_weights();
  d.push_pixel({7, 8, 1.0f, 1.0f, 5.0f, 6.0f});
  d.end_object(0);
  EXPECT_EQ(d[0][0].var, 0.0f);
  EXPECT_EQ(d[2][0].var, 5.0f);
}
