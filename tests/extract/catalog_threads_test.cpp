// make_catalog runs its world conversions and fills its columns on several threads (one copy of
// the world frame per thread, conversions in blocks of 512 positions): the catalog must be the
// one a single thread makes, bit for bit, its world coordinates those of WorldFrame::world, sky
// and j2000 called object by object, and its world shapes those of local_jacobian's
// single-point conversions, on each of SExtractor's frames: a longitude-first WCS, a
// latitude-first one (DEC--TAN, RA---TAN), the linear frame of a header without WCS, and no
// frame at all.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/fits.hpp"
#include "celeris/simulate.hpp"
#include "celeris/wcs.hpp"
#include "extract/header_cards.hpp"
#include "extract/settings/parameters.hpp"
#include "extract/sextractor/fk5_to_fk4.hpp"
#include "extract/sextractor/world_frame.hpp"
#include "extract/stages/measure_world_shape.hpp"

namespace celeris::extract {
namespace {

using test::card;

std::optional<WorldFrame> frame_of(const std::vector<std::string>& cards) {
  const FitsHeader h = test::image_header(1024, 1024, cards);
  return WorldFrame::from_header(h, Wcs::from_header(h));
}

// A TAN frame at RA 150, Dec 2 (0.2"/pixel, slightly rotated), with the longitude first ...
std::optional<WorldFrame> ra_first() {
  return frame_of({card("CTYPE1", "'RA---TAN'"), card("CTYPE2", "'DEC--TAN'"),
                   card("CRVAL1", "150.0"), card("CRVAL2", "2.0"), card("CRPIX1", "512.5"),
                   card("CRPIX2", "500.0"), card("CD1_1", "-5.5E-5"), card("CD1_2", "2.0E-6"),
                   card("CD2_1", "1.5E-6"), card("CD2_2", "5.5E-5"), card("EQUINOX", "2000.0"),
                   card("RADESYS", "'FK5'")});
}

// ... and the same sky with the world axes exchanged (axis 1 the declination).
std::optional<WorldFrame> dec_first() {
  return frame_of({card("CTYPE1", "'DEC--TAN'"), card("CTYPE2", "'RA---TAN'"),
                   card("CRVAL1", "2.0"), card("CRVAL2", "150.0"), card("CRPIX1", "512.5"),
                   card("CRPIX2", "500.0"), card("CD1_1", "1.5E-6"), card("CD1_2", "5.5E-5"),
                   card("CD2_1", "-5.5E-5"), card("CD2_2", "2.0E-6"), card("EQUINOX", "2000.0"),
                   card("RADESYS", "'FK5'")});
}

// SExtractor's linear frame of a header without celestial axes (CROTA2, CDELT).
std::optional<WorldFrame> linear() {
  return frame_of({card("CRVAL1", "10.0"), card("CRVAL2", "-3.0"), card("CRPIX1", "3.0"),
                   card("CDELT1", "0.5"), card("CDELT2", "2.0"), card("CROTA2", "30.0")});
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// The objects of a crowded 1024^2 frame (more blocks of 512 conversions than threads), with
// windowed positions, extracted once for every test.
const Objects& crowded_objects() {
  static const Objects objects = [] {
    sim::ImageParams p;
    p.width = p.height = 1024;
    p.n_stars = 6000;
    p.seed = 3;
    const sim::SimulatedImage s = sim::simulate_image(p);
    MeasureRequest req;
    req.windowed = true;
    return extract(s.pixels.view(), Config{}, req).objects;
  }();
  return objects;
}

const std::vector<RequestedParam>& world_params() {
  static const std::vector<RequestedParam> params = [] {
    std::vector<std::string> warnings;
    auto p = parse_parameter_list(
        "NUMBER\nX_IMAGE\nY_IMAGE\nFLUX_AUTO\nMAG_AUTO\nFLAGS\nX_WORLD\nY_WORLD\nALPHA_SKY\n"
        "DELTA_SKY\nALPHA_J2000\nDELTA_J2000\nXPEAK_WORLD\nYPEAK_WORLD\nALPHAPEAK_SKY\n"
        "DELTAPEAK_SKY\nALPHAPEAK_J2000\nDELTAPEAK_J2000\nXWIN_WORLD\nYWIN_WORLD\nALPHAWIN_SKY\n"
        "DELTAWIN_SKY\nALPHAWIN_J2000\nDELTAWIN_J2000\nA_WORLD\nTHETA_WORLD\nTHETA_SKY\n"
        "THETA_J2000\nERRTHETA_WORLD\nERRTHETA_J2000\nAWIN_WORLD\nTHETAWIN_J2000\n"
        "ERRTHETAWIN_J2000\nX_MAMA\nY_MAMA\nX_FOCAL\nYPEAK_FOCAL\nXWIN_FOCAL\nPOLAR_WORLD\n"
        "ALPHA_B1950\nDELTA_B1950\nALPHAPEAK_B1950\nDELTAWIN_B1950\nTHETA_B1950\n"
        "THETAWIN_B1950\n",
        "test", warnings);
    EXPECT_TRUE(warnings.empty());
    return p;
  }();
  return params;
}

// The values a column holds for per-object values `v` (SExtractor stores float columns as float).
std::vector<double> as_column(const Column& c, std::vector<double> v) {
  if (c.type == ColumnType::Float32)
    for (double& x : v) x = static_cast<float>(x);
  return v;
}

// One object's (a, b) for each object, as a column's values.
using PerObject = std::function<std::pair<double, double>(size_t)>;
void expect_pair(const Table& t, const char* a, const char* b, size_t n, const PerObject& f) {
  const Column* ca = t.find(a);
  const Column* cb = t.find(b);
  ASSERT_TRUE(ca && cb) << a << " " << b;
  std::vector<double> ra, rb;
  for (size_t i = 0; i < n; ++i) {
    const auto [x, y] = f(i);
    ra.push_back(x), rb.push_back(y);
  }
  EXPECT_TRUE(same_bits(ca->values, as_column(*ca, ra))) << a;
  EXPECT_TRUE(same_bits(cb->values, as_column(*cb, rb))) << b;
}

// make_catalog on 1 and 4 threads: the same bits in every column; the world coordinates those of
// the frame's single-point conversions.
void check_frame(const std::optional<WorldFrame>& frame) {
  const Objects& o = crowded_objects();
  const auto& params = world_params();
  ASSERT_GT(o.size(), 4u * 512u);
  Config config;
  config.threads = 1;
  const Table one = make_catalog(o, params, config, frame);
  config.threads = 4;
  const Table four = make_catalog(o, params, config, frame);
  ASSERT_EQ(one.rows, o.size());
  ASSERT_EQ(one.columns.size(), params.size());
  ASSERT_EQ(four.columns.size(), params.size());
  for (size_t c = 0; c < params.size(); ++c) {
    EXPECT_EQ(one.columns[c].name, four.columns[c].name);
    EXPECT_TRUE(same_bits(one.columns[c].values, four.columns[c].values)) << one.columns[c].name;
  }
  const size_t n = o.size();
  if (!frame) {  // no frame: the world columns are zeros
    for (const char* name : {"X_WORLD", "ALPHA_J2000", "XWIN_WORLD", "X_MAMA", "ALPHA_B1950"})
      EXPECT_TRUE(same_bits(four.find(name)->values, std::vector<double>(n, 0.0))) << name;
    return;
  }
  // Finite world coordinates: a frame that maps nothing would give NaN on both sides.
  for (const double v : four.find("X_WORLD")->values) ASSERT_TRUE(std::isfinite(v));
  const WorldFrame& f = *frame;
  auto bary = [&](size_t i) { return std::pair(o.x[i] + 1, o.y[i] + 1); };
  auto peak = [&](size_t i) { return std::pair(o.xpeak[i] + 1.0, o.ypeak[i] + 1.0); };
  auto win = [&](size_t i) { return std::pair(o.xwin[i] + 1, o.ywin[i] + 1); };
  auto world = [&](auto pos) {
    return [&f, pos](size_t i) {
      return std::apply([&](double x, double y) { return f.world(x, y); }, pos(i));
    };
  };
  auto sky = [&](auto pos) {
    return [&f, pos](size_t i) {
      return std::apply([&](double x, double y) { return f.sky(x, y); }, pos(i));
    };
  };
  auto j2000 = [&](auto pos) {
    return [&f, pos](size_t i) {
      return std::apply([&](double x, double y) { return f.j2000(x, y); }, pos(i));
    };
  };
  expect_pair(four, "X_WORLD", "Y_WORLD", n, world(bary));
  expect_pair(four, "ALPHA_SKY", "DELTA_SKY", n, sky(bary));
  expect_pair(four, "ALPHA_J2000", "DELTA_J2000", n, j2000(bary));
  expect_pair(four, "XPEAK_WORLD", "YPEAK_WORLD", n, world(peak));
  expect_pair(four, "ALPHAPEAK_SKY", "DELTAPEAK_SKY", n, sky(peak));
  expect_pair(four, "ALPHAPEAK_J2000", "DELTAPEAK_J2000", n, j2000(peak));
  expect_pair(four, "XWIN_WORLD", "YWIN_WORLD", n, world(win));
  expect_pair(four, "ALPHAWIN_SKY", "DELTAWIN_SKY", n, sky(win));
  expect_pair(four, "ALPHAWIN_J2000", "DELTAWIN_J2000", n, j2000(win));
  // MAMA: the world coordinates half a pixel down-left, swapped, scaled by 1 + 3.3e-5.
  expect_pair(four, "X_MAMA", "Y_MAMA", n, [&](size_t i) {
    const auto [w0, w1] = f.world(o.x[i] + 1 - 0.5, o.y[i] + 1 - 0.5);
    return std::pair(w1 * (3.3e-5 + 1.0), w0 * (3.3e-5 + 1.0));
  });
  // World shapes through the Jacobian of single-point conversions (local_jacobian at the
  // barycentre), as before the batches.
  std::vector<double> a_world, theta_world, errtheta_world, awin_world;
  for (size_t i = 0; i < n; ++i) {
    const Jacobian j = local_jacobian(f, o.x[i] + 1, o.y[i] + 1);
    ASSERT_TRUE(j.ok);
    const WorldShape s = world_shape(j, o.x2[i], o.y2[i], o.xy[i]);
    a_world.push_back(s.a), theta_world.push_back(s.theta);
    errtheta_world.push_back(world_shape(j, o.errx2[i], o.erry2[i], o.errxy[i]).theta);
    awin_world.push_back(world_shape(j, o.x2win[i], o.y2win[i], o.xywin[i]).a);
  }
  for (const auto& [name, ref] :
       {std::pair("A_WORLD", &a_world), std::pair("THETA_WORLD", &theta_world),
        std::pair("ERRTHETA_WORLD", &errtheta_world), std::pair("AWIN_WORLD", &awin_world)}) {
    const Column* c = four.find(name);
    ASSERT_TRUE(c) << name;
    EXPECT_TRUE(same_bits(c->values, as_column(*c, *ref))) << name;
  }
  // B1950 from the J2000 position (Config's EQUINOX as the epoch, as SExtractor).
  const double epoch = config.wcs_equinox;
  const Column* a1950 = four.find("ALPHA_B1950");
  const Column* d1950 = four.find("DELTA_B1950");
  ASSERT_TRUE(a1950 && d1950);
  std::vector<double> a_ref, d_ref;
  for (size_t i = 0; i < n; ++i) {
    const auto [a, d] = f.j2000(o.x[i] + 1, o.y[i] + 1);
    const Radec b = sextractor_j2000_to_b1950(epoch, a, d);
    a_ref.push_back(b.alpha), d_ref.push_back(b.delta);
  }
  EXPECT_TRUE(same_bits(a1950->values, as_column(*a1950, a_ref)));
  EXPECT_TRUE(same_bits(d1950->values, as_column(*d1950, d_ref)));
}

}  // namespace

// One test for the four frames: they share the crowded frame's objects, extracted once (3 s).
TEST(CatalogThreads, SameCatalogOnOneAndOnFourThreads) {
  {
    SCOPED_TRACE("longitude first");
    const auto frame = ra_first();
    ASSERT_TRUE(frame && frame->celestial() && !frame->celestial()->latitude_first());
    check_frame(frame);
  }
  {
    SCOPED_TRACE("latitude first");
    const auto frame = dec_first();
    ASSERT_TRUE(frame && frame->celestial() && frame->celestial()->latitude_first());
    check_frame(frame);
  }
  {
    SCOPED_TRACE("linear frame (no WCS)");
    const auto frame = linear();
    ASSERT_TRUE(frame && !frame->celestial());
    check_frame(frame);
  }
  {
    SCOPED_TRACE("no frame");
    check_frame(std::nullopt);
  }
}

}  // namespace celeris::extract
