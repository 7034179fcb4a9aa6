// `celeris simulate image|catalog|cube`: synthetic data with known truth, from the one simulation
// module (celeris/simulate.hpp, src/sim/).
#include <CLI/CLI.hpp>

#include <cstdio>

#include "celeris/error.hpp"
#include "celeris/fits.hpp"
#include "celeris/hyperspectral.hpp"
#include "celeris/simulate.hpp"
#include "celeris/table.hpp"
#include "celeris/xmatch.hpp"
#include "cli_parse.hpp"
#include "commands.hpp"

namespace celeris::cli {

namespace hs = celeris::hyperspectral;

namespace {

int simulate_image_cmd(const Args& args) {
  CLI::App app{
      "celeris simulate image: a FITS sky image with Moffat stars, Sersic galaxies, a "
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
  app.add_option("--density", density,
                 "sparse (1 star / 8000 px), crowded (~150k sources on 4096^2, ~42k in the "
                 "catalog: blends) or dense (750k sources of FWHM 1.2 on 4096^2, ~150k in the "
                 "catalog: the GPU-SExtractor paper's workload)")
      ->check(CLI::IsMember({"sparse", "crowded", "dense"}))
      ->capture_default_str();
  app.add_option("--stars", p.n_stars, "number of stars (overrides --density)");
  app.add_option("--galaxies", p.n_galaxies, "number of galaxies (default: stars / 2)");
  app.add_option("--saturated", p.n_saturated, "number of saturated stars")->capture_default_str();
  app.add_option("--saturation", p.saturation, "saturation level, ADU")->capture_default_str();
  app.add_option("--nan-patches", p.n_nan_patches, "number of NaN rectangles")
      ->capture_default_str();
  app.add_option("--background", p.background, "background level, ADU")->capture_default_str();
  app.add_option("--gain", p.gain, "gain e-/ADU (0: no Poisson noise)")->capture_default_str();
  app.add_option("--read-noise", p.read_noise, "read noise, ADU")->capture_default_str();
  CLI::Option* fwhm =
      app.add_option("--fwhm", p.fwhm, "stellar FWHM, pixels (dense: 1.2 unless given)")
          ->capture_default_str();
  app.add_flag("!--no-wcs", p.wcs, "do not write a WCS");
  if (const auto code = parse_args(app, args)) return *code;
  if (size > 0) p.width = p.height = size;
  // --stars and --galaxies, where given, override the density's counts; --fwhm its FWHM.
  const double given_fwhm = p.fwhm;
  if (density == "crowded") sim::apply_density(p, sim::Density::Crowded);
  if (density == "dense") sim::apply_density(p, sim::Density::Dense);
  if (fwhm->count() > 0) p.fwhm = given_fwhm;
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

int simulate_catalog_cmd(const Args& args) {
  CLI::App app{
      "celeris simulate catalog: random sky positions in a declination band, with "
      "repeat detections (clusters within a few arcsec) for cross-match tests",
      "celeris simulate catalog"};
  sim::CatalogParams p;
  std::string out = "catalog.fits";
  app.add_option("-o,--output", out, "output catalog (.csv: CSV, else FITS)")
      ->capture_default_str();
  std::string table3, match_radius = "0.0056deg";
  double matches = 0;
  auto* o_rows =
      app.add_option("--rows", p.rows, "number of rows (detections)")->capture_default_str();
  app.add_option("--seed", p.seed, "random seed (same seed, same catalog)")->capture_default_str();
  auto* o_dmin = app.add_option("--dec-min", p.dec_min, "southern edge of the band, deg")
                     ->capture_default_str();
  auto* o_dmax = app.add_option("--dec-max", p.dec_max, "northern edge of the band, deg")
                     ->capture_default_str();
  auto* o_rep = app.add_option("--repeats", p.repeats, "mean detections per source (>= 1)")
                    ->capture_default_str();
  app.add_option("--scatter", p.scatter_arcsec, "position scatter per axis, arcsec")
      ->capture_default_str();
  auto* o_match = app.add_option("--matches-per-row", matches,
                                 "set --repeats so that a self-match at --match-radius gives this "
                                 "many matches per row on average (the row itself included)")
                      ->excludes(o_rep);
  app.add_option("--match-radius", match_radius, "radius for --matches-per-row")
      ->capture_default_str();
  app.add_option("--table3", table3,
                 "the paper's Table III set: d1, d5 or d25 (rows, declination band and "
                 "4.65 / 5.45 / 15.8 matches per row at 0.0056 deg)")
      ->excludes(o_rows, o_dmin, o_dmax, o_rep, o_match);
  if (const auto code = parse_args(app, args)) return *code;
  if (!table3.empty()) {
    const uint64_t seed = p.seed;
    const double scatter = p.scatter_arcsec;
    p = sim::table3_params(table3);
    p.seed = seed;
    p.scatter_arcsec = scatter;
  } else if (matches > 0) {
    p.repeats = sim::repeats_for_matches(p.rows, p.dec_min, p.dec_max,
                                         xmatch::parse_radius_arcsec(match_radius), matches);
  }
  const Table t = sim::simulate_catalog(p);
  xmatch::write_catalog(out, t);
  std::printf("simulated catalog: %zu rows, dec [%g, %g], %.4g detections per source -> %s\n",
              t.rows, p.dec_min, p.dec_max, p.repeats, out.c_str());
  return 0;
}

int simulate_cube_cmd(const Args& args) {
  CLI::App app{
      "celeris simulate cube: a hyperspectral cube by linear mixing of smooth endmember "
      "spectra with spatially smooth abundances (sum to one), plus Gaussian noise",
      "celeris simulate cube"};
  sim::CubeSimParams p;
  std::string out = "sim_cube.hdr", truth, interleave = "bsq";
  int data_type = 4;
  app.add_option("-o,--output", out, "output cube (ENVI unless .mat or .fits)")
      ->capture_default_str();
  app.add_option("--lines", p.lines, "lines (rows)")->capture_default_str();
  app.add_option("--samples", p.samples, "samples (columns)")->capture_default_str();
  app.add_option("--bands", p.bands, "spectral bands")->capture_default_str();
  app.add_option("--endmembers", p.endmembers, "number of endmembers")->capture_default_str();
  app.add_option("--seed", p.seed, "random seed (same seed, same cube)")->capture_default_str();
  app.add_option("--noise", p.noise, "Gaussian noise sigma, reflectance")->capture_default_str();
  app.add_option("--smoothness", p.smoothness, "abundance correlation length, pixels")
      ->capture_default_str();
  app.add_option("--truth", truth, "also write the abundances (endmembers x lines x samples)");
  app.add_option("--interleave", interleave, "ENVI interleave")
      ->check(CLI::IsMember({"bsq", "bil", "bip"}))
      ->capture_default_str();
  app.add_option("--data-type", data_type, "ENVI data type (4 float32, 5 float64, ...)")
      ->capture_default_str();
  if (const auto code = parse_args(app, args)) return *code;
  const sim::SimulatedCube s = sim::simulate_cube(p);
  const hs::CubeFormat fmt = hs::format_from_path(out);
  if (fmt == hs::CubeFormat::Envi) {
    hs::EnviWriteOptions opt;
    opt.interleave = interleave;
    opt.data_type = data_type;
    hs::write_envi(out, s.cube, opt);
  } else {
    hs::write_cube(out, s.cube, fmt);
  }
  if (!truth.empty()) hs::write_cube(truth, s.abundances, hs::format_from_path(truth));
  std::printf("simulated cube %d lines x %d samples x %d bands, %d endmembers, seed %llu -> %s\n",
              p.lines, p.samples, p.bands, p.endmembers, static_cast<unsigned long long>(p.seed),
              out.c_str());
  return 0;
}

}  // namespace

int run_simulate(const Args& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::printf(
        "usage: celeris simulate <kind> [options]\n\nkinds:\n"
        "  image    sky image with stars and galaxies, plus truth catalog\n"
        "  catalog  sky catalog with repeat detections, for cross-match tests and benchmarks\n"
        "  cube     linear-mixing hyperspectral cube, for spp tests and benchmarks\n"
        "(celeris simulate <kind> --help for the options of each)\n");
    return args.empty() ? 2 : 0;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "image") return simulate_image_cmd(rest);
  if (args[0] == "catalog") return simulate_catalog_cmd(rest);
  if (args[0] == "cube") return simulate_cube_cmd(rest);
  throw Error("unknown simulation kind '" + args[0] + "' (celeris simulate --help)");
}

}  // namespace celeris::cli
