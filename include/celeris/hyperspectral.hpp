// Hyperspectral cubes and spatial preprocessing (SPP, Zortea & Plaza 2009; GPU form after
// Delgado et al., "On the optimization of memory access ... spatial preprocessing ... on GPUs").
//
// Conventions
// - A cube is bands x lines x samples, float32, stored band-sequential (BSQ, C order):
//   value (band b, line l, sample s) at data[(b * lines + l) * samples + s], all 0-based.
//   "line" is the image row (ENVI lines, FITS NAXIS2, MATLAB first index), "sample" the column
//   (ENVI samples, FITS NAXIS1, MATLAB second index).
// - Band lists on the command line are 1-based and inclusive ("1-100,120-150"); in the API they
//   are 0-based indices.
// - Wavelengths are kept in the file's units (ENVI "wavelength units"), band names as given.
//
// Formats
// - ENVI: .hdr + binary, interleave BSQ/BIL/BIP, data types 1 (uint8), 2 (int16), 3 (int32),
//   4 (float32), 5 (float64), 12 (uint16), 13 (uint32), 14 (int64), 15 (uint64), either byte
//   order, any header offset. Header keys celeris does not interpret are carried over on write.
// - MATLAB .mat through matio (v5 and v7.3/HDF5, both tested): a 3-D numeric array
//   (lines, samples, bands), or the "Zhu" layout: Y (bands x pixels, pixel
//   p = line + sample * nRow) with scalars nRow, nCol.
// - FITS: a 3-D image, NAXIS1 = samples, NAXIS2 = lines, NAXIS3 = bands (C order = BSQ).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "celeris/device.hpp"

namespace celeris::hyperspectral {

enum class CubeFormat { Envi, Mat, Fits };

// Where a cube came from and what a writer of the same format needs to reproduce it.
struct CubeSource {
  CubeFormat format = CubeFormat::Envi;
  // ENVI: header fields not interpreted by celeris, in file order (key lower-case, raw value
  // with braces kept), written back unchanged.
  std::vector<std::pair<std::string, std::string>> envi_fields;
  int envi_data_type = 4;
  std::string envi_interleave = "bsq";
  // MATLAB: the variable read, whether it was the Zhu (Y, nRow, nCol) layout, and whether the
  // file was v7.3 (HDF5; written back as v7.3, which has no 2 GB per-variable limit).
  std::string mat_variable = "cube";
  bool mat_zhu = false;
  bool mat_v73 = false;
  // FITS: header cards other than the structural ones (SIMPLE, BITPIX, NAXISn, ...).
  std::vector<std::string> fits_cards;
};

struct Cube {
  int bands = 0;
  int lines = 0;
  int samples = 0;
  std::vector<float> data;              // BSQ, bands * lines * samples
  std::vector<std::string> band_names;  // empty or one per band
  std::vector<double> wavelengths;      // empty or one per band
  std::string wavelength_units;         // e.g. "Nanometers", "Micrometers"; may be empty
  CubeSource source;

  Cube() = default;
  Cube(int bands, int lines, int samples, float fill = 0.0f);

