// celeris extract: SExtractor-compatible source extraction.
//
// Conventions (as SExtractor 2.25):
//  - Pixel coordinates in the library are 0-based, x along FITS NAXIS1. Catalog columns
//    (X_IMAGE, XMIN_IMAGE, ...) are FITS 1-based: the centre of the first pixel is 1.0.
//  - Pixel values are ADU after BSCALE/BZERO; masked pixels (BLANK, NaN) are NaN and are never
//    detected nor measured.
//  - Thresholds are in units of the global background RMS (THRESH_TYPE RELATIVE) or in ADU
//    (ABSOLUTE), as in SExtractor run without a weight map.
//  - FLAGS bits are SExtractor's (see Flag).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/device_image.hpp"
#include "celeris/image.hpp"

namespace celeris::extract {

// SExtractor FLAGS bits.
enum Flag : uint16_t {
  kFlagNeighbours = 1,       // bright neighbours or bad pixels bias MAG_AUTO by >= 10%
  kFlagBlended = 2,          // deblended from a larger detection
  kFlagSaturated = 4,        // at least one pixel at or above SATUR_LEVEL
  kFlagTruncated = 8,        // touches the image border
  kFlagAperIncomplete = 16,  // an aperture crosses the border or masked pixels
  kFlagIsoIncomplete = 32,   // isophotal data incomplete
  kFlagDeblendOverflow = 64,
  kFlagExtractOverflow = 128,
};

enum class ThreshType { Relative, Absolute };
// FLAG_TYPE: how an object's flag-map values combine (SExtractor's OR, AND, MIN, MAX, MOST).
enum class FlagType { Or, And, Min, Max, Most };
enum class MaskType { None, Blank, Correct };
enum class BackPhotoType { Global, Local };
// WEIGHT_TYPE (SExtractor weight.c): what the weight map holds. BACKGROUND takes the variance
// from the background RMS map; the MAP_* types read a map of the image's size (RMS in ADU,
// variance in ADU^2, or relative weights 1/variance, 0 = bad pixel).
enum class WeightType { None, Background, MapRms, MapVar, MapWeight };
// INTERP_TYPE: pixels beyond WEIGHT_THRESH replaced by their left (up to INTERP_MAXXLAG) or upper
// (up to INTERP_MAXYLAG) neighbour, in the variance map only (VarOnly) or in the image too (All).
enum class InterpType { None, VarOnly, All };

// One weight map's settings (WEIGHT_TYPE, WEIGHT_THRESH, RESCALE_WEIGHTS, INTERP_TYPE,
// INTERP_MAXXLAG, INTERP_MAXYLAG for that map).
struct WeightParams {
  WeightType type = WeightType::None;
  // In the map's units: pixels at or beyond it (below it for MAP_WEIGHT) are bad. NaN =
  // SExtractor's default (0 for MAP_WEIGHT, none otherwise).
  double thresh = std::numeric_limits<double>::quiet_NaN();
  bool rescale = true;      // MAP_VAR / MAP_WEIGHT scaled to the image noise
  bool interpolate = true;  // bad pixels interpolated (INTERP_TYPE not NONE)
  int xlag = 16, ylag = 16;
};

// Parameters of a run, with SExtractor's defaults (`celeris extract -d`).
struct Config {
  // Detection
  double detect_thresh = 1.5;    // DETECT_THRESH, sigma (RELATIVE) or ADU (ABSOLUTE)
  double analysis_thresh = 1.5;  // ANALYSIS_THRESH
  ThreshType thresh_type = ThreshType::Relative;
  // THRESH_TYPE's second element, for ANALYSIS_THRESH (the first when not given, as SExtractor).
  ThreshType analysis_thresh_type = ThreshType::Relative;
  int detect_minarea = 5;  // pixels above the detection threshold
  // SExtractor's buffers, which decide when objects are written, hence their NUMBER order:
  int memory_bufsize = 1024;   // MEMORY_BUFSIZE: image lines held at a time
  int memory_objstack = 3000;  // MEMORY_OBJSTACK: objects held before the oldest is written
  // MEMORY_PIXSTACK: pixels of open detections held during the scan; beyond it the largest one
  // loses its pixels (FLAGS 128), as in SExtractor (src/extract/sextractor/pixel_stack.hpp);
  // 0: no limit.
  int64_t memory_pixstack = 300000;
  bool filter = true;
  std::vector<float> filter_kernel;  // row-major; empty = no filtering
  int filter_width = 0, filter_height = 0;
  int deblend_nthresh = 32;
  double deblend_mincont = 0.005;
  // rand() numbers drawn before the deblender's first: SExtractor draws some while reading
  // certain WCS headers (extract_file sets this from the header), and its deblender's pixel
  // assignments continue the same stream (from one extension of a multi-extension file to the
  // next too).
  int64_t deblend_rand_offset = 0;
  // EXT_NUMBER: the frame's number among its file's image extensions (1-based).
  int ext_number = 1;
  // Detections in the file's earlier image extensions: SExtractor numbers the detections of a
  // whole run in one sequence (ID_PARENT), from one extension of a multi-extension file to the
  // next; extract_file sets this.
  int64_t id_parent_offset = 0;
  // Objects per chunk of the pipelined deblending and cleaning (src/extract/back_end.hpp; 0: one
  // chunk, the stages one after another; negative: refused). A frame of fewer than twice this
  // many objects is one chunk (a crowded 4096^2 frame's 47,500: unchanged); the paper's workload
  // (dense 4096^2, 177,000 objects) runs in four, its clean pass beside the later chunks'
  // deblending, shapes and zones: 15.0 ms faster a frame in 13 of 15 paired rounds on an H100
  // (stop 73; 30,000: 9.6 ms). Any value gives the same catalog.
  int64_t back_end_chunk_objects = 60000;
  // Tests and benchmarks, with chunks: the first chunk's objects (0: a quarter of
  // back_end_chunk_objects, so that the pass starts early) and each later chunk's growth over its
  // predecessor's (at least 1; at most back_end_chunk_objects a chunk). The defaults give
  // chunks of 15,000 objects, then 60,000. Any values give the same catalog.
  int64_t back_end_first_chunk_objects = 0;
  double back_end_chunk_growth = 4.0;
  // Tests and benchmarks, with chunks: each chunk's clean zones and pairs made by a thread of
  // their own beside the next chunks' stages (true), or by the stages' thread and team right
  // after the chunk's shapes (false). The same catalog either way.
  bool back_end_zone_thread = true;
  // Tests and benchmarks, with chunks: the threads of the stages' team beside the pass (0: all
  // but the pass's and the zones' thread's). The same catalog with any.
  int back_end_stage_threads = 0;
  // Tests and benchmarks: the deblending's plans made in this many ranges of detections, one
  // after another, each range's draws and objects before the next's (DeblendStage's in_ranges,
  // src/extract/stages/deblend.hpp; what a back end in detection order from the plans onward
  // needs). 1: every detection's at once (the default); below 1: refused; not with
  // gpu_deblend_children. The same catalog with any.
  int deblend_plan_ranges = 1;
  // Tests and benchmarks: with --device cuda, deblending's pixel assignment (each pixel of a
  // split detection given to a child, the rand() draws numbered by a block scan) on the GPU
  // (src/extract/gpu/deblend_children_gpu.hpp) instead of the host threads. The same catalog;
  // off by default: on the H200 (crowded 4096^2, stop 40) the GPU's round trip, 0.82-0.88 ms,
  // cost more than the host's choices it replaced (the finish 0.95-1.03 -> 0.54-0.57 ms).
  bool gpu_deblend_children = false;
  // Tests and benchmarks: the clean pass (one thread) runs while the OpenMP teams that wait
  // for it sleep (src/core/omp_serial.hpp) rather than spin beside it: with one chunk the
  // stages' team, with chunks the zones' team between chunks and the stages' team after its
  // last (src/extract/back_end.hpp). The same catalog either way.
  bool serial_pass_alone = true;
  // --device cuda: the photometry (APER, AUTO, FLUX_RADIUS) of the rows the clean pass has
  // written out is queued on the GPU in batches of at least this many rows while the pass runs
  // (src/extract/stages/measure_beside_pass.hpp). 0: every row after the pass. The same catalog
  // either way.
  int64_t photometry_batch_rows = 4096;
  // --device cuda, with the photometry beside the clean pass: from this many objects in the
  // frame (0: never), the catalog's rows begun beside it too, each row's columns from its shape
  // and isophotal values written as the pass writes its object out
  // (src/extract/stages/catalog_beside_pass.hpp). The same catalog either way. Off: on an H100
  // the dense 4096^2 frame lost 3.1 ms with it in 25 paired rounds (its host columns had been
  // made beside the measurement's kernel already) and the crowded frame gained nothing
  // (bench/results/extract-dense-h100-2026-12-06-stop74.md).
  int64_t catalog_rows_beside_min_objects = 0;
  // Benchmarks: the CPU time every other thread of the process used while the clean pass ran,
  // in the stage times ("pass census: ..."; src/core/thread_cpu.hpp). Its two censuses (a file
  // and a clock per thread) fall outside the pass's own time but inside the frame's, which
  // they lengthen by an amount not measured; the catalog is the same.
  bool census_pass_neighbours = false;
  // Benchmarks, with chunks: each chunk's timeline in the stage times ("back end, chunk K of
  // N (M objects): ...", milliseconds from the back end's start): its shapes done, its pairs
  // done, the pass's start and end on it. Where the pass waits, and for which step.
  bool back_end_timeline = false;
  // Tests and benchmarks: with --device cuda, the detections' pixel columns are the page-locked
  // memory their pixels came back from the device into (src/extract/pixel_column.hpp
  // lend_column) rather than copies of it. The same catalog either way.
  bool gpu_lend_detection_pixels = true;
  // Tests and benchmarks: with --device cuda, the deblending's candidates are prepared and their
  // trees launched on the device by the front end, before the detections come back
  // (gpu/deblend_prepare_kernels.hpp); false: the deblending stage stages them from the host.
  // The same catalog either way.
  bool gpu_prepare_trees = true;
  // Tests and benchmarks: with --device cuda and the GPU shapes finished on the device, a whole
  // frame's clean zones (and CLEAN_PARAM 1's pair decisions) are found there right after them,
  // from their columns on the device (src/extract/gpu/zones_after_shapes.hpp); false: from the
  // host's columns once the shapes are back (clean_zones_gpu). The same catalog either way (on
  // by default since stop 70, when the device tests passed with it on:
  // bench/results/extract-gpu-h100-2026-12-05-stop70.md).
  bool gpu_zones_after_shapes = true;
  // The WCS's EQUINOX (else EPOCH, else 2000), which SExtractor passes as the epoch of its
  // J2000 -> B1950 conversion (the *_B1950 columns); extract_file sets this.
  double wcs_equinox = 2000.0;
  bool clean = true;
  double clean_param = 1.0;
  MaskType mask_type = MaskType::Correct;

