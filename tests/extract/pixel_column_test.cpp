// pixel_column.hpp: a column given storage filled elsewhere (lend_column) reads that storage
// without a copy, keeps it alive while it uses it, and lets it go when destroyed, grown past it,
// moved over or given other storage; copies and growth are the heap's, with the same elements.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "extract/objects.hpp"
#include "extract/pixel_column.hpp"

using namespace celeris::extract;

namespace {

// Storage as the GPU front end lends it: values 0, 1, 2, ... in memory owned by a shared_ptr
// whose use count tells whether a column still holds it.
struct Lent {
  std::shared_ptr<std::vector<float>> storage;
  explicit Lent(size_t n) : storage(std::make_shared<std::vector<float>>(n)) {
    std::iota(storage->begin(), storage->end(), 0.0f);
  }
  float* data() { return storage->data(); }
  long holders() const { return storage.use_count() - 1; }  // besides this one
};

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

}  // namespace

TEST(PixelColumn, LentStorageIsReadWithoutACopy) {
  Lent lent(1000);
  PixelColumn<float> c = {7.0f, 8.0f};  // its old storage is freed
  lend_column(c, lent.data(), 1000, lent.storage);
  EXPECT_EQ(c.data(), lent.data());
  EXPECT_EQ(c.size(), 1000u);
  EXPECT_EQ(std::vector<float>(c.begin(), c.end()), iota(1000));
  EXPECT_EQ(lent.holders(), 1);
  // Written in place: the storage is the column's.
  c[5] = -1.0f;
  EXPECT_EQ((*lent.storage)[5], -1.0f);
}

TEST(PixelColumn, DestroyedColumnLetsTheStorageGo) {
  Lent lent(100);
  {
    PixelColumn<float> c;
    lend_column(c, lent.data(), 100, lent.storage);
    EXPECT_EQ(lent.holders(), 1);
  }
  EXPECT_EQ(lent.holders(), 0);
}

TEST(PixelColumn, GrownPastItsStorageTheColumnMovesToTheHeap) {
  Lent lent(100);
  PixelColumn<float> c;
  lend_column(c, lent.data(), 100, lent.storage);
  c.push_back(100.0f);
  EXPECT_NE(c.data(), lent.data());
  EXPECT_EQ(std::vector<float>(c.begin(), c.end()), iota(101));
  EXPECT_EQ(lent.holders(), 0);
  // Later growth never comes back to the storage it let go.
  c.clear();
  c.shrink_to_fit();
  c.resize(50);
  EXPECT_NE(c.data(), lent.data());
}

TEST(PixelColumn, ShrunkOrClearedItKeepsTheStorage) {
  Lent lent(100);
  PixelColumn<float> c;
  lend_column(c, lent.data(), 100, lent.storage);
  c.resize(10);
  c.clear();
  c.resize(100);  // within its capacity: the same storage
  EXPECT_EQ(c.data(), lent.data());
  EXPECT_EQ(lent.holders(), 1);
}

TEST(PixelColumn, CopiesAreOnTheHeapAndMovesTakeTheStorage) {
  Lent lent(64);
  PixelColumn<float> c;
  lend_column(c, lent.data(), 64, lent.storage);
  PixelColumn<float> copy = c;
  EXPECT_NE(copy.data(), lent.data());
  EXPECT_EQ(std::vector<float>(copy.begin(), copy.end()), iota(64));
  EXPECT_FALSE(copy.get_allocator().holds_lent());
  PixelColumn<float> assigned = {1.0f};
  assigned = c;  // copy assignment: the target's own allocator, on the heap
  EXPECT_NE(assigned.data(), lent.data());
  EXPECT_EQ(lent.holders(), 1);

  PixelColumn<float> moved = std::move(c);
  EXPECT_EQ(moved.data(), lent.data());
  EXPECT_EQ(lent.holders(), 1);
  PixelColumn<float> target = {1.0f, 2.0f};
  target = std::move(moved);
  EXPECT_EQ(target.data(), lent.data());
  EXPECT_EQ(lent.holders(), 1);
  // Moved over, a column lets its lent storage go.
  target = PixelColumn<float>{3.0f};
  EXPECT_EQ(lent.holders(), 0);
  EXPECT_EQ(target.size(), 1u);
}

TEST(PixelColumn, SwappedColumnsKeepTheirStorages) {
  Lent a(10), b(20);
  PixelColumn<float> ca, cb;
  lend_column(ca, a.data(), 10, a.storage);
  lend_column(cb, b.data(), 20, b.storage);
  std::swap(ca, cb);
  EXPECT_EQ(ca.data(), b.data());
  EXPECT_EQ(cb.data(), a.data());
  ca = PixelColumn<float>{};
  EXPECT_EQ(b.holders(), 0);
  EXPECT_EQ(a.holders(), 1);
}

TEST(PixelColumn, LendingNothingGivesAnEmptyColumn) {
  Lent lent(0);
  PixelColumn<float> c = {1.0f};
  lend_column(c, lent.data(), 0, lent.storage);
  EXPECT_TRUE(c.empty());
}

TEST(PixelColumn, AListWithLentColumnsReadsAsOneWithCopiedOnes) {
  // Two objects of 2 and 1 pixels, their columns lent from one buffer each as the GPU front end
  // gives them (x then y; value then cvalue).
  auto xy = std::make_shared<std::vector<int32_t>>(std::vector<int32_t>{1, 3, 5, 2, 4, 6});
  auto values = std::make_shared<std::vector<float>>(std::vector<float>{10, 14, 18, 11, 15, 19});
  ObjectList l;
  lend_column(l.x, xy->data(), 3, xy);
  lend_column(l.y, xy->data() + 3, 3, xy);
  lend_column(l.value, values->data(), 3, values);
  lend_column(l.cvalue, values->data() + 3, 3, values);
  l.offset = {0, 2, 3};
  l.flags = {1, 2};
  l.fixed_centre = {0, 0};
  l.cx = {0, 0};
  l.cy = {0, 0};
  ObjectList copied;
  copied.push_pixel({1, 2, 10, 11});
  copied.push_pixel({3, 4, 14, 15});
  copied.end_object(1);
  copied.push_pixel({5, 6, 18, 19});
  copied.end_object(2);
  ASSERT_EQ(l.size(), copied.size());
  for (size_t k = 0; k < l.size(); ++k) {
    ASSERT_EQ(l.count(k), copied.count(k));
    for (size_t i = 0; i < l.count(k); ++i) {
      const Pixel a = l[k][i], b = copied[k][i];
      EXPECT_EQ(a.x, b.x);
      EXPECT_EQ(a.y, b.y);
      EXPECT_EQ(a.value, b.value);
      EXPECT_EQ(a.cvalue, b.cvalue);
    }
  }
  // Appended to, the list's columns move to the heap with their pixels.
  l.append(copied);
  EXPECT_EQ(l.pixel_count(), 6u);
  EXPECT_EQ(l[2][0].x, 1);
  EXPECT_EQ(l[3][0].cvalue, 19.0f);
  EXPECT_EQ(xy.use_count(), 1);
  EXPECT_EQ(values.use_count(), 1);
}
