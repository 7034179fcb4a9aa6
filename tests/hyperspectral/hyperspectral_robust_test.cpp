// Cube headers whose sizes are not real (issue 18): refused with one line before anything is
// allocated, the files generated here byte by byte.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>

#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "test_util.hpp"

using celeris::Error;
using celeris::hyperspectral::testing::ScratchDir;

namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A MATLAB v5 file (little endian, uncompressed) with one single-precision variable "cube" whose
// dimension element says `dims` while `payload_floats` values follow.
std::string mat_v5(const std::vector<int32_t>& dims, size_t payload_floats) {
  std::string out(128, ' ');
  const char* text = "MATLAB 5.0 MAT-file, written by the celeris tests";
  std::memcpy(out.data(), text, std::strlen(text));
  std::memset(out.data() + 116, 0, 8);
  out[124] = 0x00;
  out[125] = 0x01;
  out[126] = 'I';
  out[127] = 'M';
  auto u32 = [](std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); };
  auto pad8 = [](std::string& s) { s.resize((s.size() + 7) / 8 * 8, '\0'); };
  std::string body;
  u32(body, 6);  // miUINT32: array flags
  u32(body, 8);
  u32(body, 7);  // mxSINGLE_CLASS
  u32(body, 0);
  u32(body, 5);  // miINT32: dimensions
  u32(body, static_cast<uint32_t>(4 * dims.size()));
  for (int32_t d : dims) u32(body, static_cast<uint32_t>(d));
  pad8(body);
  u32(body, 1);  // miINT8: name
  u32(body, 4);
  body += "cube";
  pad8(body);
  u32(body, 7);  // miSINGLE: real part
  u32(body, static_cast<uint32_t>(4 * payload_floats));
  body.append(4 * payload_floats, '\0');
  pad8(body);
  u32(out, 14);  // miMATRIX
  u32(out, static_cast<uint32_t>(body.size()));
  return out + body;
}

// A miMATRIX element holding a cell array of `cells` empty arrays (struct_fields == 0), or a
// 1 x 1 struct of `struct_fields` fields named "ab", each an empty array; `inner` nests that many
// such cells in each cell instead of leaving it empty.
std::string container(uint32_t cells, uint32_t struct_fields, uint32_t inner = 0) {
  auto u32 = [](std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); };
  auto pad8 = [](std::string& s) { s.resize((s.size() + 7) / 8 * 8, '\0'); };
  std::string body;
  u32(body, 6);  // miUINT32: array flags
  u32(body, 8);
  u32(body, struct_fields ? 2 : 1);  // mxSTRUCT_CLASS or mxCELL_CLASS
  u32(body, 0);
  u32(body, 5);  // miINT32: dimensions
  u32(body, 8);
  u32(body, 1);
  u32(body, struct_fields ? 1 : cells);
  u32(body, 1 | 1 << 16);  // miINT8 small element: the name "c"
  body += std::string("c\0\0\0", 4);
  std::string member;
  if (inner) member = container(inner, 0);
  const uint32_t members = struct_fields ? struct_fields : cells;
  if (struct_fields) {
    u32(body, 5 | 4 << 16);  // miINT32 small element: field names' length 4
    u32(body, 4);
    u32(body, 1);  // miINT8: the field names
    u32(body, 4 * struct_fields);
    for (uint32_t f = 0; f < struct_fields; ++f) body += std::string("ab\0\0", 4);
    pad8(body);
  }
  for (uint32_t m = 0; m < members; ++m) {
    if (inner) {
      body += member;
    } else {
      u32(body, 14);  // an empty miMATRIX
      u32(body, 0);
    }
  }
  std::string out;
  u32(out, 14);
  u32(out, static_cast<uint32_t>(body.size()));
  return out + body;
}

// A data element as MATLAB 7 writes it: miCOMPRESSED, the element deflated.
std::string compressed(const std::string& element) {
  uLongf n = compressBound(element.size());
  std::string z(n, '\0');
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(z.data()), &n,
                      reinterpret_cast<const Bytef*>(element.data()), element.size(), 9),
            Z_OK);
  z.resize(n);
  std::string out;
  const uint32_t tag[2] = {15, static_cast<uint32_t>(n)};
  out.append(reinterpret_cast<const char*>(tag), 8);
  return out + z;
}

}  // namespace

