// MATLAB .mat cubes through matio. MATLAB arrays are column-major: element (r, c, b) of a
// (lines, samples, bands) array is at r + lines * (c + samples * b), i.e. BSQ with each band image
// transposed. The "Zhu" layout (hyperspectral unmixing data sets of F. Zhu) stores Y as
// bands x pixels with pixel p = r + c * nRow.

#include <zlib.h>
#include <climits>
#include <cmath>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "celeris/table.hpp"
#include "matio_runtime.hpp"

namespace celeris::hyperspectral {

namespace {

constexpr bool kHostBigEndianMat = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

struct MatCloser {
  void operator()(mat_t* m) const { matio().close(m); }
};
struct VarFree {
  void operator()(matvar_t* v) const { matio().var_free(v); }
};
using MatPtr = std::unique_ptr<mat_t, MatCloser>;
using VarPtr = std::unique_ptr<matvar_t, VarFree>;

bool numeric(const matvar_t* v) {
  return v->class_type >= MAT_C_DOUBLE && v->class_type <= MAT_C_UINT64 && !v->isComplex;
}

size_t element_count(const matvar_t* v) {
  size_t n = 1;
  for (int i = 0; i < v->rank; ++i) n *= v->dims[i];
  return n;
}

// All elements of a numeric variable as float (column-major, as stored).
std::vector<float> to_float(const matvar_t* v, const std::string& where) {
  const size_t n = element_count(v);
  std::vector<float> out(n);
  if (!v->data) throw Error(where + ": variable '" + v->name + "' has no data");
  auto copy = [&](auto* p) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(p[i]);
  };
  switch (v->class_type) {
    case MAT_C_DOUBLE:
      copy(static_cast<const double*>(v->data));
      break;
    case MAT_C_SINGLE:
      copy(static_cast<const float*>(v->data));
      break;
    case MAT_C_INT8:
      copy(static_cast<const int8_t*>(v->data));
      break;
    case MAT_C_UINT8:
      copy(static_cast<const uint8_t*>(v->data));
      break;
    case MAT_C_INT16:
      copy(static_cast<const int16_t*>(v->data));
      break;
    case MAT_C_UINT16:
      copy(static_cast<const uint16_t*>(v->data));
      break;
    case MAT_C_INT32:
      copy(static_cast<const int32_t*>(v->data));
      break;
    case MAT_C_UINT32:
      copy(static_cast<const uint32_t*>(v->data));
      break;
    case MAT_C_INT64:
      copy(static_cast<const int64_t*>(v->data));
      break;
    case MAT_C_UINT64:
      copy(static_cast<const uint64_t*>(v->data));
      break;
    default:
      throw Error(where + ": variable '" + std::string(v->name) + "' is not numeric");
  }
  return out;
}

MatPtr open_mat(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error("cannot open MATLAB file '" + path + "': no such file");
  MatPtr m(matio().open(path.c_str(), MAT_ACC_RDONLY));
  if (!m) throw Error("'" + path + "' is not a readable MATLAB .mat file");
  return m;
}

size_t element_bytes(matio_classes c) {
  switch (c) {
    case MAT_C_DOUBLE:
    case MAT_C_INT64:
    case MAT_C_UINT64:
      return 8;
    case MAT_C_SINGLE:
    case MAT_C_INT32:
    case MAT_C_UINT32:
      return 4;
    case MAT_C_INT16:
    case MAT_C_UINT16:
      return 2;
    default:
      return 1;  // cells, structs, chars: at least a byte an element
  }
}

// matio allocates a variable's data from the dimensions its header states, and a few bytes of
// file can state terabytes. Deflate expands at most 1032:1, so no real variable, compressed or
// not, holds more than that many times the file's length: larger claims are refused before any
// variable is read.
void check_declared_sizes(mat_t* m, const std::string& path) {
  std::error_code ec;
  const uintmax_t fsize = std::filesystem::file_size(path, ec);
  const uintmax_t limit = (ec ? 0 : fsize) * 1032 + (uintmax_t(1) << 20);
  while (matvar_t* raw = matio().var_read_next_info(m)) {
    VarPtr info(raw);
    size_t n = 1, bytes = 0;
    bool overflow = info->rank < 0 || (info->rank > 0 && !info->dims);
    for (int i = 0; i < info->rank && !overflow; ++i)
      overflow = __builtin_mul_overflow(n, info->dims[i], &n);
    overflow = overflow || __builtin_mul_overflow(n, element_bytes(info->class_type), &bytes);
    if (overflow || bytes > limit)
      throw Error(
          "MATLAB file '" + path + "': variable '" +
          printable_excerpt(info->name ? info->name : "") +
          "' declares more data than the file can hold (" +
          (overflow ? std::string("dimensions overflow") : std::to_string(bytes) + " bytes") +
          ", file " + std::to_string(fsize) + " bytes)");
  }
  matio().rewind(m);
}

// ---- MATLAB v5 structure, checked before matio reads it --------------------------------------

// matio makes a variable (an allocation and several reads, each through zlib when compressed) for
// every element of a cell, struct or object array, and of every field of a struct's elements,
// when it reads only the info of a file's variables: a 46 KB file of 4 million empty cells took
// it 10 s (found by the CI's fuzz step, stop 72). celeris reads numeric arrays; it refuses
// containers of more elements than this, each, and in all.
constexpr uint64_t kMaxContainerElements = uint64_t(1) << 16;
// A compressed container is inflated whole to count what it holds (a numeric variable only in
// its first 64 KB); one that inflates past this is refused rather than held in memory twice.
constexpr uint64_t kMaxContainerBytes = uint64_t(1) << 30;
// matio allocates what a v5 data element's tag claims (a dimensions element of 2.8 GB in a file
// of 230 bytes) before reading it. Every tag is checked here against its enclosing element and
// the file; compressed variables against the 1032:1 bound of deflate on what zlib inflates of
// their first 64 KB. v7.3 files are HDF5, whose library checks its own structure.
class V5Checker {
 public:
  // Over the file (read through `in` by offset) or over inflated bytes held in `mem`.
  // `nested` counts the arrays held in containers, over the file; `top` is the depth of the
  // file's variables in what this checker walks (1 in a compressed variable's inflated bytes).
  V5Checker(const std::string& path, std::ifstream* in, const std::string* mem, bool swap,
            uint64_t* nested, int top)
      : path_(path), in_(in), mem_(mem), swap_(swap), nested_(nested), top_(top) {}

