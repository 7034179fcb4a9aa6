// The directory layout of a HATS catalog (include/celeris/xmatch_hats.hpp): properties,
// partition_info.csv and the partitions' Parquet files. No Parquet is read here, so that a build
// without CELERIS_PARQUET still names the catalog and its problem.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/xmatch_hats.hpp"

namespace celeris::xmatch {

namespace fs = std::filesystem;

namespace {

constexpr int max_order = 29;  // HATS pixels are NESTED at orders 0..29

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool exists_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// key=value lines of a Java-style properties file ('#' and '!' comments).
std::map<std::string, std::string> read_properties(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw Error(p.string() + ": cannot read");
  std::map<std::string, std::string> kv;
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    const size_t eq = line.find_first_of("=:");
    if (eq == std::string::npos) continue;
    // jproperties may write "\:" for a colon in a value; undo that escape only.
    std::string v = trim(line.substr(eq + 1));
    for (size_t at; (at = v.find("\\:")) != std::string::npos;) v.erase(at, 1);
    kv[trim(line.substr(0, eq))] = v;
  }
  return kv;
}

// The string value of a key of hipscat's catalog_info.json (a flat object of strings and
// numbers): the text between the quotes after `"key"` and a colon; empty when absent.
std::string json_string(const std::string& text, const std::string& key) {
  const std::string quoted = "\"" + key + "\"";
  for (size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1)) {
    size_t k = at + quoted.size();
    while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
    if (k >= text.size() || text[k] != ':') continue;  // a value equal to the key, not the key
    ++k;
    while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
    if (k >= text.size() || text[k] != '"') return {};
    const size_t end = text.find('"', k + 1);
    return end == std::string::npos ? std::string() : text.substr(k + 1, end - k - 1);
  }
  return {};
}

// The catalog's properties as key=value, from hats.properties, properties or catalog_info.json.
std::map<std::string, std::string> catalog_properties(const fs::path& dir) {
  for (const char* name : {"hats.properties", "properties"})
    if (exists_file(dir / name)) return read_properties(dir / name);
  std::map<std::string, std::string> kv;
  if (exists_file(dir / "catalog_info.json")) {
    std::ifstream in(dir / "catalog_info.json");
    std::stringstream text;
    text << in.rdbuf();
    kv["hats_col_ra"] = json_string(text.str(), "ra_column");
    kv["hats_col_dec"] = json_string(text.str(), "dec_column");
    kv["dataproduct_type"] = json_string(text.str(), "catalog_type");
  }
  return kv;
}

// A collection stands for its primary catalog.
fs::path primary_catalog(const fs::path& dir) {
  if (!exists_file(dir / "collection.properties")) return dir;
  const auto kv = read_properties(dir / "collection.properties");
  const auto it = kv.find("hats_primary_table_url");
  if (it == kv.end() || it->second.empty())
    throw Error(dir.string() + ": HATS collection without hats_primary_table_url");
  return dir / it->second;
}

int64_t parse_int(const std::string& s, const std::string& where) {
  const std::string t = trim(s);
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (t.empty() || used != t.size()) throw Error(where + ": '" + t + "' is not an integer");
  return v;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(trim(cell));
  return out;
}

