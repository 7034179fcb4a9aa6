// `celeris simulate image`: synthetic sky images with a truth catalog.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "celeris/error.hpp"
#include "celeris/fits.hpp"
#include "celeris/simulate.hpp"
#include "celeris/table.hpp"
#include "cli_parse.hpp"
#include "commands.hpp"

namespace celeris::cli {

namespace {

int simulate_image_cmd(const Args& args) {
  CLI::App app{"celeris simulate image: a FITS sky image with Moffat stars, Sersic galaxies, a "
               "smooth background, Poisson and read noise, and its truth catalog",
               "celeris simulate image"};
  sim::ImageParams p;
  std::string out = "sim.fits", truth;
  std::string density = "sparse";
  int size = 0;
  app.add_option("-o,--output", out, "output FITS image")->capture_default_str();
  app.add_option("--truth", truth, "truth catalog (FITS table; default: <output>.truth.fits)");
  app.add_option("--size", size, "square image side (overrides --width/--height)");
  app.add_option("--width", p.width, "image width")->capture_default_str();
  app.add_option("--height", p.height, "image height")->capture_default_str();
  app.add_option("--seed", p.seed, "random seed (same seed, same image)")->capture_default_str();
  app.add_option("--density", density, "sparse (1 star / 8000 px) or crowded (~150k sources on 4096^2)")
      ->check(CLI::IsMember({"sparse", "crowded"}))->capture_default_str();
  app.add_option("--stars", p.n_stars, "number of stars (overrides --density)");
  app.add_option("--galaxies", p.n_galaxies, "number of galaxies (default: stars / 2)");
  app.add_option("--saturated", p.n_saturated, "number of saturated stars")->capture_default_str();
  app.add_option("--saturation", p.saturation, "saturation level, ADU")->capture_default_str();
  app.add_option("--nan-patches", p.n_nan_patches, "number of NaN rectangles")->capture_default_str();
  app.add_option("--background", p.background, "background level, ADU")->capture_default_str();
  app.add_option("--gain", p.gain, "gain e-/ADU (0: no Poisson noise)")->capture_default_str();
  app.add_option("--read-noise", p.read_noise, "read noise, ADU")->capture_default_str();
  app.add_option("--fwhm", p.fwhm, "stellar FWHM, pixels")->capture_default_str();
  app.add_flag("!--no-wcs", p.wcs, "do not write a WCS");
  if (const auto code = parse_args(app, args)) return *code;
  if (size > 0) p.width = p.height = size;
  if (p.n_stars < 0 && density == "crowded") {
    // ~150k sources on 4096^2, scaled with the area.
    p.n_stars = static_cast<int>(100000.0 * p.width * p.height / (4096.0 * 4096.0));
    if (p.n_galaxies < 0) p.n_galaxies = p.n_stars / 2;
  }
  if (truth.empty()) {
    const size_t dot = out.rfind(".fits");
    truth = (dot == std::string::npos ? out : out.substr(0, dot)) + ".truth.fits";
  }
  const sim::SimulatedImage s = sim::simulate_image(p);
  write_fits_image(out, s.pixels.view(), s.header_cards);
  FitsTableOptions opt;
  opt.extname = "TRUTH";
  write_fits_table(truth, s.truth, opt);
  std::printf("simulated %d x %d image: %zu sources -> %s (truth: %s)\n", p.width, p.height,
              s.truth.rows, out.c_str(), truth.c_str());
  return 0;
}

}  // namespace

int run_simulate(const Args& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::printf(
        "usage: celeris simulate <kind> [options]\n\nkinds:\n"
        "  image    sky image with stars and galaxies, plus truth catalog\n"
#ifdef CELERIS_CMD_XMATCH
        "  catalog  sky catalog with repeat detections, for cross-match tests and benchmarks\n"
#endif
#ifdef CELERIS_CMD_SPP
        "  cube     linear-mixing hyperspectral cube, for spp tests and benchmarks\n"
#endif
        "(celeris simulate <kind> --help for the options of each)\n");
    return args.empty() ? 2 : 0;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "image") return simulate_image_cmd(rest);
#ifdef CELERIS_CMD_XMATCH
  if (args[0] == "catalog") return run_simulate_catalog(rest);
#endif
#ifdef CELERIS_CMD_SPP
  if (args[0] == "cube") return run_simulate_cube(rest);
#endif
  throw Error("unknown simulation kind '" + args[0] + "' (celeris simulate --help)");
}

}  // namespace celeris::cli