  uint32_t u32(uint64_t at) const {
    uint32_t v = 0;
    read(at, reinterpret_cast<char*>(&v), 4);
    return swap_ ? __builtin_bswap32(v) : v;
  }
  [[noreturn]] void fail(uint64_t at, const std::string& what) const {
    throw Error("MATLAB file '" + path_ + "': data element at byte " + std::to_string(at) + " " +
                what);
  }
  // The elements in [begin, end); `bound` limits the sizes claimed (past `end` when only a
  // prefix of inflated data is at hand).
  void elements(uint64_t begin, uint64_t end, uint64_t bound, int depth) const {
    if (depth > 16) fail(begin, "nests more than 16 levels");
    for (uint64_t at = begin; at + 8 <= end;) {
      const uint32_t type = u32(at);
      if (type >> 16) {  // small element: size in the upper half, data in the tag
        if ((type >> 16) > 4) fail(at, "is a small element of more than 4 bytes");
        at += 8;
        continue;
      }
      const uint64_t n = u32(at + 4);
      if (n > bound - std::min(bound, at + 8 - begin))
        fail(at, "claims " + std::to_string(n) + " bytes, beyond its enclosing data");
      // matio skips an empty matrix inside a cell or struct, but reads a top-level one's flags
      // and dimensions from whatever bytes follow its tag.
      if (type == 14 && depth > top_ && ++*nested_ > kMaxContainerElements)
        fail(at, "is one of more than " + std::to_string(kMaxContainerElements) +
                     " arrays held in cell, struct or object arrays, which celeris does not read");
      if (type == 14 && (n > 0 || depth == 0)) {
        matrix_dims(at, std::min(end, at + 8 + n), n);
        elements(at + 8, std::min(end, at + 8 + n), n, depth + 1);
      }
      if (type == 15 && in_) compressed(at, n);
      at += 8 + (type == 15 ? n : (n + 7) / 8 * 8);
    }
  }