// Norder,Npix from partition_info.csv (other columns, e.g. hipscat's Dir and num_rows, ignored).
std::vector<HatsPartition> read_partition_info(const fs::path& dir, bool allow_empty) {
  const fs::path p = dir / "partition_info.csv";
  std::ifstream in(p);
  if (!in) throw Error(dir.string() + ": HATS catalog without partition_info.csv");
  std::string line;
  if (!std::getline(in, line)) throw Error(p.string() + ": empty");
  const auto head = split_csv(line);
  const auto col = [&](const char* name) {
    const auto it = std::find(head.begin(), head.end(), name);
    if (it == head.end()) throw Error(p.string() + ": no " + name + " column in the header");
    return size_t(it - head.begin());
  };
  const size_t corder = col("Norder"), cpix = col("Npix");
  std::vector<HatsPartition> parts;
  for (size_t lineno = 2; std::getline(in, line); ++lineno) {
    if (trim(line).empty()) continue;
    const std::string where = p.string() + " line " + std::to_string(lineno);
    const auto cells = split_csv(line);
    if (cells.size() != head.size())
      throw Error(where + ": " + std::to_string(cells.size()) + " fields, the header has " +
                  std::to_string(head.size()));
    HatsPartition part;
    const int64_t order = parse_int(cells[corder], where);
    part.pix = parse_int(cells[cpix], where);
    if (order < 0 || order > max_order)
      throw Error(where + ": Norder " + std::to_string(order) + " outside 0..29");
    part.order = int(order);
    if (part.pix < 0 || part.pix >= 12 * (int64_t(1) << (2 * part.order)))
      throw Error(where + ": Npix " + std::to_string(part.pix) + " outside order " +
                  std::to_string(part.order));
    parts.push_back(part);
  }
  if (parts.empty() && !allow_empty) throw Error(p.string() + ": no partitions");
  return parts;
}

// The first NESTED pixel at order 29 of a partition (its range is 4^(29 - order) pixels wide).
int64_t first_pixel29(const HatsPartition& p) {
  return p.pix << (2 * (max_order - p.order));
}
int64_t pixels29(const HatsPartition& p) {
  return int64_t(1) << (2 * (max_order - p.order));
}

// A partition's files: Npix=N.parquet (hats_npix_suffix .parquet), or the Parquet files of the
// directory Npix=N (suffix "/"), under dataset/ (HATS) or the catalog directory (hipscat).
std::vector<std::string> partition_files(const fs::path& dir, const HatsPartition& p,
                                         const std::string& suffix) {
  const fs::path rel = fs::path("Norder=" + std::to_string(p.order)) /
                       ("Dir=" + std::to_string(p.pix / 10000 * 10000));
  const std::string leaf = "Npix=" + std::to_string(p.pix);
  for (const fs::path& base : {dir / "dataset" / rel, dir / rel}) {
    if (exists_file(base / (leaf + suffix))) return {(base / (leaf + suffix)).string()};
    std::error_code ec;
    if (fs::is_directory(base / leaf, ec)) {
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(base / leaf))
        if (e.is_regular_file() && e.path().extension() == ".parquet")
          files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      if (files.empty())
        throw Error((base / leaf).string() + ": HATS partition directory without Parquet files");
      return files;
    }
  }
  throw Error((dir / "dataset" / rel / (leaf + suffix)).string() +
              ": partition listed in partition_info.csv not found");
}

// The partitions of a catalog directory in sky order, no two overlapping (a margin cache may have
// none: every partition's margin empty).
std::vector<HatsPartition> sorted_partitions(const fs::path& dir, bool allow_empty = false) {
  std::vector<HatsPartition> parts = read_partition_info(dir, allow_empty);
  std::sort(parts.begin(), parts.end(), [](const HatsPartition& a, const HatsPartition& b) {
    return first_pixel29(a) < first_pixel29(b);
  });
  for (size_t k = 1; k < parts.size(); ++k) {
    const HatsPartition &a = parts[k - 1], &b = parts[k];
    if (first_pixel29(a) + pixels29(a) > first_pixel29(b))
      throw Error(dir.string() +
                  "/partition_info.csv: partitions Norder=" + std::to_string(a.order) +
                  " Npix=" + std::to_string(a.pix) + " and Norder=" + std::to_string(b.order) +
                  " Npix=" + std::to_string(b.pix) + " overlap");
  }
  return parts;
}

std::string npix_suffix(const std::map<std::string, std::string>& kv) {
  if (auto it = kv.find("hats_npix_suffix"); it != kv.end() && !it->second.empty())
    return it->second == "/" ? std::string() : it->second;
  return ".parquet";
}

