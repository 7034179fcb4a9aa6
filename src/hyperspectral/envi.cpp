// ENVI cubes: a text header (x.hdr, "key = value", braces for lists) and a raw binary file.
// Reference: ENVI Header Files (L3Harris ENVI documentation, "ENVI Header Format").
#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "celeris/table.hpp"
#include "internal.hpp"

namespace celeris::hyperspectral {

namespace fs = std::filesystem;

namespace detail {

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return {};
  const size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

}  // namespace

std::vector<std::string> split_envi_list(const std::string& value) {
  std::string v = trim(value);
  if (!v.empty() && v.front() == '{') v = v.substr(1);
  if (!v.empty() && v.back() == '}') v.pop_back();
  std::vector<std::string> items;
  if (trim(v).empty()) return items;
  size_t start = 0;
  while (true) {
    const size_t comma = v.find(',', start);
    items.push_back(
        trim(v.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::string join_envi_list(const std::vector<std::string>& items) {
  std::string out = "{";
  size_t line = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ",";
    if (line + items[i].size() > 76) {
      out += "\n ";
      line = 0;
    } else if (i > 0) {
      out += " ";
    }
    out += items[i];
    line += items[i].size() + 2;
  }
  return out + "}";
}

void subset_envi_band_fields(CubeSource& source, const std::vector<int>& bands, int old_bands) {
  static const char* per_band[] = {"fwhm",
                                   "bbl",
                                   "data gain values",
                                   "data offset values",
                                   "data reflectance gain values",
                                   "data reflectance offset values"};
  std::vector<std::pair<std::string, std::string>> kept;
  for (auto& field : source.envi_fields) {
    const std::string& key = field.first;  // named for the lambda below (clang 14)
    std::string& value = field.second;
    if (key == "default bands") continue;
    const bool listed = std::find_if(std::begin(per_band), std::end(per_band),
                                     [&](const char* k) { return key == k; }) != std::end(per_band);
    if (listed) {
      const auto items = split_envi_list(value);
      if (static_cast<int>(items.size()) != old_bands) continue;  // inconsistent: drop it
      std::vector<std::string> sub;
      for (int b : bands) sub.push_back(items[b]);
      kept.emplace_back(key, join_envi_list(sub));
    } else {
      kept.emplace_back(key, value);
    }
  }
  source.envi_fields = std::move(kept);
}

}  // namespace detail

namespace {

using detail::split_envi_list;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return {};
  const size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

bool is_regular(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

const char* kDataExtensions[] = {".img", ".dat", ".raw", ".bsq", ".bil", ".bip"};

bool has_data_extension(const std::string& path) {
  const std::string ext = lower(fs::path(path).extension().string());
  return std::find(std::begin(kDataExtensions), std::end(kDataExtensions), ext) !=
         std::end(kDataExtensions);
}

// {header, data} for reading `path`.
std::pair<std::string, std::string> find_envi_files(const std::string& path) {
  const std::string ext = lower(fs::path(path).extension().string());
  if (ext == ".hdr") {
    if (!is_regular(path)) throw Error("cannot open ENVI header '" + path + "': no such file");
    const std::string stem = path.substr(0, path.size() - 4);
    if (is_regular(stem)) return {path, stem};
    for (const char* e : kDataExtensions) {
      std::string upper = e;
      for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (is_regular(stem + e)) return {path, stem + e};
      if (is_regular(stem + upper)) return {path, stem + upper};
    }
    throw Error("ENVI header '" + path + "' has no data file (looked for " + stem +
                " and .img/.dat/.raw/.bsq/.bil/.bip)");
  }
  if (!is_regular(path)) throw Error("cannot open '" + path + "': no such file");
  for (const std::string& cand :
       {path + ".hdr", path + ".HDR", fs::path(path).replace_extension(".hdr").string(),
        fs::path(path).replace_extension(".HDR").string()}) {
    if (cand != path && is_regular(cand)) return {cand, path};
  }
  throw Error("no ENVI header for '" + path + "' (looked for " + path + ".hdr)");
}

struct EnviHeader {
  std::vector<std::pair<std::string, std::string>> fields;  // key lower-case, raw value
  const std::string* find(const std::string& key) const {
    for (const auto& [k, v] : fields)
      if (k == key) return &v;
    return nullptr;
  }
};

EnviHeader parse_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open ENVI header '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (trim(text).rfind("ENVI", 0) != 0)
    throw Error("'" + path + "' is not an ENVI header (first line must be ENVI)");
  EnviHeader h;
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);  // "ENVI"
  int lineno = 1;
  while (std::getline(lines, line)) {
    ++lineno;
    if (trim(line).empty() || trim(line)[0] == ';') continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos)
      throw Error("ENVI header '" + path + "' line " + std::to_string(lineno) + ": no '=' in '" +
                  printable_excerpt(trim(line)) + "'");
    std::string key = lower(trim(line.substr(0, eq)));
    // Collapse internal runs of blanks ("header   offset").
    std::string k2;
    for (char c : key)
      if (!(c == ' ' && !k2.empty() && k2.back() == ' ')) k2 += c;
    std::string value = trim(line.substr(eq + 1));
    if (!value.empty() && value[0] == '{') {
      while (value.find('}') == std::string::npos) {
        std::string more;
        if (!std::getline(lines, more))
          throw Error("ENVI header '" + path + "': unterminated '{' for key '" +
                      printable_excerpt(k2) + "'");
        ++lineno;
        value += "\n" + trim(more);
      }
    }
    h.fields.emplace_back(k2, value);
  }
  return h;
}

long long header_int(const EnviHeader& h, const std::string& key, const std::string& path,
                     bool required, long long fallback) {
  const std::string* v = h.find(key);
  if (!v) {
    if (required) throw Error("ENVI header '" + path + "' has no '" + key + "'");
    return fallback;
  }
  try {
    size_t used = 0;
    const long long x = std::stoll(*v, &used);
    if (trim(v->substr(used)).empty()) return x;
  } catch (const std::exception&) {
  }
  throw Error("ENVI header '" + path + "': '" + key + "' is not an integer ('" +
              printable_excerpt(*v) + "')");
}

size_t type_size(int data_type) {
  switch (data_type) {
    case 1:
      return 1;
    case 2:
    case 12:
      return 2;
    case 3:
    case 4:
    case 13:
      return 4;
    case 5:
    case 14:
    case 15:
      return 8;
    default:
      return 0;
  }
}

void check_data_type(int data_type, const std::string& where) {
  if (data_type == 6 || data_type == 9)
    throw Error(where + ": complex data type " + std::to_string(data_type) + " is not supported");
  if (type_size(data_type) == 0)
    throw Error(where + ": unknown ENVI data type " + std::to_string(data_type) +
                " (supported: 1, 2, 3, 4, 5, 12, 13, 14, 15)");
}

template <class T>
T load(const unsigned char* p, bool swap) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, p, sizeof(T));
  if (swap) std::reverse(b, b + sizeof(T));
  T v;
  std::memcpy(&v, b, sizeof(T));
  return v;
}

