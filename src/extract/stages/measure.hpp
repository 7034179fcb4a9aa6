// Measurement of final objects (SExtractor analyse.c:endobject), in output order, each as the
// image stood when SExtractor wrote it out: the catalog values of the shapes and isophotal
// measurements, photometry (APER, AUTO, FLUX_RADIUS) and FLAGS, into an Objects table.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "celeris/extract.hpp"
#include "extract/gpu/measure_gpu.hpp"
#include "extract/objects.hpp"
#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/isophotal.hpp"
#include "extract/stages/measure_petro.hpp"
#include "extract/stages/moments.hpp"
#include "extract/stages/photometry.hpp"

namespace celeris::extract {

// Catalog rows written before the measurement (stages/catalog_beside_pass.hpp): the core
// columns (Objects::resize's) sized for `rows` rows, each of rows [0, rows) holding its shape
// columns (measure_shape_columns.hpp) but those listed in `left`.
struct RowsUnderWay {
  Objects catalog;
  size_t rows = 0;
  std::vector<size_t> left;
};

struct MeasureParams {
  float detect_thresh = 0;    // ADU above background (THRESHOLD)
  float analysis_thresh = 0;  // ADU above background (ISO0..ISO7)
  double satur_level = 50000.0;
  std::vector<double> apertures;  // PHOT_APERTURES diameters (all: they size the columns)
  std::vector<double> fluxfrac;   // PHOT_FLUXFRAC (all)
  int n_apertures = 0;            // FLUX_APER elements measured
  int n_fluxfrac = 0;             // FLUX_RADIUS elements measured
  bool compute_auto = true;       // FLUX_AUTO family, KRON_RADIUS or FLUX_RADIUS requested
  bool compute_win = false;       // windowed measurements (measure_windowed.hpp)
  bool compute_iso = false;       // ISO0..ISO7 (measure_class_star.hpp)
  bool compute_isocor = false;    // FLUX_ISOCOR (measure_best.hpp)
  bool photo = false;             // DETECT_TYPE PHOTO: linear ISO0..ISO7 thresholds
  AutoParams autoparams;          // PHOT_AUTOPARAMS, PHOT_AUTOAPERS
  LineBuffer buffer;              // the rows SExtractor held when it measured each object
  // Per catalog row, the scan line whose buffer rows it is measured in (CleanResult::buffer_at);
  // null: written_at.
  const std::vector<int64_t>* buffer_at = nullptr;
  // Per catalog row, the moment of its write-out (CleanResult::written_moment); null: its line.
  const std::vector<int64_t>* moment_at = nullptr;
  ImageView<const float> measure;  // dual-image mode: the measurement image (ISO0..ISO7)
  int threads = 1;
  // --device cuda: APER, AUTO and FLUX_RADIUS on the GPU (gpu/measure_gpu.hpp), whose times are
  // appended to *gpu_seconds when given. Everything else is measured on the CPU.
  bool gpu = false;
  std::vector<std::pair<std::string, double>>* gpu_seconds = nullptr;
  // With `gpu`: the photometry already under way (stages/measure_beside_pass.hpp), called
  // instead of starting it here, with each row's ApertureShape to fill and the host work to run
  // while its last kernels may still be running. Null: started here, every row at once.
  std::function<gpu::PhotometryColumns(std::vector<ApertureShape>& aps,
                                       const std::function<void()>& meanwhile)>
      photometry_under_way;
  // With photometry_under_way: the rows begun beside the clean pass, taken (once) instead of a
  // fresh catalog. Null: none.
  std::function<RowsUnderWay()> rows_under_way;
  // --- Petrosian photometry, growth curve, VIGNET (measure_petro/growth/vignet.hpp)
  bool compute_petro = false;
  PetroParams petroparams;  // PHOT_PETROPARAMS, PHOT_AUTOAPERS
  bool compute_growth = false;
  int vignet_width = 0, vignet_height = 0;              // 0: no VIGNET
  int vignet_shift_width = 0, vignet_shift_height = 0;  // 0: no VIGNET_SHIFT (vignet_shift.hpp)
  bool time_objects = false;  // DURATION_ANALYSIS: Objects::duration_analysis
  // A differential-geometry map (dgeo_map.hpp): DGEOX/Y_IMAGE, the windowed position less the
  // shifts with DGEOX/YWIN_IMAGE, and VIGNET_DGEOX/Y (measure_dgeo.hpp; 0: not asked for).
  const DgeoMap* dgeo = nullptr;
  int vignet_dgeox_width = 0, vignet_dgeox_height = 0;
  int vignet_dgeoy_width = 0, vignet_dgeoy_height = 0;
};

// Photometry and catalog values of objects[order[i]] for each i (in parallel), each as the
// image stood at scan line written_at[i] (PhotometryField::blanked); object k's pixels own id
// k + 1 in the blanking.
// The apertures' view of object `id - 1`'s shape, measured after the scan (ApertureShape's
// defaults for the scan line, the buffer's rows and the local background).
ApertureShape centred_aperture(int32_t id, const Shape& s);

// The apertures' view of objects[src] (its shape and isophotal values as detected: merges
// change neither its moments nor its local background) written out at scan line `written_at`,
// moment `moment`, measured in the line buffer of scan line `buffer_at` (CleanResult's).
ApertureShape written_aperture(size_t src, const Shape& s, const Iso& iso, int64_t written_at,
                               int64_t buffer_at, int64_t moment, const LineBuffer& buffer);

// What the GPU photometry measures for these parameters (gpu/measure_gpu.hpp).
gpu::PhotometryRequest photometry_request(const MeasureParams& params);

Objects measure_objects(const ObjectList& objects, const std::vector<Shape>& shapes,
                        const std::vector<Iso>& isos, const std::vector<size_t>& order,
                        const std::vector<int64_t>& written_at, const PhotometryField& field,
                        const MeasureParams& params);

}  // namespace celeris::extract
