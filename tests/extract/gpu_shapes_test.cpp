// Stage 5a on the GPU (gpu/shapes_gpu.hpp) against the host's compute_shape and isophotal,
// field for field and bit for bit: simulated frames (sparse, crowded, NaN patches, a filtered
// detection image of its own), deblended (children with fixed centres), with and without gain,
// CLEAN, a low saturation level (the FWHM's cut), DETECT_MINAREA 1 to 64, a frame without
// objects, and one smaller than the last (the buffers reused); and the clean zones and CLEAN's
// decisions found after them on the device from their columns there (zones_after_shapes.hpp)
// against the host's from its shapes. Skipped without a CUDA device
// (--device cuda's whole catalogs: gpu_front_end_test.cpp).
#ifdef CELERIS_HAVE_CUDA

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "celeris/device.hpp"
#include "core/cuda/device_buffer.hpp"
#include "extract/gpu/clean_zones_gpu.hpp"
#include "extract/gpu/shape_kernels.hpp"
#include "extract/gpu/shapes_gpu.hpp"
#include "extract/stages/background.hpp"
#include "extract/stages/clean_pairs.hpp"
#include "extract/stages/clean_zones.hpp"
#include "extract/stages/deblend.hpp"
#include "extract/stages/detect.hpp"
#include "gpu_test_frames.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

struct Case {
  gpu_test::FrameCase frame;
  double gain;
  bool clean;
  int minarea;
  double satur_level;
  // The clean zones found after the shapes on the device (gpu/zones_after_shapes.hpp) with
  // CLEAN_PARAM 1's decisions (else the zones alone).
  bool decide = true;
};

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The names of the fields whose bits differ.
struct Differences {
  std::string names;
  template <class T>
  void operator()(const char* name, const T& a, const T& b) {
    if (!same_bits(a, b)) names += std::string(" ") + name;
  }
};

std::string shape_differences(const Shape& a, const Shape& b) {
  Differences f;
  f("xmin", a.xmin, b.xmin), f("xmax", a.xmax, b.xmax), f("ymin", a.ymin, b.ymin);
  f("ymax", a.ymax, b.ymax), f("npix", a.npix, b.npix), f("flux", a.flux, b.flux);
  f("cpeak", a.cpeak, b.cpeak), f("peak", a.peak, b.peak), f("mx", a.mx, b.mx);
  f("my", a.my, b.my), f("x2", a.x2, b.x2), f("y2", a.y2, b.y2), f("xy", a.xy, b.xy);
  f("a", a.a, b.a), f("b", a.b, b.b), f("theta", a.theta, b.theta), f("cxx", a.cxx, b.cxx);
  f("cyy", a.cyy, b.cyy), f("cxy", a.cxy, b.cxy), f("singular", a.singular, b.singular);
  f("abcor", a.abcor, b.abcor), f("dgeox", a.dgeox, b.dgeox), f("dgeoy", a.dgeoy, b.dgeoy);
  return f.names;
}

std::string iso_differences(const Iso& a, const Iso& b) {
  Differences f;
  f("flux", a.flux, b.flux), f("fluxvar", a.fluxvar, b.fluxvar), f("area", a.area, b.area);
  f("peak", a.peak, b.peak), f("cpeak", a.cpeak, b.cpeak), f("xpeak", a.xpeak, b.xpeak);
  f("ypeak", a.ypeak, b.ypeak), f("errx2", a.errx2, b.errx2), f("erry2", a.erry2, b.erry2);
  f("errxy", a.errxy, b.errxy), f("fwhm", a.fwhm, b.fwhm);
  f("background", a.background, b.background), f("dbkg", a.dbkg, b.dbkg);
  f("mthresh", a.mthresh, b.mthresh), f("dthresh", a.dthresh, b.dthresh);
  f("thresh", a.thresh, b.thresh);
  return f.names;
}

