// Header cards written by celeris: run summaries, derived images' WCS.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "celeris/fits.hpp"

namespace celeris {

namespace fits_cards {

// One 80-character card: the key, the value right-aligned to column 30, the comment (cut at 80).
std::string fixed(const std::string& key, const std::string& value, const std::string& comment) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%-8.8s= %20s / %s", key.c_str(), value.c_str(), comment.c_str());
  std::string card = buf;
  card.resize(80, ' ');
  return card;
}

std::string number(const std::string& key, double value, const std::string& comment) {
  char v[32];
  std::snprintf(v, sizeof v, "%20.13G", value);
  return fixed(key, v, comment);
}

std::string integer(const std::string& key, long long value, const std::string& comment) {
  char v[32];
  std::snprintf(v, sizeof v, "%20lld", value);
  return fixed(key, v, comment);
}

std::string flag(const std::string& key, bool value, const std::string& comment) {
  return fixed(key, value ? "T" : "F", comment);
}

// A string value: quoted, quotes doubled, at least 8 characters, as FITS wants.
std::string text(const std::string& key, const std::string& value, const std::string& comment) {
  std::string q;
  for (char c : value) q += c == '\'' ? std::string("''") : std::string(1, c);
  q.resize(std::max<size_t>(q.size(), 8), ' ');
  q = "'" + q.substr(0, 66) + "'";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%-8.8s= %-20s / %s", key.c_str(), q.c_str(), comment.c_str());
  std::string card = buf;
  card.resize(80, ' ');
  return card;
}

}  // namespace fits_cards

std::vector<std::string> wcs_cards(const FitsHeader& header) {
  static const char* prefixes[] = {"CTYPE",   "CRVAL",   "CRPIX",   "CDELT",    "CROTA",
                                   "CUNIT",   "CD1_",    "CD2_",    "PC1_",     "PC2_",
                                   "PV1_",    "PV2_",    "EQUINOX", "EPOCH",    "RADESYS",
                                   "LONPOLE", "LATPOLE", "MJD-OBS", "DATE-OBS", "WCSAXES"};
  std::vector<std::string> out;
  for (const std::string& card : header.cards()) {
    const std::string key = card.substr(0, 8);
    for (const char* p : prefixes)
      if (key.rfind(p, 0) == 0) {
        out.push_back(card);
        break;
      }
  }
  return out;
}

}  // namespace celeris
