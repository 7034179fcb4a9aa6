#include "clean.hpp"

#include <cmath>

namespace celeris::extract {

namespace {

constexpr double kPi = 3.1415926535898;
constexpr float kCleanZone = 10.0f;

// Moffat-like profile of object o, amp (1 + alpha r^2)^-beta, reaching the detection threshold
// on the isophote of area fdnpix; evaluated at offset (dx, dy) from its centre.
struct Profile {
  double amp = 0, alpha = 0;
  Profile(const Shape& s, float dthresh, double beta) {
    const double unitarea = kPi * static_cast<float>(s.a) * static_cast<float>(s.b);
    amp = static_cast<float>(s.flux) / (2 * unitarea * s.abcor);
    alpha = (std::pow(amp / dthresh, 1.0 / beta) - 1) * unitarea / s.npix;
  }
  // Returns whether the profile exceeds `level` at (dx, dy), as SExtractor's test.
  bool above(const Shape& s, float dx, float dy, double beta, float level) const {
    const float cxx = static_cast<float>(s.cxx), cyy = static_cast<float>(s.cyy),
                cxy = static_cast<float>(s.cxy);
    const double val = 1 + alpha * (cxx * dx * dx + cyy * dy * dy + cxy * dx * dy);
    return val > 1.0 && static_cast<float>(val < 1e10 ? amp * std::pow(val, -beta) : 0.0) > level;
  }
};

void merge(size_t slave, size_t master, std::vector<Detection>& objects, std::vector<Shape>& shapes,
           std::vector<Iso>& isos) {
  Shape& ms = shapes[master];
  const Shape& ss = shapes[slave];
  Iso& mi = isos[master];
  const Iso& si = isos[slave];
  ms.npix += ss.npix;
  ms.flux = static_cast<float>(ms.flux) + static_cast<float>(ss.flux);
  mi.flux += si.flux;
  mi.fluxvar += si.fluxvar;
  if (si.cpeak > mi.cpeak) {
    mi.cpeak = si.cpeak;
    mi.xpeak = si.xpeak;
    mi.ypeak = si.ypeak;
  }
  if (ss.peak > ms.peak) ms.peak = ss.peak;
  if (si.peak > mi.peak) mi.peak = si.peak;
  ms.xmin = std::min(ms.xmin, ss.xmin);
  ms.xmax = std::max(ms.xmax, ss.xmax);
  ms.ymin = std::min(ms.ymin, ss.ymin);
  ms.ymax = std::max(ms.ymax, ss.ymax);
  objects[master].flags |= objects[slave].flags & ~(kFlagBlended | kFlagNeighbours);
}

// SExtractor's ycmin: how far above an object the scan must be before it is written.
int ycmin(const Shape& s, int clean_margin) {
  float hh1 = static_cast<float>(s.cyy - s.cxy * s.cxy / (4.0 * s.cxx));
  hh1 = hh1 > 0.0f ? static_cast<float>(1 / std::sqrt(3 * hh1)) : 0.0f;
  const float hh2 = static_cast<float>(s.ymax - s.ymin + 1.0);
  const int margin = static_cast<int>((hh1 > hh2 ? hh1 : hh2) * 2.0 + 4.0 + 0.49999);
  int yc = s.ymin - margin;
  const int y = static_cast<int>(s.my + 0.49999) - clean_margin;
  return y < yc ? y : yc;
}

}  // namespace

CleanResult clean_objects(std::vector<Detection>& objects, std::vector<Shape>& shapes,
                          std::vector<Iso>& isos, const CleanParams& params) {
  CleanResult result;
  std::vector<size_t> list;  // SExtractor's clean list (swap-remove order matters for NUMBER)
  std::vector<size_t> victims;
  const double beta = params.clean_param;
  for (size_t in = 0; in < objects.size(); ++in) {
    if (!params.enabled) {
      list.push_back(in);
      continue;
    }
    const Shape& sin = shapes[in];
    const Profile pin(sin, params.detect_thresh, beta);
    victims.clear();
    bool eaten = false;
    for (size_t li = 0; li < list.size() && !eaten; ++li) {
      const size_t o = list[li];
      const Shape& so = shapes[o];
      const float dx = static_cast<float>(sin.mx - so.mx), dy = static_cast<float>(sin.my - so.my);
      float rlim = static_cast<float>(sin.a) + static_cast<float>(so.a);
      rlim *= rlim;
      if (!(dx * dx + dy * dy < rlim * kCleanZone * kCleanZone)) continue;
      if (static_cast<float>(so.flux) < static_cast<float>(sin.flux)) {
        if (pin.above(sin, dx, dy, beta, isos[o].mthresh)) victims.push_back(li);
      } else {
        const Profile po(so, params.detect_thresh, beta);
        if (po.above(so, dx, dy, beta, isos[in].mthresh)) {
          merge(in, o, objects, shapes, isos);
          result.removed.push_back(in);
          eaten = true;
        }
      }
    }
    if (eaten) continue;
    for (size_t v = victims.size(); v--;) {
      const size_t li = victims[v];
      merge(list[li], in, objects, shapes, isos);
      result.removed.push_back(list[li]);
      list[li] = list.back();  // SExtractor's subcleanobj: the last entry takes the slot
      list.pop_back();
    }
    list.push_back(in);
  }
  // Output order of an image held in one buffer: first, scanning the list from its end, the
  // objects whose ycmin reaches the top of the image; then the rest, always taking the first
  // entry and moving the last one into its place.
  for (size_t li = list.size(); li--;) {
    if (ycmin(shapes[list[li]], params.clean_margin) <= 0) {
      result.order.push_back(list[li]);
      list[li] = list.back();
      list.pop_back();
    }
  }
  while (!list.empty()) {
    result.order.push_back(list[0]);
    list[0] = list.back();
    list.pop_back();
  }
  return result;
}

}  // namespace celeris::extract