// Found by the CI's fuzz step (stop 72): 4 million empty cells in a compressed cell array of a
// 46 KB file, for each of which matio made a variable (10 s). Containers are bounded, each
// (elements, or a struct's elements x fields) and in all (arrays nested in them); a small one
// beside the cube is read past as before.
TEST(HyperspectralRobust, MatContainersOfTooManyElementsAreRefused) {
  ScratchDir dir;
  const std::string cube = mat_v5({2, 3, 2}, 12);
  write_text(dir / "small.mat", cube + container(3, 0) + compressed(container(0, 5)));
  EXPECT_EQ(celeris::hyperspectral::read_mat_cube(dir / "small.mat").bands, 2);
  const std::string cells = container(70000, 0), fields = container(0, 70000);
  for (const auto& [name, bytes] :
       {std::pair{"cells.mat", cube + cells}, std::pair{"cellsz.mat", cube + compressed(cells)},
        std::pair{"fields.mat", cube + fields},
        std::pair{"fieldsz.mat", cube + compressed(fields)}}) {
    write_text(dir / name, bytes);
    const std::string m = error_of([&] { celeris::hyperspectral::read_mat_cube(dir / name); });
    EXPECT_NE(m.find("cell, struct or object array of 70000 elements or fields"), std::string::npos)
        << name << ": " << m;
  }
  // 300 cells of 300 cells each: 90,300 arrays, each container within its bound.
  const std::string nested = container(300, 0, 300);
  for (const auto& [name, bytes] : {std::pair{"nested.mat", cube + nested},
                                    std::pair{"nestedz.mat", cube + compressed(nested)}}) {
    write_text(dir / name, bytes);
    const std::string m = error_of([&] { celeris::hyperspectral::read_mat_cube(dir / name); });
    EXPECT_NE(m.find("is one of more than 65536 arrays held in cell, struct or object arrays"),
              std::string::npos)
        << name << ": " << m;
  }
}

// samples x lines x bands x 4 bytes = 2^65 wrapped round to 0 and matched an empty data file.
TEST(HyperspectralRobust, EnviSizesThatOverflowAreRefused) {
  ScratchDir dir;
  write_text(dir / "c.hdr",
             "ENVI\nsamples = 2097152\nlines = 2097152\nbands = 2097152\ndata type = 4\n"
             "interleave = bsq\nheader offset = 0\nbyte order = 0\n");
  write_text(dir / "c.img", "");
  const std::string m = error_of([&] { celeris::hyperspectral::read_envi(dir / "c.img"); });
  EXPECT_NE(m.find("too large to be real"), std::string::npos) << m;
}

TEST(HyperspectralRobust, EnviJunkLineIsQuotedShortAndPrintable) {
  ScratchDir dir;
  write_text(dir / "c.hdr", "ENVI\nsamples = 2\n" + std::string(100000, '\x01') + "\n");
  write_text(dir / "c.img", std::string(16, '\0'));
  const std::string m = error_of([&] { celeris::hyperspectral::read_envi(dir / "c.img"); });
  EXPECT_NE(m.find("line 3"), std::string::npos) << m;
  EXPECT_LT(m.size(), 200u) << m;
  EXPECT_NE(m.find("\\x01"), std::string::npos) << m;
}

TEST(HyperspectralRobust, MatDimensionsBeyondTheFileAreRefused) {
  ScratchDir dir;
  write_text(dir / "ok.mat", mat_v5({2, 3, 4}, 24));
  EXPECT_EQ(celeris::hyperspectral::read_mat_cube(dir / "ok.mat").bands, 4);
  write_text(dir / "big.mat", mat_v5({100000, 100000, 1000}, 24));
  const std::string m = error_of([&] { celeris::hyperspectral::read_mat_cube(dir / "big.mat"); });
  // Caught by the v5 structure check (dimensions against the matrix's bytes) before matio's
  // own listing of the variables, whose sizes check_declared_sizes bounds for v7.3 files.
  EXPECT_NE(m.find("declares 10000000000000 elements"), std::string::npos) << m;
}

// Found by tests/fuzz/mat_fuzz.cpp: a dimensions element whose tag claims 2.8 GB, in a file of
// 230 bytes, made matio allocate it before reading.
TEST(HyperspectralRobust, MatElementTagBeyondItsVariableIsRefused) {
  ScratchDir dir;
  std::string bytes = mat_v5({2, 3, 2}, 12);
  const size_t dims_tag = 128 + 8 + 16;  // file header, miMATRIX tag, array flags element
  ASSERT_EQ(bytes[dims_tag], 5);         // miINT32
  const uint32_t huge = 0xa5a5000c;
  std::memcpy(bytes.data() + dims_tag + 4, &huge, 4);
  write_text(dir / "tag.mat", bytes);
  const std::string m = error_of([&] { celeris::hyperspectral::read_mat_cube(dir / "tag.mat"); });
  EXPECT_NE(m.find("beyond its enclosing data"), std::string::npos) << m;
  EXPECT_NE(m.find("byte 152"), std::string::npos) << m;
  // The same v5 file whose header text claims v7.3 (matio goes by the version field).
  bytes.replace(0, 10, "MATLAB 7.3");
  write_text(dir / "tag73.mat", bytes);
  const std::string m73 =
      error_of([&] { celeris::hyperspectral::read_mat_cube(dir / "tag73.mat"); });
  EXPECT_NE(m73.find("beyond its enclosing data"), std::string::npos) << m73;
}