  // A matrix's dimensions (its second sub-element, after the array flags), which matio
  // multiplies and allocates from before reading any data: none negative, and (but for sparse
  // arrays, whose data holds only the non-zeros) no more elements than the matrix has bytes.
  void matrix_dims(uint64_t at, uint64_t end, uint64_t bytes) const {
    // matio takes the array flags as 16 bytes and the dimensions' tag right after them, whatever
    // either tag says (a flags tag of another type or size is not skipped by its size), so the
    // dimensions are checked where matio will read them, not where the tags would put them.
    const uint64_t flags = at + 8, dims = flags + 16;
    if (bytes < 24)  // matio reads 16 bytes of flags and the dimensions' tag all the same
      fail(at, "is a matrix of " + std::to_string(bytes) +
                   " bytes, too small for its array flags and dimensions");
    if (dims + 8 > end) return;  // elements() judges it
    const bool sparse = (u32(flags + 8) & 0xff) == 5;
    const uint32_t dims_tag = u32(dims);
    const bool small = (dims_tag >> 16) != 0;  // small element: size in the tag's upper half
    const uint64_t n = small ? dims_tag >> 16 : u32(dims + 4);
    const uint64_t data = small ? dims + 4 : dims + 8;
    // matio allocates what the dimensions and name tags claim: both must fit in the matrix.
    const uint64_t matrix_end = at + 8 + bytes;
    if (n > matrix_end - std::min(matrix_end, data))
      fail(dims, "claims " + std::to_string(n) + " bytes, beyond its enclosing data");
    // matio reads n / 4 dimensions and the name's tag right after them (padded to 8 bytes by
    // that count, not by n): with n not a multiple of 4 it read a name's tag out of the
    // dimensions' padding, and allocated its 2.6 GB claim (found by the CI's fuzz step).
    if (n % 4 != 0)
      fail(dims, "holds " + std::to_string(n) +
                     " bytes of dimensions, not a whole number of 32-bit integers");
    const uint64_t name = small ? dims + 8 : dims + 8 + (n + 7) / 8 * 8;
    if (name + 8 <= end && (u32(name) >> 16) == 0 &&
        u32(name + 4) > matrix_end - std::min(matrix_end, name + 8))
      fail(name, "claims " + std::to_string(u32(name + 4)) + " bytes, beyond its enclosing data");
    uint64_t count = 1;
    for (uint64_t k = 0; k + 4 <= n && data + k + 4 <= end; k += 4) {
      const auto d = static_cast<int32_t>(u32(data + k));
      if (d < 0) fail(dims, "holds a negative dimension " + std::to_string(d));
      if (!sparse && __builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
        fail(dims, "holds dimensions whose product overflows");
    }
    if (!sparse && count > bytes)
      fail(dims, "declares " + std::to_string(count) + " elements in a matrix of " +
                     std::to_string(bytes) + " bytes");
    const uint32_t cls = u32(flags + 8) & 0xff;
    if (container_class(cls)) {
      uint64_t members = 0;
      if (__builtin_mul_overflow(count, fields(cls, name, end), &members) ||
          members > kMaxContainerElements)
        fail(at, "is a cell, struct or object array of " + std::to_string(members) +
                     " elements or fields; celeris reads numeric arrays and refuses containers "
                     "of more than " +
                     std::to_string(kMaxContainerElements));
    }
  }

 private:
  static constexpr uint32_t kCell = 1, kStruct = 2, kObject = 3;  // mxCELL/STRUCT/OBJECT_CLASS
  static bool container_class(uint32_t cls) {
    return cls == kCell || cls == kStruct || cls == kObject;
  }

  // Where the data element whose tag is at `at` ends (a small element's data is in its tag).
  uint64_t after(uint64_t at) const {
    const uint32_t type = u32(at);
    return (type >> 16) ? at + 8 : at + 8 + (uint64_t(u32(at + 4)) + 7) / 8 * 8;
  }
  // A struct's or object's fields (1 for a cell): after the name (and an object's class name)
  // its field names' length and their element, which holds length x fields bytes. 0 where the
  // elements are not there (matio then fails on its own).
  uint64_t fields(uint32_t cls, uint64_t name, uint64_t end) const {
    if (cls == kCell) return 1;
    uint64_t at = after(name);
    if (cls == kObject && at + 8 <= end) at = after(at);
    if (at + 12 > end) return 0;
    const uint32_t len_tag = u32(at);
    const uint64_t len = (len_tag >> 16) ? u32(at + 4) : u32(at + 8);
    at = after(at);
    if (len == 0 || at + 8 > end) return 0;
    const uint32_t names_tag = u32(at);
    return ((names_tag >> 16) ? names_tag >> 16 : u32(at + 4)) / len;
  }
  // Whether the element at `at` is a cell, struct or object array (its tag and array flags read).
  bool container_at(uint64_t at) const {
    return u32(at) == 14 && container_class(u32(at + 16) & 0xff);
  }
  // What zlib inflates of the compressed data of n bytes at `at`: at most `limit` bytes, from at
  // most `in_limit` bytes of input.
  std::string inflated(uint64_t at, uint64_t n, uint64_t in_limit, uint64_t limit) const {
    std::string zin(static_cast<size_t>(std::min(n, in_limit)), '\0');
    read(at + 8, zin.data(), zin.size());
    std::string out;
    z_stream z{};
    if (inflateInit(&z) != Z_OK) return out;
    z.next_in = reinterpret_cast<Bytef*>(zin.data());
    z.avail_in = static_cast<uInt>(std::min<size_t>(zin.size(), UINT_MAX));
    for (int rc = Z_OK; rc == Z_OK && out.size() < limit;) {
      // Doubling from 64 KB: a small container is not given (and zero-filled) a large buffer.
      const size_t have = out.size(),
                   grow = std::min<uint64_t>(limit - have, std::max<size_t>(have, 64 << 10));
      out.resize(have + grow);
      z.next_out = reinterpret_cast<Bytef*>(out.data() + have);
      z.avail_out = static_cast<uInt>(grow);
      rc = inflate(&z, Z_SYNC_FLUSH);
      const bool starved = z.avail_out != 0;  // the input ran out (or the stream ended)
      out.resize(have + grow - z.avail_out);
      if (starved) break;
    }
    inflateEnd(&z);
    return out;
  }

  void read(uint64_t at, char* out, size_t n) const {
    if (mem_) {
      if (at + n <= mem_->size()) std::memcpy(out, mem_->data() + at, n);
      return;
    }
    in_->clear();
    in_->seekg(static_cast<std::streamoff>(at));
    in_->read(out, static_cast<std::streamsize>(n));
  }
  // A compressed variable: the tags of what zlib inflates of its first 64 KB, or of all of it
  // where it is a container (what it holds is counted).
  void compressed(uint64_t at, uint64_t n) const {
    std::string out = inflated(at, n, 1 << 20, 64 << 10);
    const V5Checker inner(path_, nullptr, &out, swap_, nested_, 1);  // reads `out` as it is now
    if (out.size() >= 24 && inner.container_at(0)) {
      out = inflated(at, n, n, kMaxContainerBytes + 1);
      if (out.size() > kMaxContainerBytes)
        fail(at, "is a compressed cell, struct or object array of more than " +
                     std::to_string(kMaxContainerBytes >> 20) + " MB, which celeris does not read");
    }
    inner.elements(0, out.size(), n * 1032 + 1024, 1);
  }

  const std::string& path_;
  std::ifstream* in_;
  const std::string* mem_;
  bool swap_;
  uint64_t* nested_;
  int top_;
};

void check_v5_structure(const std::string& path) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  char head[128] = {0};
  if (ec) return;  // open_mat reports it
  // Anything else matio would try as MATLAB v4, whose header sizes it allocates unchecked (a
  // 23-byte file asked for 2 GB); celeris reads v5 and v7.3 only (docs/spp.md).
  if (size < 128 || !in.read(head, 128) ||
      (!(head[126] == 'I' && head[127] == 'M') && !(head[126] == 'M' && head[127] == 'I')))
    throw Error("'" + path + "' is not a MATLAB v5 or v7.3 .mat file");
  const bool little = head[126] == 'I' && head[127] == 'M';
  // matio takes the version field, not the header text, for the format: 0x0200 is v7.3 (HDF5).
  const auto* u = reinterpret_cast<const unsigned char*>(head);
  const unsigned version = little ? u[124] | u[125] << 8 : u[125] | u[124] << 8;
  if (version == 0x0200) return;
  // Any other version than v5's sends matio to its v4 reader, which allocates the sizes it
  // reads from the header unchecked (a 129-byte file with "IM" but version 0x2020: 1.9 GB).
  if (version != 0x0100) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%04x", version);
    throw Error("'" + path + "' is not a MATLAB v5 or v7.3 .mat file (header version " + hex +
                ", expected 0x0100 or 0x0200)");
  }
  uint64_t nested = 0;
  V5Checker(path, &in, nullptr, little == kHostBigEndianMat, &nested, 0)
      .elements(128, size, size - 128, 0);
}

