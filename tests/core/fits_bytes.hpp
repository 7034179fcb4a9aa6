// FITS files written byte by byte for the tests that need exact control over what a file holds
// (bad headers, special pixel values): cards, headers and data padded to 2880-byte blocks.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/fits_card.hpp"

namespace celeris::test {

// The cards (each padded to 80 characters), END, padded to whole blocks.
inline std::string header(std::vector<std::string> cards) {
  std::string h;
  for (auto& c : cards) {
    c.resize(80, ' ');
    h += c;
  }
  h += std::string("END").append(77, ' ');
  h.resize((h.size() + 2879) / 2880 * 2880, ' ');
  return h;
}

inline std::string padded(std::string data) {
  data.resize((data.size() + 2879) / 2880 * 2880, '\0');
  return data;
}

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline void write_gzip(const std::filesystem::path& p, const std::string& bytes) {
  gzFile g = gzopen(p.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(gzwrite(g, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(g);
}

}  // namespace celeris::test
