// One extraction run as the CLI (and the Python module) performs it: read a FITS image, take
// GAIN and SATURATE from its header unless set, extract, build the requested catalog columns and
// write the catalog in the requested format.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/extract_settings.hpp"
#include "celeris/table.hpp"

namespace celeris::extract {

struct FileRunResult {
  Table catalog;
  RunInfo info;
  int width = 0, height = 0, hdu = 0;
  double gain = 0, satur_level = 0;
  bool has_wcs = false;
  int extensions = 1;                 // image extensions extracted (a multi-extension file: all)
  double seconds = 0;                 // wall time of the whole run, reading and writing included
  std::vector<std::string> warnings;  // every warning of the run (also given to the sink)
};

// Receives each warning as it arises (the CLI prints it on stderr at once).
using WarningSink = std::function<void(const std::string&)>;

// Runs the extraction of `image_path` with `settings`; writes settings.catalog_name unless the
// catalog type is NONE. The catalog file appears only when complete. Warnings (unknown catalog
// parameters) go to `warn` when given, and into FileRunResult::warnings. A file of several image
// extensions gives one catalog of them all (with their weight and flag maps and check images, as
// SExtractor). Inputs SExtractor would use and celeris cannot (an external header) are refused
// first.
FileRunResult extract_file(const std::string& image_path, const Settings& settings,
                           const WarningSink& warn = {});

// ---- A stream of frames ----------------------------------------------------------------------

// What became of one frame of extract_files.
struct FrameReport {
  size_t index = 0, total = 0;  // index: 0-based, in the order given
  std::string path, catalog_name;
  std::string error;     // empty when the frame succeeded
  FileRunResult result;  // when it succeeded
};
using FrameSink = std::function<void(const FrameReport&)>;

struct FramesSummary {
  size_t frames = 0, failed = 0, objects = 0;
  double seconds = 0;  // wall time of the whole stream
  // Where the stream's threads spent their time, summed over frames (seconds): each step's
  // work ("read", summed over the reader threads; "page-locked buffers (allocated once)",
  // "front stages", "back stages", "write", "free") and each wait ("reader waits for a buffer",
  // "front waits for the next frame read", "front waits for a back worker", "writer waits for
  // the next frame"); then every stage of the frames' own timing (RunInfo::stage_seconds, by
  // name in first-seen order). A step whose sum over its threads is near `seconds` is the one
  // that bounds the frame rate.
  std::vector<std::pair<std::string, double>> step_seconds, stage_seconds;
};

// Extracts every image of `paths` with `settings`, one catalog (and set of check images) per
// frame, named by frame_output_name from CATALOG_NAME and CHECKIMAGE_NAME (with several frames
// each must hold {stem} or {index}; names must not collide). Reading, the front stages (the GPU's
// with device cuda) and the back stages with the writing of successive frames overlap; `done`
// receives each frame's report in the order given, on the calling thread. A frame that fails
// (unreadable, bad header, ...) is reported with its error and the stream goes on. Throws for
// what fails the whole run (names, settings, the parameter file). `back_workers`: frames in the
// back stages at once (0: one per 4 host cores, 1 to 4; with device cuda one per 2 host cores,
// 1 to 8).
FramesSummary extract_files(const std::vector<std::string>& paths, const Settings& settings,
                            const WarningSink& warn, const FrameSink& done,
                            size_t back_workers = 0);

// `pattern` with {stem} replaced by the image's file name less its directory, CFITSIO selector
// and .fits/.fit/.fts/.fz/.gz suffixes, and {index} by index + 1, zero-padded to the width of
// `total`.
std::string frame_output_name(const std::string& pattern, const std::string& image_path,
                              size_t index, size_t total);

// Command-line image arguments with each "@FILE" replaced by the paths FILE lists (one per line;
// blank lines and lines starting with # skipped).
std::vector<std::string> expand_image_list(const std::vector<std::string>& args);

// Writes a catalog table in a SExtractor catalog format. `rows`: for the FITS types, the
// table's rows encoded ahead (encode_fits_rows), else encoded here.
void write_catalog(const std::string& path, CatalogType type, const Table& table,
                   const class celeris::FitsHeader& image_header,
                   const std::vector<std::string>& extra_cards, const FitsRows* rows = nullptr);

}  // namespace celeris::extract