float decode(const unsigned char* p, int data_type, bool swap) {
  switch (data_type) {
    case 1:
      return static_cast<float>(p[0]);
    case 2:
      return static_cast<float>(load<int16_t>(p, swap));
    case 3:
      return static_cast<float>(load<int32_t>(p, swap));
    case 4:
      return load<float>(p, swap);
    case 5:
      return static_cast<float>(load<double>(p, swap));
    case 12:
      return static_cast<float>(load<uint16_t>(p, swap));
    case 13:
      return static_cast<float>(load<uint32_t>(p, swap));
    case 14:
      return static_cast<float>(load<int64_t>(p, swap));
    case 15:
      return static_cast<float>(load<uint64_t>(p, swap));
  }
  return 0.0f;
}

template <class T>
void store(unsigned char* p, T v, bool swap) {
  std::memcpy(p, &v, sizeof(T));
  if (swap) std::reverse(p, p + sizeof(T));
}

template <class I>
I to_int(float v) {
  if (!std::isfinite(v)) return 0;
  const double r = std::nearbyint(static_cast<double>(v));
  const double lo = static_cast<double>(std::numeric_limits<I>::lowest());
  const double hi = static_cast<double>(std::numeric_limits<I>::max());
  if (r <= lo) return std::numeric_limits<I>::lowest();
  if (r >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

void encode(unsigned char* p, float v, int data_type, bool swap) {
  switch (data_type) {
    case 1:
      p[0] = to_int<uint8_t>(v);
      break;
    case 2:
      store(p, to_int<int16_t>(v), swap);
      break;
    case 3:
      store(p, to_int<int32_t>(v), swap);
      break;
    case 4:
      store(p, v, swap);
      break;
    case 5:
      store(p, static_cast<double>(v), swap);
      break;
    case 12:
      store(p, to_int<uint16_t>(v), swap);
      break;
    case 13:
      store(p, to_int<uint32_t>(v), swap);
      break;
    case 14:
      store(p, to_int<int64_t>(v), swap);
      break;
    case 15:
      store(p, to_int<uint64_t>(v), swap);
      break;
  }
}

// Position (in elements) of (b, l, s) in a file of the given interleave.
struct Interleave {
  int kind = 0;  // 0 bsq, 1 bil, 2 bip
  size_t B, L, S;
  size_t index(size_t b, size_t l, size_t s) const {
    switch (kind) {
      case 1:
        return (l * B + b) * S + s;
      case 2:
        return (l * S + s) * B + b;
      default:
        return (b * L + l) * S + s;
    }
  }
};

int parse_interleave(const std::string& value, const std::string& where) {
  const std::string v = lower(trim(value));
  if (v == "bsq") return 0;
  if (v == "bil") return 1;
  if (v == "bip") return 2;
  throw Error(where + ": unknown interleave '" + printable_excerpt(value) + "' (bsq, bil or bip)");
}

const bool kHostBigEndian = std::endian::native == std::endian::big;

// Keys celeris sets itself; every other key is carried over.
bool interpreted_key(const std::string& k) {
  return k == "samples" || k == "lines" || k == "bands" || k == "header offset" ||
         k == "data type" || k == "interleave" || k == "byte order" || k == "wavelength" ||
         k == "band names" || k == "wavelength units" || k == "file type";
}

}  // namespace

Cube read_envi(const std::string& path) {
  const auto [hdr_path, data_path] = find_envi_files(path);
  const EnviHeader h = parse_header(hdr_path);
  const std::string where = "ENVI header '" + hdr_path + "'";
  const long long S = header_int(h, "samples", hdr_path, true, 0);
  const long long L = header_int(h, "lines", hdr_path, true, 0);
  const long long B = header_int(h, "bands", hdr_path, true, 0);
  if (S <= 0 || L <= 0 || B <= 0 || S > INT32_MAX || L > INT32_MAX || B > INT32_MAX)
    throw Error(where + ": bad dimensions samples=" + std::to_string(S) +
                " lines=" + std::to_string(L) + " bands=" + std::to_string(B));
  const long long offset = header_int(h, "header offset", hdr_path, false, 0);
  const int data_type = static_cast<int>(header_int(h, "data type", hdr_path, true, 0));
  check_data_type(data_type, where);
  const std::string* il = h.find("interleave");
  const int interleave = il ? parse_interleave(*il, where) : 0;
  const long long byte_order = header_int(h, "byte order", hdr_path, false, 0);
  if (byte_order != 0 && byte_order != 1)
    throw Error(where + ": byte order must be 0 or 1, got " + std::to_string(byte_order));
  const bool swap = (byte_order == 1) != kHostBigEndian;

  const size_t esize = type_size(data_type);
  if (offset < 0) throw Error(where + ": negative header offset " + std::to_string(offset));
  // Sizes from the header are checked against the data file before anything is allocated; a
  // product that overflows 64 bits could otherwise wrap round to the file's length.
  size_t n = 0, bytes = 0, expected = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(S), static_cast<size_t>(L), &n) ||
      __builtin_mul_overflow(n, static_cast<size_t>(B), &n) ||
      __builtin_mul_overflow(n, esize, &bytes) ||
      __builtin_add_overflow(bytes, static_cast<size_t>(offset), &expected))
    throw Error(where + ": samples x lines x bands = " + std::to_string(S) + " x " +
                std::to_string(L) + " x " + std::to_string(B) + " is too large to be real");
  std::error_code ec;
  const uintmax_t fsize = fs::file_size(data_path, ec);
  if (ec) throw Error("cannot read ENVI data file '" + data_path + "': " + ec.message());
  if (fsize != expected)
    throw Error("ENVI data file '" + data_path + "' has " + std::to_string(fsize) +
                " bytes, header says " + std::to_string(expected) + " (" + std::to_string(S) +
                " samples x " + std::to_string(L) + " lines x " + std::to_string(B) + " bands x " +
                std::to_string(esize) + " bytes + offset " + std::to_string(offset) + ")");
  std::vector<unsigned char> raw(n * esize);
  {
    std::ifstream in(data_path, std::ios::binary);
    in.seekg(offset);
    in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
    if (!in) throw Error("short read on ENVI data file '" + data_path + "'");
  }
  Cube cube(static_cast<int>(B), static_cast<int>(L), static_cast<int>(S));
  const Interleave layout{interleave, static_cast<size_t>(B), static_cast<size_t>(L),
                          static_cast<size_t>(S)};
