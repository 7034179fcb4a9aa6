// Objects between detection and measurement, as flat arrays: the pixels of all objects in one
// set of columns, object k's pixels at [offset[k], offset[k + 1]) in chain order (the order in
// which SExtractor's scan linked them: deblending's pixel draws and CLEAN's threshold depend on
// it), and one entry per object in the per-object columns. The same layout lives on the GPU.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "celeris/image.hpp"
#include "extract/pixel_column.hpp"

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
  const float* var = nullptr;  // null: a list without pixel weights (every pixel's 0)
  const float* dthresh = nullptr;
  size_t count = 0;
  uint16_t flags = 0;
  // Deblended children keep the barycentre found during deblending (SExtractor's ANALYSE_ROBUST
  // for merged objects): moments are then taken about this point.
  bool fixed_centre = false;
  double cx = 0.0, cy = 0.0;

  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  Pixel operator[](size_t i) const {
    return {x[i], y[i], value[i], cvalue[i], var ? var[i] : 0.0f, dthresh ? dthresh[i] : 0.0f};
  }

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
  PixelColumn<int32_t> x, y;
  PixelColumn<float> value, cvalue;
  // Pixel::var and Pixel::dthresh, kept only with `pixel_weights` (a detection with weight
  // maps); without, they stay empty and every pixel's are 0: a frame without weights neither
  // fills, copies nor permutes two columns of zeros (a third of the GPU front end's gather).
  PixelColumn<float> var, dthresh;
  bool pixel_weights = false;
  std::vector<int64_t> offset = {0};  // size() + 1 entries
  // Per-object columns.
  std::vector<uint16_t> flags;
  std::vector<uint8_t> fixed_centre;
  std::vector<double> cx, cy;

  size_t size() const { return flags.size(); }
  size_t pixel_count() const { return x.size(); }
  size_t count(size_t k) const { return static_cast<size_t>(offset[k + 1] - offset[k]); }

  ObjectView operator[](size_t k) const { return view_over(*this, k); }
  // Object k with its pixels read from `pixels`' columns at this list's offsets (a list whose
  // pixel columns were moved to another: the deblending's detections, stages/deblend.cpp).
  ObjectView view_over(const ObjectList& pixels, size_t k) const {
    const int64_t b = offset[k];
    const bool weights = pixels.pixel_weights;
    return {pixels.x.data() + b,
            pixels.y.data() + b,
            pixels.value.data() + b,
            pixels.cvalue.data() + b,
            weights ? pixels.var.data() + b : nullptr,
            weights ? pixels.dthresh.data() + b : nullptr,
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
    if (pixel_weights) {
      var.push_back(p.var);
      dthresh.push_back(p.dthresh);
    }
  }
  // Keeps var and dthresh from now on, those of the pixels so far 0.
  void add_pixel_weights() {
    if (pixel_weights) return;
    var.assign(x.size(), 0.0f);
    dthresh.assign(x.size(), 0.0f);
    pixel_weights = true;
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
  // Empty, keeping every column's storage (a list refilled for the next object).
  void clear() {
    for (auto* c : {&x, &y}) c->clear();
    for (auto* c : {&value, &cvalue, &var, &dthresh}) c->clear();
    offset.assign(1, 0);
    flags.clear();
    fixed_centre.clear();
    cx.clear();
    cy.clear();
  }
  void reserve_pixels(size_t n) {
    x.reserve(n);
    y.reserve(n);
    value.reserve(n);
    cvalue.reserve(n);
    if (pixel_weights) {
      var.reserve(n);
      dthresh.reserve(n);
    }
  }
  // A list of one object holding `pixels` (tests, small tools), with pixel weights where a pixel
  // has a variance or threshold.
  static ObjectList of(const std::vector<Pixel>& pixels, uint16_t object_flags = 0) {
    ObjectList l;
    for (const Pixel& p : pixels)
      if (p.var != 0.0f || p.dthresh != 0.0f) l.pixel_weights = true;
    for (const Pixel& p : pixels) l.push_pixel(p);
    l.end_object(object_flags);
    return l;
  }
  // Concatenates lists made in parallel, in order (emptying them), copying with `threads`.
  static ObjectList concatenate(std::vector<ObjectList>& parts, int threads = 1);
};

inline void ObjectList::append(const ObjectList& b) {
  const int64_t base = offset.back();
  if (b.pixel_weights) add_pixel_weights();
  if (pixel_weights) {  // b's, or 0 for each of its pixels
    if (b.pixel_weights) {
      var.insert(var.end(), b.var.begin(), b.var.end());
      dthresh.insert(dthresh.end(), b.dthresh.begin(), b.dthresh.end());
    } else {
      var.resize(var.size() + b.x.size(), 0.0f);
      dthresh.resize(dthresh.size() + b.x.size(), 0.0f);
    }
  }
  x.insert(x.end(), b.x.begin(), b.x.end());
  y.insert(y.end(), b.y.begin(), b.y.end());
  value.insert(value.end(), b.value.begin(), b.value.end());
  cvalue.insert(cvalue.end(), b.cvalue.begin(), b.cvalue.end());
  for (size_t k = 1; k < b.offset.size(); ++k) offset.push_back(base + b.offset[k]);
  flags.insert(flags.end(), b.flags.begin(), b.flags.end());
  fixed_centre.insert(fixed_centre.end(), b.fixed_centre.begin(), b.fixed_centre.end());
  cx.insert(cx.end(), b.cx.begin(), b.cx.end());
  cy.insert(cy.end(), b.cy.begin(), b.cy.end());
}

inline ObjectList ObjectList::concatenate(std::vector<ObjectList>& parts, int threads) {
  const size_t np = parts.size();
  std::vector<size_t> pixel_base(np + 1, 0), object_base(np + 1, 0);
  for (size_t i = 0; i < np; ++i) {
    pixel_base[i + 1] = pixel_base[i] + parts[i].pixel_count();
    object_base[i + 1] = object_base[i] + parts[i].size();
  }
  ObjectList out;
  for (const ObjectList& p : parts) out.pixel_weights |= p.pixel_weights;
  const size_t npix = pixel_base[np], nobj = object_base[np];
  for (auto* c : {&out.x, &out.y}) c->resize(npix);
  for (auto* c : {&out.value, &out.cvalue}) c->resize(npix);
  if (out.pixel_weights)
    for (auto* c : {&out.var, &out.dthresh}) c->resize(npix);
  out.offset.resize(nobj + 1);
  out.flags.resize(nobj);
  out.fixed_centre.resize(nobj);
  out.cx.resize(nobj);
  out.cy.resize(nobj);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (size_t i = 0; i < np; ++i) {
    ObjectList& p = parts[i];
    const size_t pb = pixel_base[i], ob = object_base[i];
    std::copy(p.x.begin(), p.x.end(), out.x.begin() + pb);
    std::copy(p.y.begin(), p.y.end(), out.y.begin() + pb);
    std::copy(p.value.begin(), p.value.end(), out.value.begin() + pb);
    std::copy(p.cvalue.begin(), p.cvalue.end(), out.cvalue.begin() + pb);
    if (p.pixel_weights) {
      std::copy(p.var.begin(), p.var.end(), out.var.begin() + pb);
      std::copy(p.dthresh.begin(), p.dthresh.end(), out.dthresh.begin() + pb);
    } else if (out.pixel_weights) {
      std::fill(out.var.begin() + pb, out.var.begin() + pb + p.x.size(), 0.0f);
      std::fill(out.dthresh.begin() + pb, out.dthresh.begin() + pb + p.x.size(), 0.0f);
    }
    for (size_t k = 0; k < p.size(); ++k) out.offset[ob + k + 1] = pb + p.offset[k + 1];
    std::copy(p.flags.begin(), p.flags.end(), out.flags.begin() + ob);
    std::copy(p.fixed_centre.begin(), p.fixed_centre.end(), out.fixed_centre.begin() + ob);
    std::copy(p.cx.begin(), p.cx.end(), out.cx.begin() + ob);
    std::copy(p.cy.begin(), p.cy.end(), out.cy.begin() + ob);
    p = ObjectList{};
  }
  return out;
}

}  // namespace celeris::extract
