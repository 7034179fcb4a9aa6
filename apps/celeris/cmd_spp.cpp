// `celeris spp`: spatial preprocessing of a hyperspectral cube.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/fits.hpp"
#include "celeris/hyperspectral.hpp"
#include "celeris/table.hpp"
#include "cli_parse.hpp"
#include "commands.hpp"

namespace celeris::cli {

namespace hs = celeris::hyperspectral;

namespace {

// x.hdr -> x_spp.hdr, x.img -> x_spp.img, x.fits -> x_spp.fits, x -> x_spp.
std::string default_output(const std::string& input) {
  std::string in = input;
  const size_t bracket = in.find('[');
  if (bracket != std::string::npos) in = in.substr(0, bracket);
  std::filesystem::path p(in);
  std::string ext = p.extension().string();
  std::string stem = p.stem().string();
  if (ext == ".gz") {
    ext = std::filesystem::path(stem).extension().string();
    stem = std::filesystem::path(stem).stem().string();
  }
  return (p.parent_path() / (stem + "_spp" + ext)).string();
}

const char* format_name(hs::CubeFormat f) {
  switch (f) {
    case hs::CubeFormat::Mat:
      return "MATLAB";
    case hs::CubeFormat::Fits:
      return "FITS";
    default:
      return "ENVI";
  }
}

}  // namespace

int run_spp(const Args& args) {
  CLI::App app{
      "celeris spp: spatial preprocessing (SPP) of a hyperspectral cube: each pixel is "
      "moved toward the scene centroid by a factor set by the spectral angles to its "
      "neighbours (Zortea & Plaza 2009; Delgado et al.)",
      "celeris spp"};
  std::string input, output, device = "auto", bands, variable, alpha_path, kernel = "strip";
  int window = 5;
  app.add_option("cube", input, "input cube: ENVI (.hdr or data file), MATLAB .mat, FITS")
      ->required();
  app.add_option("-w,--window", window, "window size, odd and >= 3")->capture_default_str();
  app.add_option("-o,--output", output,
                 "output cube (default <input>_spp; format from its extension: .mat, .fits, "
                 "else ENVI; without -o the input's format)");
  app.add_option("--device", device, "cpu, cuda (gpu) or auto")
      ->check(CLI::IsMember({"cpu", "cuda", "gpu", "auto"}))
      ->capture_default_str();
  app.add_option("--bands", bands, "1-based bands to keep, e.g. 1-100,120-150 (default all)");
  app.add_option("--var", variable, "MATLAB variable holding the cube (default: automatic)");
  app.add_option("--alpha", alpha_path, "also write the similarity factor alpha as a FITS image");
  app.add_option("--kernel", kernel,
                 "CUDA alpha kernel: strip (register-blocked, fastest; windows above 15 use "
                 "tile), tile (paper: several pixels per block), block (paper: one pixel per "
                 "block)")
      ->check(CLI::IsMember(hs::spp_cuda_kernels()))
      ->capture_default_str();
  app.footer(
      "Every stage runs on the GPU with --device cuda (centroid, norms, alpha, eq. 5); the "
      "reported GPU time excludes reading, writing and the host<->device copies, shown "
      "apart. Measured on one H100, 350x350x188, windows 3-11 (docs/spp.md): 0.25-0.74 ms on "
      "the GPU (strip), about 22 ms with the copies; 16 CPU threads 29-67 ms.");
  if (const auto code = parse_args(app, args)) return *code;
  hs::check_window(window);
  const hs::CubeFormat out_format =
      output.empty() ? hs::format_from_path(input) : hs::format_from_path(output);
  if (output.empty()) output = default_output(input);

  for (const std::string* o : {&output, &alpha_path})
    if (!o->empty()) refuse_output_over_input(*o, input, "output");
  hs::ReadOptions ro;
  ro.bands = bands;
  ro.mat_variable = variable;
  hs::Cube cube = hs::read_cube(input, ro);
  const int lines = cube.lines, samples = cube.samples, nbands = cube.bands;
  hs::SppOptions so;
  so.window = window;
  so.keep_alpha = !alpha_path.empty();
  // Auto resolved here, so that the report below can say which device ran; --kernel is the
  // CUDA kernel when the GPU runs it (the CPU has one).
  so.device = parse_device(device);
  if (so.device == Device::Cpu && app.count("--kernel"))
    throw Error("--kernel picks the CUDA alpha kernel; --device cpu has one implementation");
  if (so.device == Device::Auto)
    so.device = (hs::spp_cuda_compiled() && cuda_device_count() > 0) ? Device::Cuda : Device::Cpu;
  if (so.device == Device::Cuda) so.kernel = kernel;
  const Device ran_on = so.device;
  const bool keep_alpha = so.keep_alpha;
  const auto t0 = std::chrono::steady_clock::now();
  const hs::SppResult res = hs::spp(std::move(cube), so);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  hs::write_cube(output, res.cube, out_format);
  if (keep_alpha) {
    ImageView<const float> view{res.alpha.data(), samples, lines};
    write_fits_image(alpha_path, view, {"COMMENT   SPP similarity factor alpha (radians)"});
  }
  std::printf("spp: %d lines x %d samples x %d bands, window %d, %s: %.3f s -> %s (%s)\n", lines,
              samples, nbands, window, ran_on == Device::Cuda ? ("cuda " + kernel).c_str() : "cpu",
              secs, output.c_str(), format_name(out_format));
  if (ran_on == Device::Cuda)
    std::printf("spp: on the GPU %.3f ms (alpha %.3f ms), host<->device copies %.3f ms\n",
                res.device_seconds * 1e3, res.alpha_seconds * 1e3, res.transfer_seconds * 1e3);
  return 0;
}

}  // namespace celeris::cli