VarPtr read_var(mat_t* m, const std::string& name, const std::string& path) {
  VarPtr v(matio().var_read(m, name.c_str()));
  if (!v) throw Error("MATLAB file '" + path + "' has no variable '" + name + "'");
  return v;
}

double scalar(mat_t* m, const std::string& name, const std::string& path) {
  VarPtr v = read_var(m, name, path);
  if (!numeric(v.get()) || element_count(v.get()) != 1)
    throw Error("MATLAB file '" + path + "': '" + name + "' is not a numeric scalar");
  return to_float(v.get(), path)[0];
}

// A dimension (nRow, nCol) given as a scalar: a positive int, or an error (casting a larger
// double to int is undefined).
int int_scalar(mat_t* m, const std::string& name, const std::string& path) {
  const double v = scalar(m, name, path);
  if (!(v >= 1 && v <= INT32_MAX) || v != std::floor(v))
    throw Error("MATLAB file '" + path + "': '" + name + "' = " + std::to_string(v) +
                " is not a positive integer");
  return static_cast<int>(v);
}

Cube from_3d(const matvar_t* v, const std::string& path) {
  const size_t L = v->dims[0], S = v->dims[1], B = v->rank == 3 ? v->dims[2] : 1;
  if (L > INT32_MAX || S > INT32_MAX || B > INT32_MAX)
    throw Error("MATLAB file '" + path + "': '" + v->name + "' has a dimension beyond 2^31");
  const std::vector<float> col = to_float(v, "MATLAB file '" + path + "'");
  Cube cube(static_cast<int>(B), static_cast<int>(L), static_cast<int>(S));
  for (size_t b = 0; b < B; ++b)
    for (size_t s = 0; s < S; ++s)
      for (size_t l = 0; l < L; ++l)
        cube.at(static_cast<int>(b), static_cast<int>(l), static_cast<int>(s)) =
            col[l + L * (s + S * b)];
  cube.source.mat_variable = v->name;
  return cube;
}