// Returns how many objects the host measured (kHostObjectPixels).
size_t expect_same_shapes(const Case& k) {
  std::mt19937_64 rng(k.frame.seed);
  const gpu_test::TestFrame frame = gpu_test::test_frame(k.frame, rng);
  const Image<float>& image = frame.image;
  const Image<float>& value = frame.value;
  const Image<float>& cvalue = frame.cvalue;
  Config config;
  const BackgroundMap map = background_map(image.view(), config);
  const float thresh = 40.0f;
  ObjectList detections = detect(value.view(), cvalue.view(), {thresh, k.minarea});
  DeblendParams dp;
  dp.detect_thresh = thresh;
  dp.minarea = k.minarea;
  dp.width = k.frame.width;
  dp.height = k.frame.height;
  const ObjectList objects = deblend(std::move(detections), dp, 0, 2).objects;

  IsoParams ip;
  ip.background = &map;
  ip.backsig = 11.5f;
  ip.gain = k.gain;
  ip.detect_thresh = thresh;
  ip.analysis_thresh = 35.0f;
  ip.satur_level = k.satur_level;
  ip.clean = k.clean;
  ip.minarea = k.minarea;
  EXPECT_TRUE(gpu::shapes_supported(ip));
  std::vector<Shape> want(objects.size());
  std::vector<Iso> want_iso(objects.size());
  size_t children = 0, fwhms = 0, large = 0;
  for (size_t i = 0; i < objects.size(); ++i) {
    want[i] = compute_shape(objects[i], thresh);
    want_iso[i] = isophotal(objects[i], want[i], ip);
    children += objects[i].fixed_centre;
    fwhms += want_iso[i].fwhm > 0.0f;
    large += objects.count(i) > static_cast<size_t>(gpu::kHostObjectPixels);
  }
  const size_t n = static_cast<size_t>(value.size());
  cuda::DeviceBuffer<float> dv(n), dc(n);
  dv.upload(value.data(), n);
  dc.upload(cvalue.data(), n);
  std::vector<Shape> got(objects.size());
  std::vector<Iso> got_iso(objects.size());
  std::vector<std::pair<std::string, double>> seconds;
  const std::shared_ptr<gpu::ZonesAfterShapes> zones =
      gpu::zones_after_shapes(k.frame.width, k.frame.height, 1.0, k.decide);
  gpu::shapes_and_isophotal(objects, 0, objects.size(), dv.data(), dc.data(), k.frame.width, ip, 2,
                            got, got_iso, &seconds, nullptr, {}, zones.get());
  EXPECT_EQ(got.size(), objects.size());
  EXPECT_EQ(got_iso.size(), objects.size());
  if (got.size() != objects.size() || got_iso.size() != objects.size()) return 0;
  // The steps gpu/shapes_gpu.cpp times (the wait for its context among them since 3746809):
  // one more with the objects finished on the GPU.
  EXPECT_EQ(seconds.size(), gpu::finish_on_gpu() ? 6u : 5u);
  size_t differ = 0;
  for (size_t i = 0; i < objects.size(); ++i) {
    const std::string ds = shape_differences(want[i], got[i]);
    const std::string di = iso_differences(want_iso[i], got_iso[i]);
    if (ds.empty() && di.empty()) continue;
    if (++differ <= 5)
      ADD_FAILURE() << k.frame.width << "x" << k.frame.height << " seed " << k.frame.seed
                    << ", object " << i << " (" << objects.count(i) << " pixels): shape" << ds
                    << "; iso" << di;
  }
  EXPECT_EQ(differ, 0u) << "of " << objects.size() << " objects";
  // The zones and decisions found on the device from its own columns (the host measured the
  // largest objects: theirs from the host's), against the host's from its shapes.
  CleanZones got_zones;
  gpu::ZonePairCodes codes;
  if (gpu::finish_on_gpu()) {
    EXPECT_TRUE(gpu::collect_zones(*zones, objects.size(), got_zones, &codes));
    const CleanZones want_zones = clean_zones(want, 2);
    EXPECT_EQ(got_zones.first, 0u);
    EXPECT_EQ(got_zones.offset, want_zones.offset);
    EXPECT_EQ(got_zones.neighbours, want_zones.neighbours);
    std::vector<CleanPairInput> in(objects.size());
    for (size_t i = 0; i < objects.size(); ++i)
      in[i] =
          clean_pair_input(want[i], want_iso[i], CleanProfile(want[i], want_iso[i].dthresh, 1.0));
    std::vector<uint8_t> want_codes;
    if (k.decide)
      for (size_t i = 0; i < objects.size(); ++i)
        for (int64_t q = want_zones.offset[i]; q < want_zones.offset[i + 1]; ++q)
          want_codes.push_back(clean_pair_sure(in[i], in[want_zones.neighbours[q]], 1.0));
    EXPECT_EQ(codes.codes, want_codes);
    EXPECT_EQ(codes.flags.size(), k.decide ? objects.size() : 0u);
    if (k.frame.stars > 100) EXPECT_GT(want_zones.neighbours.size(), 20u);
  } else {  // not queued: nothing to collect
    EXPECT_FALSE(gpu::collect_zones(*zones, objects.size(), got_zones, &codes));
  }
  // The cases exercise what they claim to.
  if (k.frame.stars > 100) {
    EXPECT_GT(objects.size(), 50u);
    EXPECT_GT(children, 0u) << "no deblended children";
    EXPECT_GT(fwhms, 0u);
  }
  return large;
}

}  // namespace

