#include "extract/stages/measure_flag_maps.hpp"

#include <climits>
#include <cmath>

#include "celeris/error.hpp"

namespace celeris::extract {

ImageFlags combine_flags(const ObjectView& pixels, ImageView<const uint32_t> map, FlagType type) {
  ImageFlags r;
  switch (type) {
    case FlagType::Or:
      for (const Pixel p : pixels)
        if (const uint32_t f = map(p.x, p.y)) r.flags |= f, ++r.count;
      break;
    case FlagType::And:
      // SExtractor starts the AND from 0: the result is always 0 (kept for parity).
      for (const Pixel p : pixels)
        if (const uint32_t f = map(p.x, p.y)) r.flags &= f, ++r.count;
      break;
    case FlagType::Min:
      r.flags = UINT_MAX;
      for (const Pixel p : pixels)
        if (const uint32_t f = map(p.x, p.y)) {
          if (f < r.flags)
            r.flags = f, r.count = 1;
          else if (f == r.flags)
            ++r.count;
        }
      if (!r.count) r.flags = 0;
      break;
    case FlagType::Max:
      for (const Pixel p : pixels)
        if (const uint32_t f = map(p.x, p.y)) {
          if (f > r.flags)
            r.flags = f, r.count = 1;
          else if (f == r.flags)
            ++r.count;
        }
      break;
    case FlagType::Most: {
      // Distinct values in order of first appearance, with their counts; the first most
      // frequent one wins.
      std::vector<std::pair<uint32_t, int32_t>> seen;
      for (const Pixel p : pixels)
        if (const uint32_t f = map(p.x, p.y)) {
          bool found = false;
          for (auto& [v, n] : seen)
            if (v == f) {
              ++n;
              found = true;
              break;
            }
          if (!found) seen.emplace_back(f, 1);
        }
      for (const auto& [v, n] : seen)
        if (n > r.count) r.count = n, r.flags = v;
      break;
    }
  }
  return r;
}

void merge_flags(ImageFlags& m, const ImageFlags& s, FlagType type) {
  switch (type) {
    case FlagType::Or:
      m.flags |= s.flags;
      m.count += s.count;
      break;
    case FlagType::And:
      m.flags &= s.flags;
      m.count += s.count;
      break;
    case FlagType::Min:
      if (s.flags == m.flags)
        m.count += s.count;
      else if (s.flags < m.flags)
        m = s;
      break;
    case FlagType::Max:
      if (s.flags == m.flags)
        m.count += s.count;
      else if (s.flags > m.flags)
        m = s;
      break;
    case FlagType::Most:
      if (s.count > m.count) m = s;
      break;
  }
}

Image<uint32_t> flag_map_from_pixels(ImageView<const float> pixels, int64_t width, int64_t height,
                                     const std::string& name) {
  if (pixels.width != width || pixels.height != height)
    throw Error("FLAG_IMAGE " + name + ": " + std::to_string(pixels.width) + " x " +
                std::to_string(pixels.height) + " pixels, the image has " + std::to_string(width) +
                " x " + std::to_string(height));
  Image<uint32_t> out = Image<uint32_t>::uninitialized(width, height);
  for (int64_t i = 0; i < pixels.size(); ++i) {
    const float v = pixels.data[i];
    if (!(v >= 0.0f && v <= 16777216.0f) || v != std::floor(v))
      throw Error("FLAG_IMAGE " + name + ": value " + std::to_string(v) + " at pixel (" +
                  std::to_string(i % width + 1) + ", " + std::to_string(i / width + 1) +
                  ") is not an integer in [0, 2^24] (larger flag values are not supported yet)");
    out.data()[i] = static_cast<uint32_t>(v);
  }
  return out;
}

void image_flags(const ObjectList& objects, const std::vector<size_t>& removed_object,
                 const std::vector<size_t>& removed_master, const std::vector<size_t>& order,
                 const std::vector<ImageView<const uint32_t>>& maps,
                 const std::vector<FlagType>& types, Objects& out) {
  const size_t nmap = maps.size(), n = objects.size();
  std::vector<ImageFlags> f(n * nmap);
#pragma omp parallel for schedule(dynamic, 64)
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < nmap; ++k)
      f[i * nmap + k] = combine_flags(objects[i], maps[k], types[k]);
  for (size_t v = 0; v < removed_object.size(); ++v)
    for (size_t k = 0; k < nmap; ++k)
      merge_flags(f[removed_master[v] * nmap + k], f[removed_object[v] * nmap + k], types[k]);
  out.imaflags.assign(order.size() * nmap, 0);
  out.nimaflags.assign(order.size() * nmap, 0);
  for (size_t i = 0; i < order.size(); ++i)
    for (size_t k = 0; k < nmap; ++k) {
      out.imaflags[i * nmap + k] = f[order[i] * nmap + k].flags;
      out.nimaflags[i * nmap + k] = f[order[i] * nmap + k].count;
    }
}

}  // namespace celeris::extract