  // Background
  bool back_manual = false;                           // BACK_TYPE MANUAL
  double back_value = 0.0;                            // BACK_VALUE (MANUAL)
  int back_width = 64, back_height = 64;              // BACK_SIZE
  int back_filter_width = 3, back_filter_height = 3;  // BACK_FILTERSIZE
  double back_filtthresh = 0.0;                       // BACK_FILTTHRESH
  BackPhotoType backphoto_type = BackPhotoType::Global;
  int backphoto_thick = 24;

  // Weights (stages/weights.hpp): the detection and the measurement map, the same one unless
  // separate_weights (SExtractor's `-WEIGHT_TYPE a,b` / `-WEIGHT_IMAGE d,m`). The maps
  // themselves are MeasureRequest::weight_map / detect_weight_map (none for BACKGROUND).
  WeightParams detect_weight, measure_weight;
  bool separate_weights = false;
  // INTERP_TYPE ALL (of the first element): the image's pixels are interpolated along with the
  // measurement variance, not only the variance.
  bool interp_image = true;
  // Dual-image mode: INTERP_TYPE ALL of the second element interpolates the measurement image.
  bool interp_measure_image = false;
  bool weight_gain = true;  // WEIGHT_GAIN: the Poisson term scaled by the local variance

  // Photometry
  std::vector<double> phot_apertures = {5.0};    // diameters, pixels
  double kron_fact = 2.5, kron_minradius = 3.5;  // PHOT_AUTOPARAMS
  // PHOT_AUTOAPERS: minimum diameters of the Kron search and of the MAG_AUTO aperture (0: none).
  double autoaper_search = 0.0, autoaper_flux = 0.0;
  std::vector<double> phot_fluxfrac = {0.5};
  double petro_fact = 2.0, petro_minradius = 3.5;  // PHOT_PETROPARAMS
  double satur_level = 50000.0;
  double mag_zeropoint = 0.0;
  // DETECT_TYPE PHOTO: photographic densities, each pixel's flux exp(pixel / ngamma) with
  // ngamma = MAG_GAMMA / ln 10 in the isophotal, aperture, Kron and growth-curve sums, and
  // linear ISO0..ISO7 and deblending thresholds (SExtractor analyse.c, photom.c, growth.c,
  // refine.c). MAG_GAMMA enters in single precision: source-extractor 2.25's FLUX_ISO agrees to
  // the last digit only so (with 3.2 in double, 240 of 579 HorseHead rows differ).
  bool photo = false;
  double mag_gamma = 4.0;
  double photo_ngamma() const {
    return photo ? static_cast<float>(mag_gamma) / std::log(10.0) : 0.0;
  }
  double gain = 0.0;  // e-/ADU; 0 = infinite (no Poisson term)
  double pixel_scale = 1.0;
  double seeing_fwhm = 1.2;