Cube from_zhu(const matvar_t* y, int nrow, int ncol, const std::string& path) {
  const size_t B = y->dims[0], N = y->dims[1];
  if (B > INT32_MAX) throw Error("MATLAB file '" + path + "': more than 2^31 bands");
  if (nrow <= 0 || ncol <= 0 || static_cast<size_t>(nrow) * ncol != N)
    throw Error("MATLAB file '" + path + "': nRow x nCol = " + std::to_string(nrow) + " x " +
                std::to_string(ncol) + " does not match the " + std::to_string(N) +
                " columns of '" + y->name + "'");
  const std::vector<float> col = to_float(y, "MATLAB file '" + path + "'");
  Cube cube(static_cast<int>(B), nrow, ncol);
  for (size_t p = 0; p < N; ++p) {
    const int l = static_cast<int>(p % nrow), s = static_cast<int>(p / nrow);
    for (size_t b = 0; b < B; ++b) cube.at(static_cast<int>(b), l, s) = col[b + B * p];
  }
  cube.source.mat_variable = y->name;
  cube.source.mat_zhu = true;
  return cube;
}

}  // namespace

Cube read_mat_cube(const std::string& path, const std::string& variable) {
  check_v5_structure(path);
  MatPtr m = open_mat(path);
  check_declared_sizes(m.get(), path);
  std::string chosen = variable;
  std::vector<std::string> names;
  bool has_y = false, has_nrow = false, has_ncol = false;
  if (chosen.empty()) {
    size_t best = 0;
    while (matvar_t* raw = matio().var_read_next_info(m.get())) {
      VarPtr info(raw);
      const std::string name = info->name ? info->name : "";
      names.push_back(name);
      if (name == "Y") has_y = true;
      if (name == "nRow") has_nrow = true;
      if (name == "nCol") has_ncol = true;
      if (info->rank == 3 && numeric(info.get()) && element_count(info.get()) > best) {
        best = element_count(info.get());
        chosen = name;
      }
    }
    if (chosen.empty() && has_y && has_nrow && has_ncol) chosen = "Y";
    if (chosen.empty()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw Error("MATLAB file '" + path +
                  "' has no 3-D numeric array nor Y/nRow/nCol (variables: " + list +
                  "); name one with --var");
    }
    matio().rewind(m.get());
  }
  VarPtr v = read_var(m.get(), chosen, path);
  if (!numeric(v.get()))
    throw Error("MATLAB file '" + path + "': '" + chosen + "' is not a real numeric array");
  const bool v73 = matio().get_version(m.get()) == MAT_FT_MAT73;
  auto tagged = [&](Cube c) {
    c.source.format = CubeFormat::Mat;
    c.source.mat_v73 = v73;
    return c;
  };
  if (v->rank == 3) return tagged(from_3d(v.get(), path));
  if (v->rank == 2) {
    // Bands x pixels with nRow/nCol present (Zhu); otherwise a single-band lines x samples image.
    VarPtr nrow(matio().var_read(m.get(), "nRow"));
    VarPtr ncol(matio().var_read(m.get(), "nCol"));
    if (nrow && ncol)
      return tagged(from_zhu(v.get(), int_scalar(m.get(), "nRow", path),
                             int_scalar(m.get(), "nCol", path), path));
    return tagged(from_3d(v.get(), path));
  }
  throw Error("MATLAB file '" + path + "': '" + chosen + "' has " + std::to_string(v->rank) +
              " dimensions, expected 3 (lines, samples, bands) or 2 with nRow/nCol");
}

