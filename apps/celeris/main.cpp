// celeris: the command-line front end. `celeris <command> ...`; `celeris --help` lists them.
#include <cstdio>
#include <exception>
#include <string>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/malloc_policy.hpp"
#include "commands.hpp"

namespace celeris::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"extract", "SExtractor-compatible source extraction: FITS image -> catalog", run_extract},
      {"simulate", "synthetic images, catalogs and cubes with known truth", run_simulate},
#ifdef CELERIS_CMD_XMATCH
      {"xmatch", "HEALPix cross-match of two catalogs (or a self-match)", run_xmatch},
#endif
#ifdef CELERIS_CMD_MAXSUB
      {"maxsub", "maximum subarray / K-maximum / maximum convex sum of an image", run_maxsub},
#endif
#ifdef CELERIS_CMD_SPP
      {"spp", "hyperspectral spatial preprocessing of a cube", run_spp},
#endif
  };
  return list;
}

}  // namespace celeris::cli

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "celeris %s - astronomical imaging on CPU cores and GPUs\n\n"
               "usage: celeris <command> [options]   (celeris <command> --help for details)\n\n"
               "commands:\n",
               CELERIS_VERSION);
  for (const auto& c : celeris::cli::commands())
    std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
  std::fprintf(out, "  %-10s %s\n", "version", "print the version and the CUDA devices seen");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") {
    usage(stdout);
    return 0;
  }
  if (name == "version" || name == "--version") {
    std::printf("celeris %s\n%s\n", CELERIS_VERSION, celeris::describe_devices().c_str());
    return 0;
  }
  // Freed memory kept for the next frame (malloc_policy.hpp): streams of frames and repeated
  // runs reuse it instead of faulting it in again.
  celeris::keep_freed_heap_memory();
  celeris::cli::Args args(argv + 2, argv + argc);
  for (const auto& c : celeris::cli::commands()) {
    if (name != c.name) continue;
    try {
      return c.run(args);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "celeris %s: error: %s\n", c.name, e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "celeris: unknown command '%s' (celeris --help lists them)\n", name.c_str());
  return 2;
}