  int threads = 0;  // 0 = all cores
  // Where the stages run: Cpu, or Cuda (background, filter and detection on the GPU, the rest on
  // the CPU; the same catalog). Auto is resolved by the caller (resolve_backend).
  Backend device = Backend::Cpu;
  // With Cuda: the device memory (bytes) a frame may plan to use is a share of this (0: the
  // device's own memory); a frame planned at more is extracted on the CPU with a warning
  // (gpu/device_memory_plan.hpp). Set it lower to leave memory for other work on a shared GPU.
  int64_t gpu_memory_bytes = 0;
  // With Cuda: the detection (labelling to the detections' pixel lists) in bands of this many
  // rows, each band's work buffers reused by the next (src/extract/gpu/front_end.cpp). 0: the
  // whole frame at once, unless its plan exceeds the device, when the pipeline picks the rows
  // (gpu/device_memory_plan.hpp); tests and benchmarks may set it. The same catalog either way.
  int64_t gpu_band_rows = 0;
};

// The extracted objects, one entry per object in every array (structure of arrays). Positions
// and extents are 0-based here; catalog output adds 1.
struct Objects {
  std::vector<double> x, y;           // barycentre of background-subtracted isophotal pixels
  std::vector<int32_t> xpeak, ypeak;  // brightest (unfiltered) pixel
  std::vector<int32_t> xmin, xmax, ymin, ymax;
  std::vector<double> x2, y2, xy;           // second moments, pixel^2
  std::vector<double> errx2, erry2, errxy;  // their errors
  std::vector<double> a, b, theta;  // semi-axes (pixel) and position angle (deg, CCW from x)
  std::vector<double> cxx, cyy, cxy;
  std::vector<int32_t> isoarea;   // pixels above the analysis threshold
  std::vector<int32_t> isoareaf;  // all pixels of the segment (filtered, above detection)
  std::vector<double> flux_iso, fluxerr_iso;
  std::vector<double> flux_max;    // peak (unfiltered, background-subtracted)
  std::vector<double> background;  // background at the barycentre
  std::vector<double> threshold;   // detection threshold above background
  std::vector<double> kron_radius, flux_auto, fluxerr_auto;
  std::vector<double> flux_aper, fluxerr_aper;  // n_apertures per object, row-major
  std::vector<double> flux_radius;              // n_fluxfrac per object, row-major
  std::vector<double> fwhm;
  std::vector<uint16_t> flags;
  // ID_PARENT: the number of the detection (connected component before deblending) the object
  // came from, 1-based in detection order, plus Config::id_parent_offset. SExtractor (scan.c
  // sortit) numbers every detection of at least DETECT_MINAREA pixels so; deblended children
  // share their detection's number, an object not deblended has its own (never 0), and a master
  // keeps its own when CLEAN merges another object into it. Not renumbered when written out.
  std::vector<int32_t> id_parent;
  // --- Windowed measurements (SExtractor winpos.c), filled only when MeasureRequest::windowed
  // (empty otherwise): centroid (0-based), its error ellipse, second moments, ellipse, flux.
  std::vector<double> xwin, ywin, errx2win, erry2win, errxywin, x2win, y2win, xywin;
  std::vector<float> errawin, errbwin, errthetawin, awin, bwin, thetawin;  // theta: deg
  std::vector<float> cxxwin, cyywin, cxywin, flux_win, fluxerr_win;
  std::vector<int16_t> flags_win, niter_win;  // FLAGS_WIN, NITER_WIN
  // --- end of windowed measurements
  // --- Isophotal areas ISO0..ISO7 (measure_class_star.hpp), 8 per object, row-major, and the
  // object's analysis threshold less its local background (MU_THRESHOLD); filled only when
  // MeasureRequest::iso_areas.
  std::vector<int32_t> iso;
  std::vector<float> iso_thresh;
  std::vector<float> class_star;  // CLASS_STAR (filled by the catalog stage, extract_file)
  // FLUX_ISOCOR and its error (measure_best.hpp), filled only when MeasureRequest::isocor.
  std::vector<float> flux_isocor, fluxerr_isocor;
  // --- Flag maps (measure_flag_maps.hpp): MeasureRequest::flag_maps.size() per object,
  // row-major; empty without flag maps.
  std::vector<uint32_t> imaflags;  // IMAFLAGS_ISO
  std::vector<int32_t> nimaflags;  // NIMAFLAGS_ISO
  // --- ASSOC (src/extract/stages/assoc.hpp), filled by the catalog stage when VECTOR_ASSOC or
  // NUMBER_ASSOC is asked for: VECTOR_ASSOC's elements per object, row-major, and NUMBER_ASSOC.
  std::vector<double> assoc;
  std::vector<int32_t> assoc_number;
  // --- FLAGS_WEIGHT, NLOWWEIGHT_ISO, NLOWDWEIGHT_ISO (measure_weight_flags.hpp), filled when
  // MeasureRequest::weight_flags.
  std::vector<int16_t> flags_weight;
  std::vector<int32_t> nlowweight, nlowdweight;
  // --- Petrosian photometry (measure_petro.hpp), filled only when MeasureRequest::petro.
  std::vector<float> flux_petro, fluxerr_petro, petro_radius;
  // --- Growth curve (measure_growth.hpp): kGrowthSteps cumulative fluxes per object, row-major,
  // and its outer radius rlim (pixels); filled only when MeasureRequest::growth.
  std::vector<double> growth;
  std::vector<double> growth_rlim;
  // --- VIGNET (measure_vignet.hpp): MeasureRequest::vignet_width x vignet_height pixels per
  // object, row-major (-1e30 where SExtractor has no pixel); empty without VIGNET.
  std::vector<float> vignet;
  // --- VIGNET_SHIFT (vignet_shift.hpp): MeasureRequest::vignet_shift_width x
  // vignet_shift_height pixels per object, row-major, resampled to centre the barycentre (0
  // where SExtractor has no pixel); empty without VIGNET_SHIFT.
  std::vector<float> vignet_shift;
  // --- Differential geometry (DGEO_TYPE PIXEL, src/extract/stages/dgeo_map.hpp), filled only with
  // a map (MeasureRequest::dgeo_x): the mean shifts subtracted from X/Y_IMAGE (DGEOX_IMAGE,
  // DGEOY_IMAGE) and from XWIN/YWIN_IMAGE (DGEOXWIN_IMAGE, DGEOYWIN_IMAGE; with the windowed
  // measurements), pixels; and the map's planes around each object, MeasureRequest's
  // vignet_dgeox/y_width x height per object, row-major, 0 off the image (VIGNET_DGEOX/Y).
  std::vector<float> dgeox, dgeoy, dgeoxwin, dgeoywin;
  std::vector<float> vignet_dgeox, vignet_dgeoy;
  // --- DURATION_ANALYSIS (s): the wall-clock time of the object's measurement (measure.cpp's
  // per-object loop body); empty unless MeasureRequest::duration_analysis.
  std::vector<float> duration_analysis;