#pragma omp parallel for schedule(static)
  for (long long b = 0; b < B; ++b)
    for (size_t l = 0; l < static_cast<size_t>(L); ++l)
      for (size_t s = 0; s < static_cast<size_t>(S); ++s)
        cube.at(static_cast<int>(b), static_cast<int>(l), static_cast<int>(s)) =
            decode(raw.data() + layout.index(b, l, s) * esize, data_type, swap);

  if (const std::string* w = h.find("wavelength")) {
    for (const auto& item : split_envi_list(*w)) {
      try {
        cube.wavelengths.push_back(std::stod(item));
      } catch (const std::exception&) {
        throw Error(where + ": bad wavelength '" + printable_excerpt(item) + "'");
      }
    }
    if (cube.wavelengths.size() != static_cast<size_t>(B))
      throw Error(where + ": " + std::to_string(cube.wavelengths.size()) + " wavelengths for " +
                  std::to_string(B) + " bands");
  }
  if (const std::string* names = h.find("band names")) {
    cube.band_names = split_envi_list(*names);
    if (cube.band_names.size() != static_cast<size_t>(B))
      throw Error(where + ": " + std::to_string(cube.band_names.size()) + " band names for " +
                  std::to_string(B) + " bands");
  }
  if (const std::string* u = h.find("wavelength units")) cube.wavelength_units = trim(*u);
  cube.source.format = CubeFormat::Envi;
  cube.source.envi_data_type = data_type;
  cube.source.envi_interleave = il ? lower(trim(*il)) : "bsq";
  for (const auto& [k, v] : h.fields)
    if (!interpreted_key(k)) cube.source.envi_fields.emplace_back(k, v);
  return cube;
}

