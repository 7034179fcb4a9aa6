// `celeris maxsub`: the brightest rectangle (or K of them, or the maximum convex region) of a
// FITS image, with FITS 1-based pixel ranges and, when the header has a celestial WCS, RA/Dec.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/fits.hpp"
#include "celeris/maxsub.hpp"
#include "celeris/table.hpp"
#include "celeris/wcs.hpp"
#include "cli_parse.hpp"
#include "commands.hpp"
#include "png_overlay.hpp"

namespace celeris::cli {

namespace {

namespace ms = celeris::maxsub;

// One result, shape-independent: the pixels' 0-based column intervals.
struct Region {
  double sum = 0;                                // of the offset pixels: what was maximised
  double raw_sum = 0;                            // of the file's pixels (masked ones count 0)
  int left = 0, right = 0, top = 0, bottom = 0;  // bounding box, 0-based inclusive
  std::vector<int> col_top, col_bottom;          // per column left..right
  int64_t npix = 0;
  double cx = 0, cy = 0;  // pixel centroid, 0-based
};

struct Sky {
  double ra, dec;
};

double finite_median(std::vector<double> v) {
  const size_t n = v.size(), h = n / 2;
  std::nth_element(v.begin(), v.begin() + h, v.end());
  const double hi = v[h];
  if (n % 2) return hi;
  return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + h));
}

