// Objects between detection and measurement, as flat arrays: the pixels of all objects in one
// set of columns, object k's pixels at [offset[k], offset[k + 1]) in chain order (the order in
// which SExtractor's scan linked them: deblending's pixel draws and CLEAN's threshold depend on
// it), and one entry per object in the per-object columns. The same layout lives on the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace celeris::extract {

// One pixel of an object, as read from the columns.
struct Pixel {
  int32_t x = 0, y = 0;
  float value = 0.0f;   // background-subtracted measurement pixel
  float cvalue = 0.0f;  // filtered detection pixel (== value when FILTER N)
  // With weights (stages/weights.hpp) only, else 0: the measurement variance and the
  // pixel's own detection threshold (SExtractor's PLIST var and dthresh).
  float var = 0.0f, dthresh = 0.0f;
};

// One object's pixels and per-object fields, without ownership: what a stage needs to work on
// one object. Iterating yields Pixel values.
struct ObjectView {
  const int32_t* x = nullptr;
  const int32_t* y = nullptr;
  const float* value = nullptr;
  const float* cvalue = nullptr;
  const float* var = nullptr;
  const float* dthresh = nullptr;
  size_t count = 0;
  uint16_t flags = 0;
  // Deblended children keep the barycentre found during deblending (SExtractor's ANALYSE_ROBUST
  // for merged objects): moments are then taken about this point.
  bool fixed_centre = false;
  double cx = 0.0, cy = 0.0;

  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  Pixel operator[](size_t i) const { return {x[i], y[i], value[i], cvalue[i], var[i], dthresh[i]}; }

  struct Iterator {
    const ObjectView* o;
    size_t i;
    Pixel operator*() const { return (*o)[i]; }
    Iterator& operator++() {
      ++i;
      return *this;
    }
    bool operator!=(const Iterator& b) const { return i != b.i; }
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, count}; }
};

struct ObjectList {
  // Pixel columns of all objects.
  std::vector<int32_t> x, y;
  std::vector<float> value, cvalue;
  std::vector<float> var, dthresh;    // Pixel::var, Pixel::dthresh
  std::vector<int64_t> offset = {0};  // size() + 1 entries
  // Per-object columns.
  std::vector<uint16_t> flags;
  std::vector<uint8_t> fixed_centre;
  std::vector<double> cx, cy;

  size_t size() const { return flags.size(); }
  size_t pixel_count() const { return x.size(); }
  size_t count(size_t k) const { return static_cast<size_t>(offset[k + 1] - offset[k]); }

  ObjectView operator[](size_t k) const {
    const int64_t b = offset[k];
    return {x.data() + b,
            y.data() + b,
            value.data() + b,
            cvalue.data() + b,
            var.data() + b,
            dthresh.data() + b,
            count(k),
            flags[k],
            fixed_centre[k] != 0,
            cx[k],
            cy[k]};
  }

  // Building: push_pixel() the pixels of an object, then end_object() closes it.
  void push_pixel(const Pixel& p) {
    x.push_back(p.x);
    y.push_back(p.y);
    value.push_back(p.value);
    cvalue.push_back(p.cvalue);
    var.push_back(p.var);
    dthresh.push_back(p.dthresh);
  }
  void end_object(uint16_t object_flags, bool fixed = false, double centre_x = 0.0,
                  double centre_y = 0.0) {
    offset.push_back(static_cast<int64_t>(x.size()));
    flags.push_back(object_flags);
    fixed_centre.push_back(fixed ? 1 : 0);
    cx.push_back(centre_x);
    cy.push_back(centre_y);
  }
  // Appends every object of `b` after those of this list.
  void append(const ObjectList& b);
  void reserve_pixels(size_t n) {
    x.reserve(n);
    y.reserve(n);
    value.reserve(n);
    cvalue.reserve(n);
    var.reserve(n);
    dthresh.reserve(n);
  }
  // A list of one object holding `pixels` (tests, small tools).
  static ObjectList of(const std::vector<Pixel>& pixels, uint16_t object_flags = 0) {
    ObjectList l;
    for (const Pixel& p : pixels) l.push_pixel(p);
    l.end_object(object_flags);
    return l;
  }
  // Concatenates lists made in parallel, in order.
  static ObjectList concatenate(std::vector<ObjectList>& parts);
};

inline void ObjectList::append(const ObjectList& b) {
  const int64_t base = offset.back();
  x.insert(x.end(), b.x.begin(), b.x.end());
  y.insert(y.end(), b.y.begin(), b.y.end());
  value.insert(value.end(), b.value.begin(), b.value.end());
  cvalue.insert(cvalue.end(), b.cvalue.begin(), b.cvalue.end());
  var.insert(var.end(), b.var.begin(), b.var.end());
  dthresh.insert(dthresh.end(), b.dthresh.begin(), b.dthresh.end());
  for (size_t k = 1; k < b.offset.size(); ++k) offset.push_back(base + b.offset[k]);
  flags.insert(flags.end(), b.flags.begin(), b.flags.end());
  fixed_centre.insert(fixed_centre.end(), b.fixed_centre.begin(), b.fixed_centre.end());
  cx.insert(cx.end(), b.cx.begin(), b.cx.end());
  cy.insert(cy.end(), b.cy.begin(), b.cy.end());
}

inline ObjectList ObjectList::concatenate(std::vector<ObjectList>& parts) {
  ObjectList out;
  size_t n = 0;
  for (const ObjectList& p : parts) n += p.pixel_count();
  out.reserve_pixels(n);
  for (ObjectList& p : parts) {
    out.append(p);
    p = ObjectList{};
  }
  return out;
}

}  // namespace celeris::extract