std::pair<std::string, std::string> envi_paths_for_write(const std::string& path) {
  const std::string ext = lower(fs::path(path).extension().string());
  if (ext == ".hdr") return {path, path.substr(0, path.size() - 4) + ".img"};
  if (has_data_extension(path)) return {fs::path(path).replace_extension(".hdr").string(), path};
  return {path + ".hdr", path};
}

void write_envi(const std::string& path, const Cube& cube, const EnviWriteOptions& options) {
  const std::string where = "writing ENVI '" + path + "'";
  check_data_type(options.data_type, where);
  const int interleave = parse_interleave(options.interleave, where);
  if (options.byte_order != 0 && options.byte_order != 1)
    throw Error(where + ": byte order must be 0 or 1");
  if (cube.data.size() != cube.size()) throw Error(where + ": cube data size mismatch");
  if (!cube.wavelengths.empty() && cube.wavelengths.size() != static_cast<size_t>(cube.bands))
    throw Error(where + ": wavelength count differs from band count");
  if (!cube.band_names.empty() && cube.band_names.size() != static_cast<size_t>(cube.bands))
    throw Error(where + ": band name count differs from band count");
  // Named copies, not a structured binding: clang 14 (the fuzz and sanitizer builds) cannot
  // capture bindings in the lambdas below.
  const auto paths = envi_paths_for_write(path);
  const std::string hdr_path = paths.first, data_path = paths.second;
  const bool swap = (options.byte_order == 1) != kHostBigEndian;
  const size_t esize = type_size(options.data_type);
  const size_t B = cube.bands, L = cube.lines, S = cube.samples;
  const Interleave layout{interleave, B, L, S};
  std::vector<unsigned char> raw(cube.size() * esize);
#pragma omp parallel for schedule(static)
  for (long long b = 0; b < static_cast<long long>(B); ++b)
    for (size_t l = 0; l < L; ++l)
      for (size_t s = 0; s < S; ++s)
        encode(raw.data() + layout.index(b, l, s) * esize,
               cube.at(static_cast<int>(b), static_cast<int>(l), static_cast<int>(s)),
               options.data_type, swap);

  std::ostringstream hdr;
  hdr << "ENVI\n";
  bool has_description = false;
  for (const auto& [k, v] : cube.source.envi_fields)
    if (k == "description") has_description = true;
  if (!has_description) hdr << "description = {celeris}\n";
  hdr << "samples = " << S << "\nlines = " << L << "\nbands = " << B << "\nheader offset = 0\n"
      << "file type = ENVI Standard\ndata type = " << options.data_type
      << "\ninterleave = " << lower(options.interleave) << "\nbyte order = " << options.byte_order
      << "\n";
  for (const auto& [k, v] : cube.source.envi_fields) hdr << k << " = " << v << "\n";
  if (!cube.wavelength_units.empty()) hdr << "wavelength units = " << cube.wavelength_units << "\n";
  if (!cube.band_names.empty())
    hdr << "band names = " << detail::join_envi_list(cube.band_names) << "\n";
  if (!cube.wavelengths.empty()) {
    std::vector<std::string> w;
    char buf[64];
    for (double x : cube.wavelengths) {
      std::snprintf(buf, sizeof buf, "%.10g", x);
      w.emplace_back(buf);
    }
    hdr << "wavelength = " << detail::join_envi_list(w) << "\n";
  }
  const std::string header_text = hdr.str();

  write_atomically(data_path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
    out.close();
    if (!out) throw Error("cannot write ENVI data file '" + data_path + "'");
  });
  write_atomically(hdr_path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << header_text;
    out.close();
    if (!out) throw Error("cannot write ENVI header '" + hdr_path + "'");
  });
}

}  // namespace celeris::hyperspectral