TEST(GpuShapes, EqualTheHostsFieldForField) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  // The objects finished on the GPU (this machine's glibc is the lists' own): compared below.
  EXPECT_TRUE(gpu::finish_on_gpu());
  size_t on_host = 0;
  for (const Case& k : {Case{{512, 384, 300, 0, 11, false}, 0.0, true, 5, 50000.0},
                        Case{{777, 513, 900, 3, 12, true}, 4.0, true, 5, 50000.0},
                        Case{{1500, 1200, 2500, 5, 13, true}, 1.5, true, 3, 3000.0},
                        Case{{1024, 1024, 3000, 0, 16, false}, 0.0, false, 1, 50000.0},
                        Case{{700, 600, 1200, 2, 17, true}, 2.0, true, 64, 8000.0, false},
                        Case{{64, 48, 0, 0, 14, false}, 0.0, true, 5, 50000.0},
                        Case{{301, 97, 120, 2, 15, false}, 1.0, true, 5, 50000.0}})
    on_host += expect_same_shapes(k);
  EXPECT_GT(on_host, 0u) << "no case has objects large enough for the host";
}

TEST(GpuShapes, NotTakenWhereTheHostModelsTheCase) {
  IsoParams p;
  EXPECT_TRUE(gpu::shapes_supported(p));
  IsoParams weighted = p;
  weighted.weighted = true;
  IsoParams thresholds = p;
  thresholds.pixel_thresholds = true;
  IsoParams photo = p;
  photo.ngamma = 2.5;
  IsoParams big_minarea = p;
  big_minarea.minarea = gpu::kMaxMinarea + 1;
  const DgeoMap map;
  IsoParams dgeo = p;
  dgeo.dgeo = &map;
  Image<float> other(4, 4);
  IsoParams dual = p;
  dual.measure = other.view();
  for (const IsoParams& q : {weighted, thresholds, photo, big_minarea, dgeo, dual})
    EXPECT_FALSE(gpu::shapes_supported(q));
  big_minarea.clean = false;  // no CLEAN heap: any DETECT_MINAREA
  EXPECT_TRUE(gpu::shapes_supported(big_minarea));
  // Weights whose images are on the device (the GPU's weighted front end's): taken.
  EXPECT_TRUE(gpu::shapes_supported(weighted, true));
  EXPECT_TRUE(gpu::shapes_supported(thresholds, true));
  for (const IsoParams& q : {photo, dgeo, dual}) EXPECT_FALSE(gpu::shapes_supported(q, true));
}

#endif  // CELERIS_HAVE_CUDA