void write_mat_cube(const std::string& path, const Cube& cube) {
  const size_t B = cube.bands, L = cube.lines, S = cube.samples;
  write_atomically(path, [&](const std::string& tmp) {
    // v5 unless the input was v7.3 (HDF5): v5 variables are limited to 2 GB.
    MatPtr m(
        matio().create_ver(tmp.c_str(), nullptr, cube.source.mat_v73 ? MAT_FT_MAT73 : MAT_FT_MAT5));
    if (!m) throw Error("cannot create MATLAB file '" + path + "'");
    auto put = [&](const char* name, size_t rank, size_t* dims, enum matio_classes cls,
                   enum matio_types type, void* data) {
      VarPtr v(matio().var_create(name, cls, type, static_cast<int>(rank), dims, data,
                                  MAT_F_DONT_COPY_DATA));
      if (!v || matio().var_write(m.get(), v.get(), MAT_COMPRESSION_ZLIB) != 0)
        throw Error("cannot write variable '" + std::string(name) + "' to '" + path + "'");
    };
    std::vector<float> col(cube.size());
    const std::string name = cube.source.mat_variable.empty() ? "cube" : cube.source.mat_variable;
    if (cube.source.mat_zhu) {
      for (size_t s = 0; s < S; ++s)
        for (size_t l = 0; l < L; ++l)
          for (size_t b = 0; b < B; ++b)
            col[b + B * (l + L * s)] =
                cube.at(static_cast<int>(b), static_cast<int>(l), static_cast<int>(s));
      size_t dims[2] = {B, L * S};
      put(name.c_str(), 2, dims, MAT_C_SINGLE, MAT_T_SINGLE, col.data());
      double nrow = static_cast<double>(L), ncol = static_cast<double>(S),
             nband = static_cast<double>(B);
      size_t one[2] = {1, 1};
      put("nRow", 2, one, MAT_C_DOUBLE, MAT_T_DOUBLE, &nrow);
      put("nCol", 2, one, MAT_C_DOUBLE, MAT_T_DOUBLE, &ncol);
      put("nBand", 2, one, MAT_C_DOUBLE, MAT_T_DOUBLE, &nband);
    } else {
      for (size_t b = 0; b < B; ++b)
        for (size_t s = 0; s < S; ++s)
          for (size_t l = 0; l < L; ++l)
            col[l + L * (s + S * b)] =
                cube.at(static_cast<int>(b), static_cast<int>(l), static_cast<int>(s));
      size_t dims[3] = {L, S, B};
      put(name.c_str(), 3, dims, MAT_C_SINGLE, MAT_T_SINGLE, col.data());
    }
    if (!cube.wavelengths.empty()) {
      std::vector<double> w = cube.wavelengths;
      size_t dims[2] = {1, w.size()};
      put("wavelength", 2, dims, MAT_C_DOUBLE, MAT_T_DOUBLE, w.data());
    }
    matio().close(m.release());
  });
}

}  // namespace celeris::hyperspectral
