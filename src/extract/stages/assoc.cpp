#include "extract/stages/assoc.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace celeris::extract {

namespace {

constexpr double kBig = 1e30;      // SExtractor's BIG
constexpr double kNoCoord = 1e31;  // SExtractor's WCS_NOCOORD: a position off the projection

// SExtractor's DEXP(x): 10^x through its own rounded ln(10).
double dexp(double x) {
  return std::exp(2.30258509299 * x);
}

}  // namespace

AssocIndex::AssocIndex(const AssocList& list, double radius, const Wcs* wcs)
    : list_(&list), radius_(radius) {
  const size_t n = list.size();
  std::vector<double> x(list.x), y(list.y);
  if (wcs)
    for (size_t i = 0; i < n; ++i) {
      const auto [px, py] = wcs->world_to_pixel(list.x[i], list.y[i]);
      const bool ok = std::isfinite(px) && std::isfinite(py);
      x[i] = ok ? px : kNoCoord;
      y[i] = ok ? py : kNoCoord;
    }
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), size_t{0});
  std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return y[a] < y[b]; });
  x_.resize(n);
  y_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    x_[i] = x[order_[i]];
    y_[i] = y[order_[i]];
  }
}

int AssocIndex::match(double x, double y, int height, double* out, int out_size) const {
  const AssocList& list = *list_;
  const AssocType type = list.type;
  const int ndata = list.ndata;
  std::fill(out, out + out_size, 0.0);
  double aver = 0.0;
  double comp = (type == AssocType::Min || type == AssocType::Nearest) ? kBig : -kBig;
  // SExtractor looks the object's row up in its per-row table first: a row outside the image
  // has no entries.
  const int iy = static_cast<int>(y + 0.499999);
  if (iy < 0 || iy >= height) return 0;
  const double rad = radius_, rad2 = rad * rad;
  // The first entry that may be in reach (SExtractor's table keeps a margin; entries below
  // y - rad are never within the radius), then on while the entry's y - rad < y.
  size_t h = std::lower_bound(y_.begin(), y_.end(), y - rad - 1.0) - y_.begin();
  int flag = 0;
  for (; h < y_.size() && y_[h] - rad < y; ++h) {
    const double dx = x_[h] - x, dy = y_[h] - y;
    const double dist = dx * dx + dy * dy;
    if (!(dist < rad2)) continue;
    ++flag;
    const size_t e = order_[h];
    const double* input = list.data.data() + e * ndata;
    if (type == AssocType::First) {
      std::copy(input, input + ndata, out);
      return 1;
    }
    double w = list.weight[e];
    switch (type) {
      case AssocType::Nearest:
        if (dist < comp) {
          std::copy(input, input + ndata, out);
          comp = dist;
        }
        break;
      case AssocType::Mean:
        aver += w;
        for (int i = 0; i < ndata; ++i) out[i] += input[i] * w;
        break;
      case AssocType::MagMean:
        w = std::fabs(w) < 99.0 ? dexp(-0.4 * w) : 0.0;
        aver += w;
        for (int i = 0; i < ndata; ++i) out[i] += input[i] * w;
        break;
      case AssocType::Sum:
        for (int i = 0; i < ndata; ++i) out[i] += input[i];
        break;
      case AssocType::MagSum:  // the data themselves are magnitudes, summed as fluxes
        for (int i = 0; i < ndata; ++i)
          out[i] += std::fabs(input[i]) < 99.0 ? dexp(-0.4 * input[i]) : 0.0;
        break;
      case AssocType::Min:
        if (w < comp) {
          std::copy(input, input + ndata, out);
          comp = w;
        }
        break;
      case AssocType::Max:
        if (w > comp) {
          std::copy(input, input + ndata, out);
          comp = w;
        }
        break;
      case AssocType::First:
        break;
    }
  }
  if (!flag) return 0;
  if (type == AssocType::Mean || type == AssocType::MagMean) {
    // SExtractor returns 0 here with the weighted sums left undivided in the vector.
    if (aver < 1e-30) return 0;
    for (int i = 0; i < ndata; ++i) out[i] /= aver;
  }
  if (type == AssocType::MagSum)
    for (int i = 0; i < ndata; ++i) out[i] = out[i] > 0.0 ? -2.5 * std::log10(out[i]) : 99.0;
  return flag;
}

void associate(Objects& objects, const AssocIndex& index, int height, int vector_size) {
  const size_t n = objects.size();
  objects.assoc_number.assign(n, 0);
  // At least the list's data columns, so that match() has room for them (VECTOR_ASSOC is never
  // shorter: AssocList::ndata <= its size).
  objects.assoc.assign(n * vector_size, 0.0);
  for (size_t i = 0; i < n; ++i)
    objects.assoc_number[i] = index.match(objects.x[i] + 1.0, objects.y[i] + 1.0, height,
                                          objects.assoc.data() + i * vector_size, vector_size);
}

std::vector<uint8_t> assoc_selection(const Objects& objects, AssocSelect select) {
  std::vector<uint8_t> keep(objects.size(), 1);
  if (select == AssocSelect::All) return keep;
  for (size_t i = 0; i < keep.size(); ++i)
    keep[i] = (objects.assoc_number[i] != 0) == (select == AssocSelect::Matched);
  return keep;
}

void keep_rows(Table& table, const std::vector<uint8_t>& keep) {
  size_t rows = 0;
  for (Column& c : table.columns) {
    const size_t r = static_cast<size_t>(c.repeat);
    size_t out = 0;
    for (size_t i = 0; i < table.rows; ++i)
      if (keep[i]) {
        std::copy_n(c.values.begin() + i * r, r, c.values.begin() + out * r);
        ++out;
      }
    c.values.resize(out * r);
    rows = out;
  }
  if (table.columns.empty())
    rows = static_cast<size_t>(std::count(keep.begin(), keep.end(), uint8_t{1}));
  table.rows = rows;
  for (Column& c : table.columns)
    if (c.name == "NUMBER")
      for (size_t i = 0; i < rows; ++i) c.values[i] = static_cast<double>(i + 1);
}

}  // namespace celeris::extract
