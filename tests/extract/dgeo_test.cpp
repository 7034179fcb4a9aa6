// Differential geometry (DGEO_TYPE PIXEL: dgeo_map.hpp, measure_dgeo.hpp) against hand-computed
// references: SExtractor 2.25 truncates each pixel's offset less its shift to an int in the
// barycentre (so sub-pixel shifts move a pixel by one whole pixel or none, by their sign), the
// mean shift is weighted as the barycentre, a zero map changes nothing; the windowed centroid of
// a constant shift reports twice the shift (the step factor), and moves the centroid by the
// shift; VIGNET_DGEOX/Y copies the map with zeros off the frame and the buffer; a map of the
// wrong size or on the GPU is refused. The last digit against source-extractor is checked by the
// parity ctests (extract.parity.dgeo_*).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/simulate.hpp"
#include "extract/objects.hpp"
#include "extract/stages/dgeo_map.hpp"
#include "extract/stages/measure_dgeo.hpp"
#include "extract/stages/measure_windowed.hpp"
#include "extract/stages/moments.hpp"

namespace celeris::extract {
namespace {

// A map of the given constant shifts except where `set` writes.
struct Map {
  Image<float> dx, dy;
  Map(int w, int h, float cx, float cy) : dx(w, h, cx), dy(w, h, cy) {}
  DgeoMap view() const { return {dx.view(), dy.view()}; }
};

ObjectList row_object(const std::vector<float>& weights) {  // pixels (10..,5) with these values
  std::vector<Pixel> pixels;
  for (size_t i = 0; i < weights.size(); ++i)
    pixels.push_back({static_cast<int32_t>(10 + i), 5, weights[i], weights[i]});
  return ObjectList::of(pixels);
}

TEST(Dgeo, PositiveSubPixelShiftsMovePixelsByOneExceptAtTheCorner) {
  const ObjectList o = row_object({1, 1, 1});
  const Map m(20, 10, 0.5f, 0.0f);
  const DgeoMap v = m.view();
  const Shape s = compute_shape(o[0], 0.5f, false, &v);
  // Offsets 0, 1, 2 less 0.5: -0.5, 0.5, 1.5, truncated toward zero: 0, 0, 1.
  EXPECT_DOUBLE_EQ(s.mx, 10.0 + 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(s.my, 5.0);
  EXPECT_FLOAT_EQ(s.dgeox, 0.5f);
  EXPECT_FLOAT_EQ(s.dgeoy, 0.0f);
}

TEST(Dgeo, NegativeShiftsBelowAPixelDoNotMove) {
  const ObjectList o = row_object({1, 1, 1});
  const Map m(20, 10, -0.5f, 0.0f);
  const DgeoMap v = m.view();
  EXPECT_DOUBLE_EQ(compute_shape(o[0], 0.5f, false, &v).mx, 11.0);  // 0.5, 1.5, 2.5 -> 0, 1, 2
  const Map m2(20, 10, -1.5f, 0.0f);
  const DgeoMap v2 = m2.view();
  EXPECT_DOUBLE_EQ(compute_shape(o[0], 0.5f, false, &v2).mx, 12.0);  // 1.5 .. 3.5 -> 1, 2, 3
}

TEST(Dgeo, MeanShiftIsWeightedAsTheBarycentre) {
  const ObjectList o = row_object({1, 2, 1});
  Map m(20, 10, 0.0f, 0.0f);
  m.dx(10, 5) = 0.25f, m.dx(11, 5) = -0.25f, m.dx(12, 5) = 1.0f;
  m.dy(10, 5) = 2.0f, m.dy(11, 5) = 0.0f, m.dy(12, 5) = -2.0f;
  const DgeoMap v = m.view();
  const Shape s = compute_shape(o[0], 0.5f, false, &v);
  EXPECT_FLOAT_EQ(s.dgeox, (0.25f - 0.5f + 1.0f) / 4);
  EXPECT_FLOAT_EQ(s.dgeoy, 0.0f);
  // x offsets: -0.25 -> 0, 1.25 -> 1, 1.0 -> 1: (0 + 2 + 1) / 4. y offsets 0 less 2, 0, -2:
  // -2, 0, 2 (weights 1, 2, 1): mean 0.
  EXPECT_DOUBLE_EQ(s.mx, 10.75);
  EXPECT_DOUBLE_EQ(s.my, 5.0);
}

TEST(Dgeo, ZeroMapChangesNothing) {
  std::vector<Pixel> pixels;
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 6; ++x) {
      const float v = 1.0f + static_cast<float>((x * 7 + y * 3) % 5);
      pixels.push_back({20 + x, 30 + y, v, v});
    }
  const ObjectList o = ObjectList::of(pixels);
  const Map m(40, 40, 0.0f, 0.0f);
  const DgeoMap v = m.view();
  const Shape a = compute_shape(o[0], 0.5f), b = compute_shape(o[0], 0.5f, false, &v);
  EXPECT_EQ(a.mx, b.mx);
  EXPECT_EQ(a.my, b.my);
  EXPECT_EQ(a.x2, b.x2);
  EXPECT_EQ(a.y2, b.y2);
  EXPECT_EQ(a.xy, b.xy);
  EXPECT_EQ(b.dgeox, 0.0f);
}

// A circular Gaussian of sigma 2 centred on (x0, y0).
Image<float> gaussian(int w, int h, double x0, double y0) {
  Image<float> img(w, h, 0.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      img(x, y) = static_cast<float>(
          1e5 * std::exp(-((x - x0) * (x - x0) + (y - y0) * (y - y0)) / 8.0) / (8 * M_PI));
  return img;
}

TEST(Dgeo, WindowedConstantShiftMovesTheCentroidAndReportsTwiceTheShift) {
  const double x0 = 30.37, y0 = 27.81;
  const Image<float> img = gaussian(64, 60, x0, y0);
  PhotometryField field{img.view(), nullptr, 1.0f, 0.0, MaskType::None};
  const ApertureShape shape{1, 30.0f, 28.3f, 30.0, 28.3, 2.0f, 2.0f, 0.25f, 0.25f, 0.0f};
  WindowedStart start;
  start.mx = 30.0;
  start.my = 28.3;
  start.x2 = start.y2 = 4.0;
  start.a = start.b = 2.0f;
  start.cxx = start.cyy = 0.25f;
  start.errx2 = start.erry2 = 1e-4;
  start.hl_radius = static_cast<float>(2.0 * 2.35 / 2.0);
  uint16_t flags = 0;
  const WindowedResult plain = windowed(field, shape, start, flags);
  const Map m(64, 60, 0.3f, -0.2f);
  const DgeoMap v = m.view();
  start.dgeo = &v;
  const WindowedResult shifted = windowed(field, shape, start, flags);
  // Each pixel sits at its position less the shift: the centroid moves by minus the shift.
  EXPECT_NEAR(shifted.x, plain.x - 0.3, 1e-3);
  EXPECT_NEAR(shifted.y, plain.y + 0.2, 1e-3);
  EXPECT_NEAR(shifted.dgeox, 0.6f, 1e-6);  // 2 x 0.3: winpos.c applies WINPOS_FAC to it too
  EXPECT_NEAR(shifted.dgeoy, -0.4f, 1e-6);
  EXPECT_EQ(plain.dgeox, 0.0f);
}

TEST(Dgeo, VignetCopiesTheMapWithZerosOffTheFrameAndTheBuffer) {
  Image<float> plane(8, 6, 0.0f);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 8; ++x) plane(x, y) = static_cast<float>(10 * y + x + 1);
  ApertureShape ap;
  ap.fymin = 0;
  ap.fymax = 6;
  std::vector<float> out(15, -7.0f);
  dgeo_vignet(plane.view(), ap, 0.6, 4.6, 5, 3, out.data());  // centre pixel (1, 5)
  // Box x -1..3, y 4..6: column -1 and row 6 lie off the frame.
  const std::vector<float> want = {0, 41, 42, 43, 44, 0, 51, 52, 53, 54, 0, 0, 0, 0, 0};
  EXPECT_EQ(out, want);
  ap.fymax = 5;  // row 5 (the centre's) no longer in the buffer: nothing at all
  dgeo_vignet(plane.view(), ap, 0.6, 4.6, 5, 3, out.data());
  EXPECT_EQ(out, std::vector<float>(15, 0.0f));
  ap.fymax = 6;
  dgeo_vignet(plane.view(), ap, 8.6, 2.0, 5, 3, out.data());  // centre x 9, off the frame
  EXPECT_EQ(out, std::vector<float>(15, 0.0f));
}

TEST(Dgeo, WrongSizeIsRefused) {
  const Image<float> img = gaussian(64, 60, 30.4, 27.8);
  const Map small(32, 60, 0.1f, 0.1f);
  Config config;
  MeasureRequest request;
  request.dgeo_x = small.dx.view();
  request.dgeo_y = small.dy.view();
  try {
    extract(img.view(), config, request);
    FAIL() << "a DGEO_IMAGE of another size accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("same size"), std::string::npos) << e.what();
  }
}

// With --device cuda the map enters the CPU stages (deblending, shapes, the windowed and DGEO
// columns); the GPU's (detection, blanking codes, APER and AUTO) do not read it: the catalog
// is the CPU path's, bit for bit, on a field of blended stars with a map that varies.
TEST(Dgeo, GpuGivesTheCpuCatalog) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  sim::ImageParams p;
  p.width = 300;
  p.height = 220;
  p.n_stars = 120;
  p.seed = 17;
  const Image<float> img = sim::simulate_image(p).pixels;
  Map m(300, 220, 0.0f, 0.0f);
  for (int y = 0; y < 220; ++y)
    for (int x = 0; x < 300; ++x) {
      m.dx(x, y) = static_cast<float>(0.7 * std::sin(x / 17.0));
      m.dy(x, y) = static_cast<float>(-0.6 * std::cos(y / 13.0) + 0.2);
    }
  MeasureRequest request;
  request.dgeo_x = m.dx.view();
  request.dgeo_y = m.dy.view();
  request.windowed = true;
  Config config;
  const Result cpu = extract(img.view(), config, request);
  config.device = Backend::Cuda;
  const Result gpu = extract(img.view(), config, request);
  ASSERT_GT(cpu.objects.size(), 50u);
  ASSERT_EQ(cpu.objects.size(), gpu.objects.size());
  EXPECT_EQ(cpu.objects.x, gpu.objects.x);
  EXPECT_EQ(cpu.objects.y, gpu.objects.y);
  EXPECT_EQ(cpu.objects.dgeox, gpu.objects.dgeox);
  EXPECT_EQ(cpu.objects.dgeoy, gpu.objects.dgeoy);
  EXPECT_EQ(cpu.objects.dgeoxwin, gpu.objects.dgeoxwin);
  EXPECT_EQ(cpu.objects.xwin, gpu.objects.xwin);
  EXPECT_EQ(cpu.objects.flux_iso, gpu.objects.flux_iso);
  EXPECT_EQ(cpu.objects.flux_aper, gpu.objects.flux_aper);
  EXPECT_EQ(cpu.objects.flux_auto, gpu.objects.flux_auto);
  EXPECT_EQ(cpu.objects.fwhm, gpu.objects.fwhm);
  EXPECT_EQ(cpu.objects.flags, gpu.objects.flags);
}

}  // namespace
}  // namespace celeris::extract
