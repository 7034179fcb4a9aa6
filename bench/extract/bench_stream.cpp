// Times a stream of frames (extract_frames, src/extract/run_frames.cpp) with its shape named:
// reader threads, frames read ahead, frames in the back stages. For each shape, the best of
// --repeat runs: frames/s and each thread's steps in ms per frame, as `celeris extract
// -VERBOSE_TYPE FULL` lists them ("read" is summed over the readers: divide by the readers for
// one reader's share of the wall time). With --out the catalogs (ASCII_HEAD) are written there
// as {stem}.cat; without, no catalog (CATALOG_TYPE NONE).
//   bench_stream FRAME.fits... [--device cpu|cuda] [--shapes R/K/W,...] [--repeat N] [--out DIR]
// A shape R/K/W: R readers, K frames read ahead, W back workers; 0 picks as extract_files does.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/extract_run.hpp"
#include "celeris/extract_settings.hpp"
#include "extract/run_frames.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

StreamShape parse_shape(const std::string& s) {
  StreamShape shape;
  unsigned long r = 0, k = 0, w = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%lu/%lu/%lu%c", &r, &k, &w, &tail) != 3)
    throw Error("--shapes: '" + s + "' is not R/K/W (readers/read-ahead/back workers)");
  shape.readers = r;
  shape.read_ahead = k;
  shape.back_workers = w;
  return shape;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> frames;
    std::string device = "cpu", out, shapes = "0/0/0";
    int repeat = 1;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw Error(a + " needs a value");
        return argv[++i];
      };
      if (a == "--device")
        device = value();
      else if (a == "--shapes")
        shapes = value();
      else if (a == "--repeat")
        repeat = std::max(1, std::atoi(value().c_str()));
      else if (a == "--out")
        out = value();
      else if (!a.empty() && a[0] == '-')
        throw Error("unknown option " + a);
      else
        frames.push_back(a);
    }
    if (frames.empty()) throw Error("no frame given");
    if (device != "cpu" && device != "cuda") throw Error("--device: cpu or cuda, not " + device);
    Overrides o = {{"CATALOG_TYPE", out.empty() ? "NONE" : "ASCII_HEAD"},
                   {"CATALOG_NAME", out.empty() ? "none.cat" : out + "/{stem}.cat"},
                   {"VERBOSE_TYPE", "QUIET"}};
    Settings settings = load_settings("", o);
    settings.config.device = device == "cuda" ? Backend::Cuda : Backend::Cpu;
    std::printf("bench_stream: %zu frames, --device %s, best of %d\n", frames.size(),
                device.c_str(), repeat);
    std::stringstream list(shapes);
    for (std::string item; std::getline(list, item, ',');) {
      const StreamShape shape = parse_shape(item);
      FramesSummary best;
      for (int r = 0; r < repeat; ++r) {
        const FramesSummary s = extract_frames(frames, settings, {}, {}, shape);
        if (s.failed) throw Error(std::to_string(s.failed) + " frames failed");
        if (r == 0 || s.seconds < best.seconds) best = s;
      }
      const double n = static_cast<double>(best.frames);
      std::printf(
          "readers %zu, read-ahead %zu, back workers %zu (0: picked): %.2f frames/s "
          "(%.3f s, %zu objects)\n",
          shape.readers, shape.read_ahead, shape.back_workers, n / best.seconds, best.seconds,
          best.objects);
      for (const auto& [name, sec] : best.step_seconds)
        std::printf("    %-40s %8.1f ms/frame\n", name.c_str(), 1e3 * sec / n);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_stream: %s\n", e.what());
    return 1;
  }
}
