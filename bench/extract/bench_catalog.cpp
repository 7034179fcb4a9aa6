// Times the per-frame work after the extraction stages: make_catalog (the columns, the WCS
// conversions) and write_catalog in ASCII_HEAD, FITS_1.0 and FITS_LDAC, on the objects of one
// frame (extracted once on the CPU, measuring what the parameter list asks for, as `celeris
// extract` does: extract/run_steps.hpp plan_run): the median of --repeat runs each. --only NAME
// times that one alone (make_catalog, ASCII_HEAD, FITS_1.0, FITS_LDAC), e.g. under a profiler.
//   bench_catalog IMAGE.fits PARAMS.param [--repeat N] [--threads N] [--out DIR] [--only NAME]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/extract_run.hpp"
#include "celeris/fits.hpp"
#include "celeris/malloc_policy.hpp"
#include "celeris/wcs.hpp"
#include "extract/run_steps.hpp"
#include "extract/settings/parameters.hpp"
#include "extract/sextractor/world_frame.hpp"

using namespace celeris;

namespace {

template <typename F>
double median_ms(int repeat, F&& f) {
  std::vector<double> t;
  for (int k = 0; k <= repeat; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    if (k > 0)  // the first run warms up
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return 1e3 * t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
  keep_freed_heap_memory();  // as the command-line tool (malloc_policy.hpp)
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s IMAGE.fits PARAMS.param [--repeat N] [--threads N] [--out DIR]\n",
                 argv[0]);
    return 2;
  }
  int repeat = 5, threads = 0;
  std::string out = std::filesystem::temp_directory_path().string(), only;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--repeat")
      repeat = std::stoi(argv[i + 1]);
    else if (a == "--threads")
      threads = std::stoi(argv[i + 1]);
    else if (a == "--out")
      out = argv[i + 1];
    else if (a == "--only")
      only = argv[i + 1];
    else
      throw Error("unknown option " + a);
  }
  const FitsImage img = read_fits_image(argv[1]);
  const auto wcs = Wcs::from_header(img.header);
  const std::optional<extract::WorldFrame> world =
      extract::WorldFrame::from_header(img.header, wcs);
  extract::Settings settings;
  settings.parameters_name = argv[2];
  const extract::RunPlan plan = extract::plan_run(settings);
  const auto& params = plan.params;
  extract::Config config;
  config.threads = threads;
  extract::MeasureRequest req = plan.request;
  // Every aperture and flux fraction measured, as make_catalog indexes them.
  req.n_apertures = req.n_fluxfrac = -1;
  const extract::Result r = extract::extract(img.pixels.view(), config, req);
  std::printf("%s: %zu objects, %zu columns, WCS %s, threads %d (0: all), %d repeats\n", argv[1],
              r.objects.size(), params.size(), wcs ? "yes" : "no", threads, repeat);
  Table t = extract::make_catalog(r.objects, params, config, world);
  if (only.empty() || only == "make_catalog")
    std::printf("  %-12s %9.3f ms\n", "make_catalog", median_ms(repeat, [&] {
                  t = extract::make_catalog(r.objects, params, config, world);
                }));
  for (const auto& [name, type] : {std::pair{"ASCII_HEAD", extract::CatalogType::AsciiHead},
                                   std::pair{"FITS_1.0", extract::CatalogType::Fits10},
                                   std::pair{"FITS_LDAC", extract::CatalogType::FitsLdac}}) {
    if (!only.empty() && only != name) continue;
    const std::string path = out + "/bench_catalog_" + name + ".cat";
    std::printf("  %-12s %9.3f ms\n", name,
                median_ms(repeat, [&] { extract::write_catalog(path, type, t, img.header, {}); }));
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_catalog: %s\n", e.what());
  return 1;
}
