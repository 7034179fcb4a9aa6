// The cube type, band selection, and format dispatch for reading and writing.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "internal.hpp"

namespace celeris::hyperspectral {

Cube::Cube(int b, int l, int s, float fill) : bands(b), lines(l), samples(s) {
  if (b < 0 || l < 0 || s < 0) throw Error("cube dimensions must be non-negative");
  data.assign(static_cast<size_t>(b) * l * s, fill);
}

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int parse_band_number(const std::string& text, const std::string& spec) {
  size_t used = 0;
  long v = 0;
  try {
    v = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size())
    throw Error("bad band list '" + spec + "': '" + text + "' is not a band number");
  return static_cast<int>(v);
}

}  // namespace

std::vector<int> parse_band_list(const std::string& spec, int nbands) {
  std::vector<int> out;
  std::vector<char> seen(static_cast<size_t>(std::max(nbands, 0)), 0);
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    std::string item =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(
        std::remove_if(item.begin(), item.end(), [](unsigned char c) { return std::isspace(c); }),
        item.end());
    if (item.empty()) throw Error("bad band list '" + spec + "': empty item");
    const size_t dash = item.find('-', 1);
    int first = 0, last = 0;
    if (dash == std::string::npos) {
      first = last = parse_band_number(item, spec);
    } else {
      first = parse_band_number(item.substr(0, dash), spec);
      last = parse_band_number(item.substr(dash + 1), spec);
    }
    if (first > last) throw Error("bad band list '" + spec + "': range " + item + " is reversed");
    if (first < 1 || last > nbands)
      throw Error("band list '" + spec + "': bands are 1.." + std::to_string(nbands) + ", got " +
                  item);
    for (int b = first; b <= last; ++b) {
      if (seen[b - 1])
        throw Error("band list '" + spec + "': band " + std::to_string(b) + " repeated");
      seen[b - 1] = 1;
      out.push_back(b - 1);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

void select_bands(Cube& cube, const std::vector<int>& bands) {
  Cube out(static_cast<int>(bands.size()), cube.lines, cube.samples);
  const size_t np = cube.pixels();
  for (size_t k = 0; k < bands.size(); ++k) {
    const int b = bands[k];
    if (b < 0 || b >= cube.bands) throw Error("band index " + std::to_string(b) + " out of range");
    std::copy(cube.band(b), cube.band(b) + np, out.band(static_cast<int>(k)));
    if (!cube.band_names.empty()) out.band_names.push_back(cube.band_names[b]);
    if (!cube.wavelengths.empty()) out.wavelengths.push_back(cube.wavelengths[b]);
  }
  out.wavelength_units = cube.wavelength_units;
  out.source = std::move(cube.source);
  detail::subset_envi_band_fields(out.source, bands, cube.bands);
  cube = std::move(out);
}

CubeFormat format_from_path(const std::string& path) {
  std::string p = lower(path);
  const size_t bracket = p.find('[');  // CFITSIO extended syntax
  if (bracket != std::string::npos) p = p.substr(0, bracket);
  if (ends_with(p, ".gz")) p = p.substr(0, p.size() - 3);
  if (ends_with(p, ".mat")) return CubeFormat::Mat;
  if (ends_with(p, ".fits") || ends_with(p, ".fit") || ends_with(p, ".fts"))
    return CubeFormat::Fits;
  return CubeFormat::Envi;
}

Cube read_cube(const std::string& path, const ReadOptions& options) {
  Cube cube;
  switch (format_from_path(path)) {
    case CubeFormat::Mat:
      cube = read_mat_cube(path, options.mat_variable);
      break;
    case CubeFormat::Fits:
      cube = read_fits_cube(path);
      break;
    case CubeFormat::Envi:
      cube = read_envi(path);
      break;
  }
  if (!options.bands.empty()) select_bands(cube, parse_band_list(options.bands, cube.bands));
  return cube;
}

void write_cube(const std::string& path, const Cube& cube) {
  write_cube(path, cube, cube.source.format);
}

void write_cube(const std::string& path, const Cube& cube, CubeFormat format) {
  if (cube.data.size() != cube.size()) throw Error("cube data size does not match its dimensions");
  switch (format) {
    case CubeFormat::Mat:
      write_mat_cube(path, cube);
      break;
    case CubeFormat::Fits:
      write_fits_cube(path, cube);
      break;
    case CubeFormat::Envi: {
      EnviWriteOptions opt;
      if (cube.source.format == CubeFormat::Envi) opt.interleave = cube.source.envi_interleave;
      write_envi(path, cube, opt);
      break;
    }
  }
}

}  // namespace celeris::hyperspectral