// Found by the CI's fuzz step: an array-flags tag of another type and size (0xf9fa, 12 bytes),
// which matio does not skip by its size: it reads the dimensions' tag 16 bytes after the flags'
// whatever they say, and allocated 8.3 GB for the rank its 4.2 GB claim implied.
TEST(HyperspectralRobust, MatDimensionsAreCheckedWhereMatioReadsThem) {
  ScratchDir dir;
  std::string bytes = mat_v5({2, 3, 2}, 12);
  const size_t flags_tag = 128 + 8, dims_tag = flags_tag + 16;
  const uint32_t odd_flags[2] = {0xf9fa, 12};
  std::memcpy(bytes.data() + flags_tag, odd_flags, 8);
  const uint32_t huge = 0xf7ffff0b;
  std::memcpy(bytes.data() + dims_tag + 4, &huge, 4);
  write_text(dir / "flags.mat", bytes);
  const std::string m = error_of([&] { celeris::hyperspectral::read_mat_cube(dir / "flags.mat"); });
  EXPECT_NE(m.find("byte 152 claims 4160749323 bytes"), std::string::npos) << m;
}

// Found by the CI's fuzz step (stop 46): a dimensions element of 11 bytes. matio reads 11 / 4 = 2
// dimensions and the name's tag 8 bytes after them, in the dimensions' padding, where the bytes
// 0x9b000000 made it allocate 2.6 GB for the name.
TEST(HyperspectralRobust, MatDimensionsOfPartIntegersAreRefused) {
  ScratchDir dir;
  std::string bytes = mat_v5({2, 3, 1}, 6);
  const size_t dims_tag = 128 + 8 + 16;  // file header, miMATRIX tag, array flags element
  ASSERT_EQ(bytes[dims_tag], 5);         // miINT32
  ASSERT_EQ(bytes[dims_tag + 4], 12);    // three dimensions
  bytes[dims_tag + 4] = 11;
  bytes[dims_tag + 8 + 15] = static_cast<char>(0x9b);  // the padding matio takes for a tag
  write_text(dir / "dims.mat", bytes);
  const std::string m = error_of([&] { celeris::hyperspectral::read_mat_cube(dir / "dims.mat"); });
  EXPECT_NE(m.find("byte 152 holds 11 bytes of dimensions, not a whole number"), std::string::npos)
      << m;
}

// Found by the CI's fuzz step: a top-level matrix whose tag claims 0 bytes. matio reads its
// array flags and dimensions from the bytes after the tag all the same, and allocated 8.3 GB for
// the rank that the next tag's 4.2 GB claim implied; the check had judged the matrix empty.
TEST(HyperspectralRobust, MatMatrixTooSmallForItsHeaderIsRefused) {
  ScratchDir dir;
  std::string bytes = mat_v5({2, 3, 2}, 12);
  const size_t matrix_tag = 128;
  ASSERT_EQ(bytes[matrix_tag], 14);  // miMATRIX
  for (const uint32_t claimed : {0u, 20u}) {
    std::memcpy(bytes.data() + matrix_tag + 4, &claimed, 4);
    write_text(dir / "empty.mat", bytes);
    const std::string m =
        error_of([&] { celeris::hyperspectral::read_mat_cube(dir / "empty.mat"); });
    EXPECT_NE(m.find("byte 128 is a matrix of " + std::to_string(claimed) + " bytes, too small"),
              std::string::npos)
        << m;
  }
}

// Found by tests/fuzz/mat_fuzz.cpp: dimensions (-2, 16711676, 2) that matio multiplied into a
// calloc of 2^60 bytes while listing the variables.
TEST(HyperspectralRobust, MatNegativeOrOversizedDimensionsAreRefused) {
  ScratchDir dir;
  write_text(dir / "neg.mat", mat_v5({-2, 16711676, 2}, 12));
  std::string m = error_of([&] { celeris::hyperspectral::read_mat_cube(dir / "neg.mat"); });
  EXPECT_NE(m.find("negative dimension -2"), std::string::npos) << m;
  write_text(dir / "big.mat", mat_v5({1000, 1000, 2}, 12));
  m = error_of([&] { celeris::hyperspectral::read_mat_cube(dir / "big.mat"); });
  EXPECT_NE(m.find("declares 2000000 elements"), std::string::npos) << m;
}

// Found by tests/fuzz/mat_fuzz.cpp: 23 bytes that matio read as a MATLAB v4 header and
// allocated 2 GB for. celeris reads v5 and v7.3 only.
TEST(HyperspectralRobust, MatOtherThanV5OrV73IsRefused) {
  ScratchDir dir;
  write_text(dir / "v4.mat", std::string("2\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0d~  \0", 23));
  const std::string m = error_of([&] { celeris::hyperspectral::read_mat_cube(dir / "v4.mat"); });
  EXPECT_NE(m.find("not a MATLAB v5 or v7.3"), std::string::npos) << m;
  // Found by tests/fuzz/mat_fuzz.cpp (stop 33): a v5 header's "IM" with another version than
  // v5's, which matio also reads as v4 (1.9 GB allocated for a 129-byte file).
  std::string odd = mat_v5({2, 2, 2}, 12);
  odd[124] = ' ';
  odd[125] = ' ';
  write_text(dir / "version.mat", odd);
  const std::string v =
      error_of([&] { celeris::hyperspectral::read_mat_cube(dir / "version.mat"); });
  EXPECT_NE(v.find("header version 0x2020, expected 0x0100 or 0x0200"), std::string::npos) << v;
}