  size_t size() const { return x.size(); }
  // The core columns sized to n rows, the rows already there kept and the new ones zero-filled;
  // `threads` fill different columns side by side (a crowded frame's are about 10 MB of freshly
  // mapped pages).
  void resize(size_t n, size_t n_aper, size_t n_frac, int threads = 1);
  // Room in the core columns for n rows, nothing written: resize() up to n then moves nothing.
  void reserve(size_t n, size_t n_aper, size_t n_frac);
};

// Which optional measurements to make (SExtractor computes only what the catalog asks for, and
// some FLAGS bits come from those measurements).
// SExtractor's CHECKIMAGE_TYPE values celeris can write.
enum class CheckImage {
  Background,       // BACKGROUND: the interpolated background map
  BackgroundRms,    // BACKGROUND_RMS: the interpolated RMS map
  MiniBackground,   // MINIBACKGROUND: the background mesh grid (after filtering)
  MiniBackRms,      // MINIBACK_RMS: the RMS mesh grid
  MinusBackground,  // -BACKGROUND: the background-subtracted image
  Filtered,         // FILTERED: the detection image after the convolution filter
  Segmentation,     // SEGMENTATION: catalog NUMBER of the object owning each pixel, else 0
  Objects,          // OBJECTS: the background-subtracted pixels of the detected objects, else 0
  MinusObjects,     // -OBJECTS: the background-subtracted image with the detected (blanked)
                    // pixels and the masked ones set to 0
  Apertures,        // APERTURES: the background-subtracted image with the measured apertures
                    // (FLUX_APER circles, Kron ellipses) drawn on it
};

struct MeasureRequest {
  int n_apertures = -1;  // FLUX_APER elements; -1 = all PHOT_APERTURES
  int n_fluxfrac = -1;   // FLUX_RADIUS elements; -1 = all PHOT_FLUXFRAC
  bool auto_flux = true;
  bool windowed = false;      // the *WIN* measurements (they need FLUX_AUTO and the growth curve)
  bool isocor = false;        // FLUX_ISOCOR (and FLUX_BEST)
  bool iso_areas = false;     // ISO0..ISO7 (and what needs them: CLASS_STAR, MU_THRESHOLD)
  bool weight_flags = false;  // FLAGS_WEIGHT, NLOWWEIGHT_ISO, NLOWDWEIGHT_ISO
  bool petro = false;         // FLUX_PETRO family, PETRO_RADIUS (PHOT_PETROPARAMS)
  bool growth = false;        // FLUX_GROWTH, MAG_GROWTH and their steps (the whole growth curve)
  int vignet_width = 0, vignet_height = 0;              // VIGNET(w,h); 0: not asked for
  int vignet_shift_width = 0, vignet_shift_height = 0;  // VIGNET_SHIFT(w,h); 0: not asked for
  bool duration_analysis = false;  // DURATION_ANALYSIS: time each object's measurement
  // External flag maps (FLAG_IMAGE), the image's size, and how each combines (FLAG_TYPE):
  // they fill Objects::imaflags / nimaflags.
  std::vector<ImageView<const uint32_t>> flag_maps;
  std::vector<FlagType> flag_types;
  // WEIGHT_IMAGE's pixels as read (MAP_* types), the image's size; empty otherwise. With one
  // map for both (Config::separate_weights false) only weight_map is read.
  ImageView<const float> weight_map, detect_weight_map;
  // Dual-image mode (stages/dual_image.hpp): the measurement image, the detection image's size;
  // empty: one image for both.
  ImageView<const float> measure_image;
  // DGEO_TYPE PIXEL: the differential-geometry map's x and y shift planes (pixels), the image's
  // size; empty: none. Every position is measured less each pixel's shift, as SExtractor 2.25
  // does (docs/extract.md, "Differential geometry"). CPU only.
  ImageView<const float> dgeo_x, dgeo_y;
  int vignet_dgeox_width = 0, vignet_dgeox_height = 0;  // VIGNET_DGEOX(w,h); 0: not asked for
  int vignet_dgeoy_width = 0, vignet_dgeoy_height = 0;  // VIGNET_DGEOY(w,h); 0: not asked for
  std::vector<CheckImage> check_images;  // made in this order into Result::check_images
};

// Global quantities of a run and the time spent in each stage.
struct RunInfo {
  double global_back = 0, global_rms = 0;         // median of the background meshes
  double detect_thresh = 0, analysis_thresh = 0;  // ADU above background
  size_t n_detections = 0;                        // connected components before deblending
  size_t n_deblended = 0;                         // objects after deblending, before cleaning
  int64_t rand_draws = 0;  // rand() numbers the deblender took (after deblend_rand_offset)
  int threads = 0;         // OpenMP threads used (Config::threads, or chosen by the frame's size)
  std::vector<std::pair<std::string, double>> stage_seconds;
  std::vector<std::string> warnings;  // what SExtractor would warn of (pixel stack overflows)
};

struct Result {
  Objects objects;
  RunInfo info;
  std::vector<Image<float>> check_images;  // one per MeasureRequest::check_images
};

// Runs the whole extraction on one image (NaN = masked pixel) on the CPU. Throws celeris::Error
// on an empty or entirely masked image or an invalid configuration.
Result extract(ImageView<const float> image, const Config& config,
               const MeasureRequest& request = {});
// The same, subtracting the background in the image's own memory (saves a full-size buffer).
Result extract(Image<float>&& image, const Config& config, const MeasureRequest& request = {});
// The same from a frame in GPU memory (device_image.hpp): with config.device cuda the GPU stages
// read it where it is (no upload); with cpu it is copied to the host first. Same catalog.
Result extract(const DeviceImage& image, const Config& config, const MeasureRequest& request = {});

// The background map alone, as the extraction estimates it (BACK_TYPE, BACK_SIZE,
// BACK_FILTERSIZE and BACK_FILTTHRESH of `config`): SExtractor's BACKGROUND check image, one
// value per pixel. `global`, when given, receives the map's global background (the median of
// the meshes). Throws celeris::Error on an empty or entirely masked image.
Image<float> background_image(ImageView<const float> image, const Config& config,
                              float* global = nullptr);

}  // namespace celeris::extract