// The offset subtracted before the search: none, mean, median (of the finite pixels) or a value.
double compute_offset(const std::string& spec, const std::vector<double>& finite) {
  if (spec == "none") return 0;
  if (finite.empty()) throw Error("the image has no finite pixel");
  if (spec == "mean") {
    long double s = 0;
    for (double v : finite) s += v;
    return static_cast<double>(s / finite.size());
  }
  if (spec == "median") return finite_median(finite);
  try {
    size_t used = 0;
    const double v = std::stod(spec, &used);
    if (used == spec.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw Error("--offset must be none, mean, median, background[:SIZE] or a number (got '" + spec +
              "')");
}

// --offset background[:SIZE]: SExtractor's background map (meshes of SIZE pixels, default 64,
// 3 x 3 median filter), as `celeris extract` estimates it; 0 when the spec is another offset.
int background_mesh(const std::string& spec) {
  if (spec.rfind("background", 0) != 0) return 0;
  if (spec == "background") return 64;
  try {
    size_t used = 0;
    if (spec[10] == ':') {
      const int v = std::stoi(spec.substr(11), &used);
      if (used == spec.size() - 11 && v >= 1) return v;
    }
  } catch (const std::exception&) {
  }
  throw Error("--offset background: the mesh size must be a positive integer (got '" + spec + "')");
}

Region from_columns(int left, const std::vector<int>& tops, const std::vector<int>& bottoms,
                    double sum, const std::vector<double>& raw, int width) {
  Region g;
  g.sum = sum;
  g.left = left;
  g.right = left + int(tops.size()) - 1;
  g.col_top = tops;
  g.col_bottom = bottoms;
  g.top = *std::min_element(tops.begin(), tops.end());
  g.bottom = *std::max_element(bottoms.begin(), bottoms.end());
  long double rs = 0, sx = 0, sy = 0;
  for (size_t i = 0; i < tops.size(); ++i) {
    const int x = left + int(i);
    for (int y = tops[i]; y <= bottoms[i]; ++y) {
      const double v = raw[size_t(y) * width + x];
      if (std::isfinite(v)) rs += v;
      sx += x;
      sy += y;
      ++g.npix;
    }
  }
  g.raw_sum = static_cast<double>(rs);
  g.cx = static_cast<double>(sx / g.npix);
  g.cy = static_cast<double>(sy / g.npix);
  return g;
}

Region from_rect(const ms::Rect& r, const std::vector<double>& raw, int width) {
  const size_t n = size_t(r.right - r.left + 1);
  return from_columns(r.left, std::vector<int>(n, r.top), std::vector<int>(n, r.bottom), r.sum, raw,
                      width);
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

struct Run {
  std::string image, shape, method, precision, nan_policy, offset_spec;
  int width = 0, height = 0, k = 1;
  bool overlap = false, rect = true;
  double offset = 0;   // the value subtracted; for a background map, its global level
  int background = 0;  // mesh size of a subtracted background map, 0: a constant offset
  int64_t n_masked = 0;
  std::optional<Wcs> wcs;
  FitsHeader header;
};

std::string sky_json(const Wcs& wcs, double x1, double y1) {
  const auto [ra, dec] = wcs.pixel_to_j2000(x1, y1);
  return "[" + num(ra) + ", " + num(dec) + "]";
}

void write_json(const std::string& path, const Run& run, const std::vector<Region>& regions) {
  std::string s = "{\n";
  s += "  \"image\": " + json_string(run.image) + ",\n";
  s += "  \"width\": " + std::to_string(run.width) + ",\n";
  s += "  \"height\": " + std::to_string(run.height) + ",\n";
  s += "  \"shape\": " + json_string(run.shape) + ",\n";
  s += "  \"k\": " + std::to_string(run.k) + ",\n";
  s += "  \"overlap\": " + std::string(run.overlap ? "true" : "false") + ",\n";
  s += "  \"method\": " + json_string(run.method) + ",\n";
  s += "  \"precision\": " + json_string(run.precision) + ",\n";
  s += "  \"offset\": " + json_string(run.offset_spec) + ",\n";
  s += "  \"offset_value\": " + num(run.offset) + ",\n";
  s += "  \"offset_per_pixel\": " + std::string(run.background ? "true" : "false") + ",\n";
  s += "  \"nan\": " + json_string(run.nan_policy) + ",\n";
  s += "  \"masked_pixels\": " + std::to_string(run.n_masked) + ",\n";
  s += "  \"pixel_convention\": \"FITS 1-based, x = NAXIS1 column, y = NAXIS2 row\",\n";
  s += "  \"results\": [";
  for (size_t i = 0; i < regions.size(); ++i) {
    const Region& g = regions[i];
    s += i ? ",\n    {" : "\n    {";
    s += "\"rank\": " + std::to_string(i + 1);
    s += ", \"sum\": " + num(g.sum) + ", \"raw_sum\": " + num(g.raw_sum);
    s += ", \"npix\": " + std::to_string(g.npix);
    s += ", \"x_min\": " + std::to_string(g.left + 1) +
         ", \"x_max\": " + std::to_string(g.right + 1);
    s += ", \"y_min\": " + std::to_string(g.top + 1) +
         ", \"y_max\": " + std::to_string(g.bottom + 1);
    s += ", \"x_centre\": " + num(g.cx + 1) + ", \"y_centre\": " + num(g.cy + 1);
    if (!run.rect) {
      s += ", \"columns\": [";
      for (size_t c = 0; c < g.col_top.size(); ++c) {
        if (c) s += ", ";
        s += "[" + std::to_string(g.left + int(c) + 1) + ", " + std::to_string(g.col_top[c] + 1) +
             ", " + std::to_string(g.col_bottom[c] + 1) + "]";
      }
      s += "]";
    }
    if (run.wcs) {
      s += ", \"centre_radec\": " + sky_json(*run.wcs, g.cx + 1, g.cy + 1);
      if (run.rect) {
        // Outer pixel edges, 1-based: (x_min - 0.5, y_min - 0.5) ... (x_max + 0.5, y_max + 0.5).
        const double x0 = g.left + 0.5, x1 = g.right + 1.5, y0 = g.top + 0.5, y1 = g.bottom + 1.5;
        s += ", \"corners_radec\": [" + sky_json(*run.wcs, x0, y0) + ", " +
             sky_json(*run.wcs, x1, y0) + ", " + sky_json(*run.wcs, x1, y1) + ", " +
             sky_json(*run.wcs, x0, y1) + "]";
      }
    }
    s += "}";
  }
  s += regions.empty() ? "]\n}\n" : "\n  ]\n}\n";
  write_atomically(path, [&](const std::string& tmp) {
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw Error("cannot write " + path);
    const bool ok = std::fwrite(s.data(), 1, s.size(), f) == s.size();
    if (std::fclose(f) != 0 || !ok) throw Error("cannot write " + path);
  });
}

bool ends_with_fits(std::string p) {
  for (char& c : p) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* e : {".fits", ".fit", ".fts", ".fits.gz"})
    if (p.size() >= std::strlen(e) &&
        p.compare(p.size() - std::strlen(e), std::string::npos, e) == 0)
      return true;
  return false;
}

// The settings as header cards of the FITS outputs.
std::vector<std::string> run_cards(const Run& run) {
  namespace fc = fits_cards;
  return {fc::text("IMAGE", run.image, "searched image"),
          fc::text("SHAPE", run.shape, "rect or convex"),
          fc::integer("NREGIONS", run.k, "regions asked for (--k)"),
          fc::flag("OVERLAP", run.overlap, "K best possibly overlapping"),
          fc::text("METHOD", run.method, "search method"),
          fc::text("PRECISN", run.precision, "accumulation type"),
          fc::text("OFFSET", run.offset_spec, "subtracted before the search"),
          fc::number("OFFVAL", run.offset, "offset value (background: its global level)"),
          fc::flag("OFFPIX", run.background != 0, "offset varies per pixel (background map)"),
          fc::text("NANPOL", run.nan_policy, "masked pixels: error, zero or min"),
          fc::integer("NMASKED", run.n_masked, "masked (NaN) pixels")};
}

// -o result.fits: one row per region, FITS 1-based pixel ranges (convex regions: their shape is
// in the --mask image and the JSON output).
void write_fits_results(const std::string& path, const Run& run,
                        const std::vector<Region>& regions) {
  Table t;
  t.rows = regions.size();
  auto col = [&](const char* name, ColumnType type, const char* unit, const char* desc,
                 const char* fmt, auto value) {
    Column c{name, unit, desc, type, 1, fmt, {}};
    for (size_t i = 0; i < regions.size(); ++i) c.values.push_back(value(i, regions[i]));
    t.columns.push_back(std::move(c));
  };
  col("RANK", ColumnType::Int32, "", "1 = the best", "%4.0f",
      [](size_t i, const Region&) { return double(i + 1); });
  col("SUM", ColumnType::Float64, "", "sum of the offset pixels (maximised)", "%.10g",
      [](size_t, const Region& g) { return g.sum; });
  col("RAW_SUM", ColumnType::Float64, "", "sum of the file's pixels", "%.10g",
      [](size_t, const Region& g) { return g.raw_sum; });
  col("NPIX", ColumnType::Int64, "pixel", "pixels in the region", "%.0f",
      [](size_t, const Region& g) { return double(g.npix); });
  col("X_MIN", ColumnType::Int32, "pixel", "first NAXIS1 column", "%.0f",
      [](size_t, const Region& g) { return double(g.left + 1); });
  col("X_MAX", ColumnType::Int32, "pixel", "last NAXIS1 column", "%.0f",
      [](size_t, const Region& g) { return double(g.right + 1); });
  col("Y_MIN", ColumnType::Int32, "pixel", "first NAXIS2 row", "%.0f",
      [](size_t, const Region& g) { return double(g.top + 1); });
  col("Y_MAX", ColumnType::Int32, "pixel", "last NAXIS2 row", "%.0f",
      [](size_t, const Region& g) { return double(g.bottom + 1); });
  col("X_CENTRE", ColumnType::Float64, "pixel", "pixel centroid, NAXIS1", "%.4f",
      [](size_t, const Region& g) { return g.cx + 1; });
  col("Y_CENTRE", ColumnType::Float64, "pixel", "pixel centroid, NAXIS2", "%.4f",
      [](size_t, const Region& g) { return g.cy + 1; });
  if (run.wcs) {
    col("RA_J2000", ColumnType::Float64, "deg", "centroid right ascension (J2000)", "%.7f",
        [&](size_t, const Region& g) { return run.wcs->pixel_to_j2000(g.cx + 1, g.cy + 1).first; });
    col("DEC_J2000", ColumnType::Float64, "deg", "centroid declination (J2000)", "%.7f",
        [&](size_t, const Region& g) {
          return run.wcs->pixel_to_j2000(g.cx + 1, g.cy + 1).second;
        });
  }
  FitsTableOptions o;
  o.extname = "MAXSUB";
  o.extra_cards = run_cards(run);
  write_fits_table(path, t, o);
}

// --mask mask.fits: the image's grid, each region's pixels set to its rank (the best region
// wins where overlapping ones meet), 0 elsewhere; with the image's WCS.
void write_mask(const std::string& path, const Run& run, const std::vector<Region>& regions) {
  Image<float> mask(run.width, run.height, 0.0f);
  for (size_t r = regions.size(); r--;) {
    const Region& g = regions[r];
    for (size_t c = 0; c < g.col_top.size(); ++c)
      for (int y = g.col_top[c]; y <= g.col_bottom[c]; ++y) mask(g.left + int(c), y) = float(r + 1);
  }
  std::vector<std::string> cards = wcs_cards(run.header);
  for (const std::string& c : run_cards(run)) cards.push_back(c);
  write_fits_image(path, mask.view(), cards, 32);
}

void print_table(const Run& run, const std::vector<Region>& regions) {
  std::printf("%s: %d x %d, offset %s = %.6g, %s%s, method %s (%s)\n", run.image.c_str(), run.width,
              run.height, run.offset_spec.c_str(), run.offset, run.shape.c_str(),
              run.k > 1 ? (run.overlap ? ", k overlapping" : ", k disjoint") : "",
              run.method.c_str(), run.precision.c_str());
  if (run.n_masked) {
    std::printf("%lld masked pixels set to %s\n", static_cast<long long>(run.n_masked),
                run.nan_policy == "zero" ? "0 (after the offset)" : "the minimum");
  }
  std::printf("%4s %16s %16s %13s %13s %9s", "rank", "sum", "raw_sum", "x (NAXIS1)", "y (NAXIS2)",
              "npix");
  if (run.wcs) std::printf(" %11s %11s", "RA_J2000", "DEC_J2000");
  std::printf("\n");
  for (size_t i = 0; i < regions.size(); ++i) {
    const Region& g = regions[i];
    const std::string xr = std::to_string(g.left + 1) + ".." + std::to_string(g.right + 1);
    const std::string yr = std::to_string(g.top + 1) + ".." + std::to_string(g.bottom + 1);
    std::printf("%4zu %16.8g %16.8g %13s %13s %9lld", i + 1, g.sum, g.raw_sum, xr.c_str(),
                yr.c_str(), static_cast<long long>(g.npix));
    if (run.wcs) {
      const auto [ra, dec] = run.wcs->pixel_to_j2000(g.cx + 1, g.cy + 1);
      std::printf(" %11.6f %11.6f", ra, dec);
    }
    std::printf("\n");
  }
}

}  // namespace

int run_maxsub(const Args& args) {
  CLI::App app{
      "celeris maxsub: the maximum-sum rectangle of an image (Bae's Algorithms 8/9, the mesh "
      "Algorithms 38/39 and a fast GPU search), the K maximum disjoint or overlapping "
      "rectangles, or the maximum convex (W-N) region",
      "celeris maxsub"};
  Run run;
  std::string out;
  run.shape = "rect";
  run.method = "auto";
  run.precision = "double";
  run.nan_policy = "error";
  run.offset_spec = "none";
  app.add_option("image", run.image, "FITS image (CFITSIO syntax: img.fits[1], .gz, ...)")
      ->required();
  app.add_option("-k,--k", run.k, "number of regions")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--shape", run.shape,
                 "rect or convex (W-N shape, Thaher & Takaoka; on the GPU with --device cuda or "
                 "auto, else on one core; always double)")
      ->check(CLI::IsMember({"rect", "convex"}))
      ->capture_default_str();
  app.add_flag("--overlap", run.overlap,
               "K best distinct rectangles, overlaps allowed "
               "(default: disjoint, each excluded from the next)");
  app.add_option("--offset", run.offset_spec,
                 "subtracted from every pixel first: none, mean, median (of finite pixels), "
                 "background[:SIZE] (the background map of celeris extract, SIZE-pixel meshes, "
                 "default 64) or a number; a positive sky makes the whole image the answer")
      ->capture_default_str();
  app.add_option("--precision", run.precision, "accumulation type of the search")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  std::string algorithm, device;
  auto* algorithm_opt =
      app.add_option("--algorithm", algorithm,
                     "rowpairs (2-D Kadane over every row pair: all threads on the CPU, row-pair "
                     "tiles in shared memory on the GPU; the default), alg8 (Bae's Algorithm 8: "
                     "2-D prefix sums, 1 core), alg9 (Algorithm 9: 2-D Kadane, 1 core), "
                     "alg38/alg39 (the paper's GPU mesh algorithms, one thread per pixel, w + h - "
                     "1 steps: for comparison, slow), brute (every rectangle: tiny images only)")
          ->check(CLI::IsMember({"rowpairs", "alg8", "alg9", "alg38", "alg39", "brute"}));
  auto* device_opt = app.add_option("--device", device,
                                    "cpu, cuda, or auto (cuda when a GPU exists and the "
                                    "algorithm runs there, else cpu; the default)")
                         ->check(CLI::IsMember({"cpu", "cuda", "gpu", "auto"}));
  app.add_option("--method", run.method,
                 "former spelling of --algorithm and --device together: cpu (rowpairs on the "
                 "CPU), cuda (rowpairs on the GPU), auto, alg8, alg9, brute (CPU), alg38, alg39 "
                 "(GPU)")
      ->check(CLI::IsMember({"alg8", "alg9", "cpu", "cuda", "alg38", "alg39", "auto", "brute"}))
      ->excludes(algorithm_opt)
      ->excludes(device_opt)
      ->capture_default_str();
  app.add_option("--nan", run.nan_policy,
                 "masked (NaN) pixels: error, zero (0 after the offset) or min (the minimum)")
      ->check(CLI::IsMember({"error", "zero", "min"}))
      ->capture_default_str();
  std::string mask_path, png_path;
  app.add_option("-o,--output", out,
                 "write the results as JSON, or as a FITS table when the name ends in .fits "
                 "(atomically)");
  app.add_option(
      "--mask", mask_path,
      "write a FITS image of the regions (pixel = rank, 0 outside) with the image's WCS");
  app.add_option("--png", png_path,
                 "write a PNG quick look: the image in grey with the regions outlined");
  if (const auto code = parse_args(app, args)) return *code;
  run.rect = run.shape == "rect";
  if (!run.rect && run.overlap)
    throw Error("--overlap is for rectangles only (--shape convex gives disjoint regions)");

  for (const std::string* o : {&mask_path, &png_path})
    if (!o->empty()) refuse_output_over_input(*o, run.image, "output");
  const FitsImage img = read_fits_image(run.image);
  run.width = static_cast<int>(img.pixels.width());
  run.height = static_cast<int>(img.pixels.height());
  // The search is in double: files whose values float32 cannot hold (BITPIX -64, 64, 32) are read
  // again as float64, so that the offset, the search and the sums see the stored values.
  std::vector<double> raw;
  if (fits_bitpix_wider_than_float(img.bitpix)) {
    const Image<double> px = read_fits_pixels_f64(img);
    raw.assign(px.pixels().begin(), px.pixels().end());
  } else {
    raw.assign(img.pixels.pixels().begin(), img.pixels.pixels().end());
  }
  std::vector<double> finite;
  finite.reserve(raw.size());
  int64_t first_nan = -1;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (std::isfinite(raw[i]))
      finite.push_back(raw[i]);
    else if (first_nan < 0)
      first_nan = int64_t(i);
  }
  run.n_masked = int64_t(raw.size() - finite.size());
  if (run.n_masked && run.nan_policy == "error") {
    throw Error(
        run.image + " has " + std::to_string(run.n_masked) +
        " masked (NaN) pixels, the first at x=" + std::to_string(first_nan % run.width + 1) +
        " y=" + std::to_string(first_nan / run.width + 1) + "; use --nan zero or --nan min");
  }
  run.background = background_mesh(run.offset_spec);
  std::vector<double> a(raw.size());
  if (run.background) {
    // Per-pixel offset: the background map of the extraction (SExtractor's), NaN pixels masked.
    extract::Config bc;
    bc.back_width = bc.back_height = run.background;
    float global = 0;
    const Image<float> back = extract::background_image(img.pixels.view(), bc, &global);
    run.offset = global;
    for (size_t i = 0; i < raw.size(); ++i) a[i] = raw[i] - back.data()[i];
  } else {
    run.offset = compute_offset(run.offset_spec, finite);
    for (size_t i = 0; i < raw.size(); ++i) a[i] = raw[i] - run.offset;
  }
  double lowest = 0;
  bool any = false;
  for (size_t i = 0; i < raw.size(); ++i)
    if (std::isfinite(raw[i])) lowest = any ? std::min(lowest, a[i]) : a[i], any = true;
  for (size_t i = 0; i < raw.size(); ++i)
    if (!std::isfinite(raw[i])) a[i] = run.nan_policy == "zero" ? 0 : lowest;
  if (run.offset_spec == "none" && !finite.empty() &&
      *std::min_element(finite.begin(), finite.end()) >= 0) {
    std::fprintf(stderr,
                 "maxsub: note: no negative pixel, so the whole image is the maximum; "
                 "subtract the sky with --offset median\n");
  }
  run.header = img.header;
  if (!png_path.empty() && !png_supported())
    throw Error("--png: this build has no PNG writer (install libstb-dev and rebuild)");
  try {
    run.wcs = Wcs::from_header(img.header);
  } catch (const Error& e) {
    std::fprintf(stderr, "maxsub: note: ignoring the WCS (%s)\n", e.what());
  }

  ms::Options opt = ms::parse_method(run.method);
  if (!algorithm.empty()) opt.algorithm = ms::parse_algorithm(algorithm);
  if (!device.empty()) opt.device = parse_device(device);
  opt.precision = run.precision == "float" ? ms::Precision::Float : ms::Precision::Double;
  run.method = ms::method_name(opt);  // the former spelling, auto resolved: recorded in outputs
  if (opt.algorithm == ms::Algorithm::Brute &&
      double(run.width) * run.width * run.height * run.height > 1e10)
    throw Error("--method brute visits every rectangle (O(w^2 h^2)): use it on tiny images only");
  std::vector<Region> regions;
  if (run.rect) {
    std::vector<ms::Rect> rs;
    if (run.overlap)
      rs = ms::k_max_overlapping(a, run.width, run.height, run.k, opt);
    else if (run.k > 1)
      rs = ms::k_max_disjoint(a, run.width, run.height, run.k, opt);
    else
      rs = {ms::max_subarray(a, run.width, run.height, opt)};
    for (const ms::Rect& r : rs) regions.push_back(from_rect(r, raw, run.width));
  } else {
    // The convex DP runs on the GPU when the row-pair search would (device cuda, or auto with
    // a GPU), else on one core.
    const Device convex_device = opt.algorithm == ms::Algorithm::RowPairs && run.method == "cuda"
                                     ? Device::Cuda
                                     : Device::Cpu;
    run.method = convex_device == Device::Cuda ? "convex-dp-cuda" : "convex-dp";
    run.precision = "double";
    for (const ms::ConvexRegion& c :
         ms::k_max_convex_disjoint(a, run.width, run.height, run.k, convex_device))
      regions.push_back(from_columns(c.left, c.top, c.bottom, c.sum, raw, run.width));
  }
  print_table(run, regions);
  if (!out.empty()) {
    if (ends_with_fits(out))
      write_fits_results(out, run, regions);
    else
      write_json(out, run, regions);
  }
  if (!mask_path.empty()) write_mask(mask_path, run, regions);
  if (!png_path.empty()) {
    std::vector<OverlayRegion> outlines;
    for (const Region& g : regions) outlines.push_back({g.left, g.col_top, g.col_bottom});
    write_png_overlay(png_path, img.pixels.view(), outlines);
  }
  return 0;
}

}  // namespace celeris::cli