// The margin cache named by a collection (default_margin, else the first of all_margins), or the
// directory <catalog>_margin beside a catalog; empty when neither exists.
fs::path margin_directory(const fs::path& dir) {
  if (exists_file(dir / "collection.properties")) {
    const auto kv = read_properties(dir / "collection.properties");
    std::string name;
    if (auto it = kv.find("default_margin"); it != kv.end()) name = it->second;
    if (auto it = kv.find("all_margins"); name.empty() && it != kv.end()) {
      std::stringstream names(it->second);
      std::getline(names >> std::ws, name, ' ');
      if (const size_t comma = name.find(','); comma != std::string::npos) name.resize(comma);
    }
    name = trim(name);
    return name.empty() ? fs::path() : dir / name;
  }
  fs::path plain = dir;
  if (!plain.has_filename()) plain = plain.parent_path();  // "catalog/" names "catalog"
  const fs::path beside = plain.parent_path() / (plain.filename().string() + "_margin");
  std::error_code ec;
  return fs::is_directory(beside, ec) ? beside : fs::path();
}

}  // namespace

std::optional<HatsMargin> find_hats_margin(const std::string& path) {
  const fs::path dir = margin_directory(fs::path(path));
  if (dir.empty()) return std::nullopt;
  const auto kv = catalog_properties(dir);
  const auto type = kv.find("dataproduct_type");
  if (type == kv.end() || type->second != "margin")
    throw Error(dir.string() + ": named as the margin cache of " + path +
                " but its properties do not say dataproduct_type=margin");
  const auto t = kv.find("hats_margin_threshold");
  HatsMargin m;
  m.path = dir.string();
  size_t used = 0;
  try {
    if (t != kv.end()) m.threshold_arcsec = std::stod(t->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (t == kv.end() || used == 0 || used != t->second.size() || !(m.threshold_arcsec >= 0))
    throw Error(dir.string() + ": margin cache without a numeric hats_margin_threshold");
  m.partitions = sorted_partitions(dir, true);
  const std::string suffix = npix_suffix(kv);
  for (HatsPartition& p : m.partitions) {
    // A margin file absent from disk fails the rank that needs it (naming its partition), not
    // every rank at open.
    try {
      p.files = partition_files(dir, p, suffix);
      m.missing.emplace_back();
    } catch (const Error& e) {
      m.missing.emplace_back(e.what());
    }
  }
  return m;
}

bool is_hats_catalog(const std::string& path) {
  std::error_code ec;
  const fs::path dir(path);
  if (!fs::is_directory(dir, ec)) return false;
  for (const char* name : {"collection.properties", "hats.properties", "properties",
                           "catalog_info.json", "partition_info.csv"})
    if (exists_file(dir / name)) return true;
  return false;
}

std::pair<std::string, std::string> hats_radec_columns(const std::string& path) {
  const auto kv = catalog_properties(primary_catalog(path));
  const auto ra = kv.find("hats_col_ra"), dec = kv.find("hats_col_dec");
  if (ra == kv.end() || dec == kv.end() || ra->second.empty() || dec->second.empty()) return {};
  return {ra->second, dec->second};
}

HatsCatalog open_hats(const std::string& path) {
  if (!is_hats_catalog(path))
    throw Error(path + ": not a HATS catalog directory (no properties or partition_info.csv)");
  const fs::path dir = primary_catalog(path);
  const auto kv = catalog_properties(dir);
  if (const auto t = kv.find("dataproduct_type"); t != kv.end() && !t->second.empty()) {
    // object / source catalogs are tables of rows with positions; margin caches, indexes,
    // association tables and maps are not (a margin cache alone would match a sliver of sky).
    if (t->second != "object" && t->second != "source")
      throw Error(dir.string() + ": a HATS " + t->second +
                  " catalog, not a table of objects or sources (give its primary catalog)");
  }
  HatsCatalog cat;
  cat.path = dir.string();
  if (auto it = kv.find("hats_col_ra"); it != kv.end()) cat.ra = it->second;
  if (auto it = kv.find("hats_col_dec"); it != kv.end()) cat.dec = it->second;
  const std::string suffix = npix_suffix(kv);
  cat.partitions = sorted_partitions(dir);
  for (HatsPartition& p : cat.partitions) p.files = partition_files(dir, p, suffix);
  return cat;
}

}  // namespace celeris::xmatch
