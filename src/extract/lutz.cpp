#include "lutz.hpp"

namespace celeris::extract {

namespace {

// A partially built object: a linked chain of pixels (through `next`) and its size.
struct Chain {
  int64_t first = -1, last = -1;
  int64_t npix = 0;
};

// Appends chain b to chain a.
void append(Chain& a, const Chain& b, std::vector<int64_t>& next) {
  a.npix += b.npix;
  if (a.first < 0) {
    a.first = b.first;
    a.last = b.last;
  } else if (b.last >= 0) {
    next[a.last] = b.first;
    a.last = b.last;
  }
}

// States of the row above at the current column.
enum class Above { Outside, Inside, Open, Closed };
// Markers left on the row for the next one: start of an object's first run on the row ('S'),
// start of a further run of an object already started on the row ('s'), end of a run whose
// object continues to the right ('f'), end of the object's last run on the row ('F').
enum Marker : uint8_t { kNone = 0, kStartFirst, kStartMore, kEndMore, kEndLast };

}  // namespace

void lutz_scan(int width, int height, const std::function<bool(int, int)>& on, int minarea,
               const std::function<void(LutzComponent&&)>& emit) {
  if (width <= 0 || height <= 0) return;
  const int w1 = width + 1;
  std::vector<int64_t> next(static_cast<size_t>(width) * height, -1);
  std::vector<uint8_t> marker(w1, kNone);
  std::vector<Chain> stored(w1);         // object chains parked at the start of their first run
  std::vector<Chain> open;               // stack of objects being built on this row
  std::vector<int> start, end;           // per open object: start of its first run (-1: none yet)
  std::vector<Above> ps_stack;
  auto finish = [&](Chain& c) {
    if (c.npix < minarea) return;
    LutzComponent comp;
    comp.pixels.reserve(static_cast<size_t>(c.npix));
    for (int64_t p = c.first; p >= 0; p = next[p]) comp.pixels.push_back(p);
    emit(std::move(comp));
  };

  for (int y = 0; y <= height; ++y) {
    bool in_run = false;        // current pixel continues a run on this row
    Above ps = Above::Closed;   // state of the row above at this column
    for (int x = 0; x <= width; ++x) {
      const uint8_t mark = marker[x];
      marker[x] = kNone;
      const bool lit = y < height && x < width && on(x, y);
      if (lit && !in_run) {  // a run starts
        in_run = true;
        if (ps == Above::Inside) {
          // Under an object of the row above: the run belongs to it.
          if (start.back() < 0) {
            marker[x] = kStartFirst;
            start.back() = x;
          } else {
            marker[x] = kStartMore;
          }
        } else {
          ps_stack.push_back(ps);
          marker[x] = kStartFirst;
          open.push_back(Chain{});
          start.push_back(x);
          end.push_back(-1);
          ps = Above::Closed;
        }
      }
      if (mark == kStartFirst) {
        ps_stack.push_back(ps);
        if (!in_run) {
          ps_stack.push_back(Above::Closed);
          open.push_back(stored[x]);
          start.push_back(-1);
          end.push_back(-1);
        } else {
          append(open.back(), stored[x], next);
        }
        ps = Above::Inside;
      } else if (mark == kStartMore) {
        if (in_run && ps == Above::Closed) {
          // This run joins a second part of the same object: merge the two open objects.
          ps_stack.pop_back();
          const int x2 = start.back();
          Chain top = open.back();
          open.pop_back();
          start.pop_back();
          end.pop_back();
          append(open.back(), top, next);
          if (start.back() < 0) start.back() = x2;
          else marker[x2] = kStartMore;
        }
        ps = Above::Inside;
      } else if (mark == kEndMore) {
        ps = Above::Open;
      } else if (mark == kEndLast) {
        ps = ps_stack.back();
        ps_stack.pop_back();
        if (!in_run && ps == Above::Closed) {
          if (start.back() < 0) {
            finish(open.back());  // nothing continues it on this row: complete
          } else {
            marker[end.back()] = kEndLast;
            stored[start.back()] = open.back();
          }
          open.pop_back();
          start.pop_back();
          end.pop_back();
          ps = ps_stack.back();
          ps_stack.pop_back();
        }
      }
      if (lit) {
        const int64_t p = static_cast<int64_t>(y) * width + x;
        append(open.back(), Chain{p, p, 1}, next);
      } else if (in_run) {  // a run ends
        in_run = false;
        if (ps != Above::Closed) {
          marker[x] = kEndMore;
          end.back() = x;
        } else {
          ps = ps_stack.back();
          ps_stack.pop_back();
          marker[x] = kEndLast;
          stored[start.back()] = open.back();
          open.pop_back();
          start.pop_back();
          end.pop_back();
        }
      }
    }
  }
}

}  // namespace celeris::extract
