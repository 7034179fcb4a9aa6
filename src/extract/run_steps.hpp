// One extraction run in its steps, so that a stream of frames (run_frames.cpp) can overlap them:
// what is decided once for the whole run (RunPlan), each frame's reading (read_frame), and its
// catalog and outputs (finish_frame). extract_file (run.cpp) is the three in sequence.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/extract_run.hpp"
#include "celeris/fits.hpp"
#include "celeris/wcs.hpp"
#include "core/fits_pixels.hpp"
#include "extract/settings/parameters.hpp"
#include "extract/sextractor/world_frame.hpp"
#include "extract/stages/assoc_list.hpp"
#include "extract/stages/dgeo_map.hpp"
#include "extract/stages/measure_class_star.hpp"

namespace celeris::extract {

// Decided once from the settings: the catalog's parameters, what they ask the measurement for,
// CLASS_STAR's network.
struct RunPlan {
  std::vector<RequestedParam> params;
  std::vector<std::string> warnings;
  MeasureRequest request;  // without the flag maps, which are per frame
  bool want_wcs = false;
  size_t n_flag_maps = 0;
  std::optional<StarNetwork> star_network;
  // ASSOC (stages/assoc.hpp): the list, read once, when VECTOR_ASSOC / NUMBER_ASSOC is asked
  // for; VECTOR_ASSOC's size (0 with NUMBER_ASSOC alone).
  std::optional<AssocList> assoc;
  int assoc_size = 0;
};
RunPlan plan_run(const Settings& settings);

// One frame read and checked, with what its header sets. `catalog_name` and `check_names` are
// the frame's own output names.
struct Frame {
  std::string path, catalog_name;
  std::vector<std::string> check_names;
  FitsImage image;  // image.pixels empty when the pixels were read into memory the caller gave
  // The image's pixels, wherever they were read: image.pixels, or memory given to read_frame (a
  // stream's page-locked buffer, held by the stream while the frame needs it). The shape stays
  // when the memory goes (the catalog's summary cards give it).
  ImageView<float> pixels;
  // How `pixels` are stored: Converted, or as the file stores them (read_frame's `leave_stored`)
  // until the front end finishes them (pipeline.hpp extract_front).
  StoredPixels stored;
  Config config;
  std::optional<Wcs> wcs;
  std::optional<WorldFrame> world;  // SExtractor's view of it (linear without a WCS)
  std::vector<Image<uint32_t>> flag_maps;
  // Dual-image mode: the detection image (`image` is then the measurement image). Weight maps
  // (MAP_* types): the measurement (or only) map and a separate detection map.
  std::optional<FitsImage> detect_image, weight_map, detect_weight_map;
  DgeoImages dgeo_map;  // DGEO_TYPE PIXEL: DGEO_IMAGE's planes (stages/dgeo_map.hpp)
  MeasureRequest request;
  std::chrono::steady_clock::time_point started;
};
// `memory`, when given, says where the image's pixels go (read_fits_image_into; not in
// dual-image mode, whose two images are read as read_fits_image reads them). `leave_stored`:
// BITPIX -32, 32 and 16 pixels are left as the file stores them (frame.stored says so), for the
// GPU front end to finish (a stream with --device cuda: no byte swap on the reader's thread).
Frame read_frame(const std::string& path, const std::string& catalog_name,
                 const std::vector<std::string>& check_names, const Settings& settings,
                 const RunPlan& plan, const PixelMemory& memory = {}, bool leave_stored = false);

// A frame's outputs made but not written: CLASS_STAR, the catalog's columns, the summary
// cards, the check images (frame_outputs; any thread), then written (write_frame_outputs: all or
// none, from one thread at a time, since OutputRun tracks one run per thread of writing).
// finish_frame is the two in sequence.
struct FrameOutputs {
  FileRunResult result;
  std::vector<std::string> cards;
  std::vector<Image<float>> check_images;
  // The catalog made ahead of the writing (make_catalog_ahead): an ASCII catalog's file, whole,
  // or a FITS catalog's rows encoded; else write_frame_outputs makes it as it writes it.
  std::optional<std::string> catalog_text;
  std::optional<FitsRows> catalog_rows;
};
// A stream's back workers make each frame's catalog side by side (the ASCII text, the FITS
// rows), and its writer, which writes the frames in order, only writes them (on the H200, 256
// crowded 4096^2 frames, the writer's 12.2 ms a frame formatting ASCII had bounded the stream).
// Catalogs over kHeldCatalogBytes (about) are left to the writer.
constexpr size_t kHeldCatalogBytes = size_t{256} << 20;
void make_catalog_ahead(FrameOutputs& outputs, const Settings& settings);
FrameOutputs frame_outputs(Frame& frame, Result&& result, const Settings& settings,
                           const RunPlan& plan);
void write_frame_outputs(const Frame& frame, const FrameOutputs& outputs, const Settings& settings);
FileRunResult finish_frame(Frame& frame, Result&& result, const Settings& settings,
                           const RunPlan& plan);

// A multi-extension file (mef_inputs.hpp multi_extension_hdus gives `hdus`) extracted whole, as
// extract_file does and SExtractor would: every image extension in turn, one catalog (and one
// file per check image) holding them all, written under settings' names.
FileRunResult extract_extensions(const std::string& path, const std::vector<int>& hdus,
                                 const Settings& settings, const RunPlan& plan);

}  // namespace celeris::extract