  size_t pixels() const { return static_cast<size_t>(lines) * static_cast<size_t>(samples); }
  size_t size() const { return pixels() * static_cast<size_t>(bands); }
  float& at(int b, int l, int s) {
    return data[(static_cast<size_t>(b) * lines + l) * samples + s];
  }
  float at(int b, int l, int s) const {
    return data[(static_cast<size_t>(b) * lines + l) * samples + s];
  }
  float* band(int b) { return data.data() + static_cast<size_t>(b) * pixels(); }
  const float* band(int b) const { return data.data() + static_cast<size_t>(b) * pixels(); }
};

// ---- band selection -------------------------------------------------------------------------

// Parses "1-100,120-150,160" (1-based, inclusive, ascending or not, no duplicates) into 0-based
// indices; every band must lie in [1, nbands]. Throws celeris::Error on bad syntax or range.
std::vector<int> parse_band_list(const std::string& spec, int nbands);
// Keeps only `bands` (0-based), in that order, with their names and wavelengths.
void select_bands(Cube& cube, const std::vector<int>& bands);

// ---- I/O ----------------------------------------------------------------------------------

// Format from the file name: .mat -> Mat; .fits/.fit/.fts (optionally .gz) -> Fits; else Envi.
CubeFormat format_from_path(const std::string& path);

struct ReadOptions {
  std::string bands;         // 1-based band list ("" = all)
  std::string mat_variable;  // MATLAB variable ("" = automatic, see read_mat_cube)
};
// Reads any supported format (by extension) and applies the band selection.
Cube read_cube(const std::string& path, const ReadOptions& options = {});
// Writes in `format` (the cube's source format when omitted); atomic (temp + rename).
void write_cube(const std::string& path, const Cube& cube);
void write_cube(const std::string& path, const Cube& cube, CubeFormat format);

// ENVI. `path` may name the header (x.hdr) or the data file (x, x.img, x.dat, x.raw, x.bsq, x.bil,
// x.bip); the other file is found by the same rules. Throws on a missing file, a header without
// samples/lines/bands, an unknown data type or interleave, a data file smaller than the header
// says.
Cube read_envi(const std::string& path);
struct EnviWriteOptions {
  std::string interleave = "bsq";  // bsq | bil | bip
  int data_type = 4;               // 1, 2, 3, 4, 5, 12, 13, 14, 15 (integers are rounded, clamped)
  int byte_order = 0;              // 0 little-endian, 1 big-endian
};
// Writes header and data. With `path` = x.hdr the data go to x.img; with x.img (.dat, .raw, .bsq,
// .bil, .bip) the header goes to x.hdr; otherwise data to `path`, header to `path`.hdr.
void write_envi(const std::string& path, const Cube& cube, const EnviWriteOptions& options = {});
// The two file names write_envi uses for `path`: {header, data}.
std::pair<std::string, std::string> envi_paths_for_write(const std::string& path);

// MATLAB. With `variable` empty: the largest 3-D numeric array, else Y with nRow/nCol (Zhu
// layout), else an error listing the variables.
Cube read_mat_cube(const std::string& path, const std::string& variable = "");
// Writes cube.source.mat_variable as a single-precision (lines, samples, bands) array, or, when
// cube.source.mat_zhu, as Y (bands x pixels) plus nRow, nCol, nBand; a v7.3 (HDF5) file when
// cube.source.mat_v73, else v5.
void write_mat_cube(const std::string& path, const Cube& cube);

// FITS: the first HDU with a 3-D image (or CFITSIO extended syntax x.fits[2]).
Cube read_fits_cube(const std::string& path);
void write_fits_cube(const std::string& path, const Cube& cube);

// ---- spatial preprocessing ------------------------------------------------------------------
//
// For a pixel y(i,j) and a w x w window (w odd, >= 3, d = w/2), eqs. (1)-(5):
//   gamma(y, z)  = spectral angle between y and z, radians                              (2)
//   beta(a, b)   = 1 / (a^2 + b^2) for (a, b) != (0, 0), normalised to sum to one     (3)
//   alpha(i, j)  = sum over neighbours (r, s) of beta(r-i, s-j) * gamma(y(i,j), y(r,s))  (1)
//   rho(i, j)    = (1 + sqrt(alpha(i, j)))^2                                         (4)
//   y'(i, j)     = (y(i,j) - c) / rho(i, j) + c,  c = mean of all pixels               (5)
// Choices the paper leaves open, made here and shared by every backend:
// - The centre is not its own neighbour (beta(0,0) would be infinite; gamma(y,y) = 0 anyway).
// - Borders: the window is clipped to the image and beta is renormalised over the neighbours
//   present, so alpha is always a weighted mean of angles. A 1 x 1 image has no neighbour:
//   alpha = 0, rho = 1, y' = y.
// - Zero-norm pixels: the angle between two zero spectra is 0, between a zero and a non-zero
//   spectrum pi/2 (orthogonal).
// - The angle is computed as 2 atan2(|u - v|, |u + v|) on unit vectors u, v (the same value as
//   arccos <u,v>, without arccos's loss of precision for nearly parallel spectra).
// - Non-finite values propagate (a NaN pixel gives NaN alpha for itself and its neighbours).

struct SppOptions {
  int window = 5;
  // Cpu: float32 on every OpenMP thread. Cuda: every stage on the GPU (the cube uploaded, displaced
  // there, downloaded). Auto: Cuda when compiled in and a device exists, else Cpu.
  Device device = Device::Cpu;
  bool keep_alpha = false;  // fill SppResult::alpha
  // The CUDA alpha kernel (eq. 1), one of spp_cuda_kernels():
  //   "block" the paper's one pixel per block (Sec. 3.1);
  //   "tile"  the paper's several pixels per block (Sec. 3.2): 32 x 8 pixels, one thread each;
  //   "strip" (default) register-blocked: a thread holds a column strip of pixels and one column
  //           offset of the window, so each value it loads serves up to `window` pairs; windows
  //           up to 15 (larger windows run the tile kernel).
  // The CPU has one implementation: any other kernel than "strip" there is refused.
  std::string kernel = "strip";
};

struct SppResult {
  Cube cube;                     // the preprocessed cube, same shape and metadata as the input
  std::vector<float> alpha;      // lines * samples (when keep_alpha)
  std::vector<double> centroid;  // bands
  double alpha_seconds = 0;      // time of the alpha stage (eq. 1) alone: loop or kernel
  // CUDA only: device-resident time (cube on the device -> displaced cube on the device, all of
  // eqs. 1-5, CUDA events) and the host<->device copies around it (host clock).
  double device_seconds = 0;
  double transfer_seconds = 0;
};

// Throws celeris::Error for an even or < 3 window, an empty cube, an unknown kernel, or an
// unavailable device.
// The overloads taking Cube&& displace the pixels in place in the cube's own memory (no copy of
// the cube: for large cubes the copy costs more than the preprocessing).
SppResult spp(const Cube& cube, const SppOptions& options);
SppResult spp(Cube&& cube, const SppOptions& options);

// Float64 reference, straight from the equations, single-threaded: input BSQ
// (bands x lines x samples), returns the preprocessed cube (BSQ) and optionally alpha.
std::vector<double> spp_reference(const std::vector<double>& bsq, int bands, int lines, int samples,
                                  int window, std::vector<double>* alpha = nullptr);

// Throws celeris::Error unless window is odd and >= 3.
void check_window(int window);

// True when the CUDA kernels of spp were compiled in.
bool spp_cuda_compiled();
// The kernel names SppOptions::kernel accepts.
std::vector<std::string> spp_cuda_kernels();

// The cube simulator (simulate_cube) is in celeris/simulate.hpp (celeris::sim).

}  // namespace celeris::hyperspectral
