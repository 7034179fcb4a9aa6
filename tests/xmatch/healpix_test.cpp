// celeris/healpix.hpp against the reference implementation (healpix_cxx) over all orders, at the
// poles and across RA 0/360; the disc query and the neighbour property against sampled points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "celeris/healpix.hpp"

#ifdef CELERIS_HAVE_HEALPIX_CXX
#include <healpix_base.h>
#endif

namespace hp = celeris::healpix;

namespace {

// Random (theta, phi) including the poles, the polar-cap boundary z = +-2/3, phi outside [0, 2pi)
// and exactly 0 / 2pi.
std::vector<std::pair<double, double>> test_angles(std::mt19937_64& rng, int n) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::pair<double, double>> a = {{0.0, 0.0},
                                              {hp::pi, 0.0},
                                              {0.0, 1.0},
                                              {hp::pi, 5.0},
                                              {1e-12, 0.3},
                                              {hp::pi - 1e-12, 0.3},
                                              {hp::halfpi, 0.0},
                                              {hp::halfpi, 2 * hp::pi},
                                              {1.0, -1e-9},
                                              {1.0, 2 * hp::pi - 1e-9},
                                              {std::acos(2.0 / 3), 0.1},
                                              {std::acos(-2.0 / 3), 4.0},
                                              {0.3, -3.0},
                                              {2.5, 9.0}};
  for (int k = 0; k < n; ++k) {
    double theta = std::acos(1 - 2 * u(rng));
    if (k % 5 == 0) theta = u(rng) * 0.02;           // north polar
    if (k % 5 == 1) theta = hp::pi - u(rng) * 0.02;  // south polar
    if (k % 7 == 0) theta = std::acos(2.0 / 3 + 1e-3 * (u(rng) - 0.5));
    a.push_back({theta, 2 * hp::pi * u(rng) - (k % 3 == 0 ? 2 * hp::pi : 0.0)});
  }
  return a;
}

bool in_ranges(const std::vector<hp::PixelRange>& r, int64_t p) {
  auto it = std::upper_bound(r.begin(), r.end(), p,
                             [](int64_t v, const hp::PixelRange& x) { return v < x.begin; });
  return it != r.begin() && p < std::prev(it)->end;
}

std::vector<hp::PixelRange> disc(int order, const hp::Vec3& c, double radius) {
  std::vector<hp::PixelRange> r;
  const hp::DiscPlan plan = hp::make_disc_plan(order, radius);
  hp::query_disc_nest(plan, c, [&](int64_t b, int64_t e) { r.push_back({b, e}); });
  return r;
}

hp::Vec3 ang2vec(double theta, double phi) {
  return {std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)};
}

// A point at angle `d` from unit vector c in direction `az`.
hp::Vec3 offset(const hp::Vec3& c, double d, double az) {
  hp::Vec3 a = std::fabs(c.z) < 0.9 ? hp::Vec3{0, 0, 1} : hp::Vec3{1, 0, 0};
  hp::Vec3 e{a.y * c.z - a.z * c.y, a.z * c.x - a.x * c.z, a.x * c.y - a.y * c.x};
  double l = std::sqrt(e.x * e.x + e.y * e.y + e.z * e.z);
  e = {e.x / l, e.y / l, e.z / l};
  hp::Vec3 n{c.y * e.z - c.z * e.y, c.z * e.x - c.x * e.z, c.x * e.y - c.y * e.x};
  const double s = std::sin(d), co = std::cos(d), ca = std::cos(az), sa = std::sin(az);
  return {co * c.x + s * (ca * e.x + sa * n.x), co * c.y + s * (ca * e.y + sa * n.y),
          co * c.z + s * (ca * e.z + sa * n.z)};
}

}  // namespace

TEST(Healpix, BitsRoundTrip) {
  for (uint64_t v : {0ull, 1ull, 2ull, 12345ull, (1ull << 29) - 1, 0x1FFFFFFFull})
    EXPECT_EQ(hp::compress_bits(hp::spread_bits(v)), v);
}

TEST(Healpix, RaWrapsAt360) {
  for (int order : {0, 5, 12, 20, 29})
    for (double dec : {-89.9, -45.0, 0.0, 30.0, 89.99}) {
      EXPECT_EQ(hp::radec2pix_nest(order, 0.0, dec), hp::radec2pix_nest(order, 360.0, dec));
      EXPECT_EQ(hp::ang2pix_nest(order, hp::halfpi - dec * hp::pi / 180, 0.0),
                hp::ang2pix_nest(order, hp::halfpi - dec * hp::pi / 180, 2 * hp::pi));
    }
}

TEST(Healpix, PoleIsInAPolarBasePixel) {
  for (int order = 0; order <= hp::max_order; ++order) {
    EXPECT_LT(hp::radec2pix_nest(order, 10.0, 90.0) >> (2 * order), 4);
    EXPECT_GE(hp::radec2pix_nest(order, 10.0, -90.0) >> (2 * order), 8);
  }
}

TEST(Healpix, PixelCentreMapsBackToItsPixel) {
  std::mt19937_64 rng(3);
  for (int order = 0; order <= hp::max_order; ++order) {
    std::uniform_int_distribution<int64_t> pick(0, hp::npix(order) - 1);
    for (int k = 0; k < 2000; ++k) {
      const int64_t p = pick(rng);
      double theta, phi;
      hp::pix2ang_nest(order, p, theta, phi);
      ASSERT_EQ(hp::ang2pix_nest(order, theta, phi), p) << "order " << order;
      ASSERT_EQ(hp::vec2pix_nest(order, hp::pix2vec_nest(order, p)), p) << "order " << order;
    }
  }
}

#ifdef CELERIS_HAVE_HEALPIX_CXX

TEST(HealpixReference, Ang2PixAllOrders) {
  std::mt19937_64 rng(1);
  const auto angles = test_angles(rng, 3000);
  for (int order = 0; order <= hp::max_order; ++order) {
    Healpix_Base2 ref(order, NEST);
    for (const auto& [theta, phi] : angles) {
      ASSERT_EQ(hp::ang2pix_nest(order, theta, phi), ref.ang2pix(pointing(theta, phi)))
          << "order " << order << " theta " << theta << " phi " << phi;
      const vec3 v(std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi),
                   std::cos(theta));
      ASSERT_EQ(hp::vec2pix_nest(order, hp::Vec3{v.x, v.y, v.z}), ref.vec2pix(v))
          << "order " << order << " theta " << theta << " phi " << phi;
    }
  }
}

TEST(HealpixReference, Pix2AngAllOrders) {
  std::mt19937_64 rng(2);
  for (int order = 0; order <= hp::max_order; ++order) {
    Healpix_Base2 ref(order, NEST);
    std::uniform_int_distribution<int64_t> pick(0, hp::npix(order) - 1);
    std::vector<int64_t> pix = {0, hp::npix(order) - 1, 4 * (hp::npix(order) / 12),
                                8 * (hp::npix(order) / 12) - 1};
    for (int k = 0; k < 3000; ++k) pix.push_back(pick(rng));
    for (int64_t p : pix) {
      double theta, phi;
      hp::pix2ang_nest(order, p, theta, phi);
      const pointing r = ref.pix2ang(p);
      ASSERT_NEAR(theta, r.theta, 1e-14) << "order " << order << " pix " << p;
      ASSERT_NEAR(phi, r.phi, 1e-14) << "order " << order << " pix " << p;
    }
  }
}

TEST(HealpixReference, NeighboursAllOrders) {
  std::mt19937_64 rng(4);
  for (int order = 0; order <= hp::max_order; ++order) {
    Healpix_Base2 ref(order, NEST);
    const int64_t ns = hp::nside(order);
    std::uniform_int_distribution<int64_t> pick(0, hp::npix(order) - 1);
    std::vector<int64_t> pix;
    for (int k = 0; k < 2000; ++k) pix.push_back(pick(rng));
    for (int f = 0; f < 12; ++f)  // face corners and edges
      for (int64_t x : {int64_t(0), ns / 2, ns - 1})
        for (int64_t y : {int64_t(0), ns / 2, ns - 1}) pix.push_back(hp::xyf2nest(order, x, y, f));
    for (int64_t p : pix) {
      int64_t mine[8];
      hp::neighbours_nest(order, p, mine);
      fix_arr<int64, 8> theirs;
      ref.neighbors(p, theirs);
      for (int i = 0; i < 8; ++i)
        ASSERT_EQ(mine[i], theirs[i]) << "order " << order << " pix " << p << " slot " << i;
    }
  }
}

TEST(HealpixReference, DiscQueryCoversInclusiveQuery) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto angles = test_angles(rng, 150);
  for (int order = 0; order <= 20; ++order) {
    Healpix_Base2 ref(order, NEST);
    for (size_t k = 0; k < angles.size(); ++k) {
      const auto [theta, phi] = angles[k];
      // radii from a tenth of a pixel to several pixels (and large discs at low orders)
      const double radius = hp::max_pixrad(order) * std::pow(10.0, -1 + 2 * u(rng));
      if (radius > 1.5) continue;
      const auto mine = disc(order, ang2vec(theta, phi), radius);
      for (size_t q = 1; q < mine.size(); ++q) ASSERT_LT(mine[q - 1].end, mine[q].begin);
      const rangeset<int64> theirs = ref.query_disc_inclusive(pointing(theta, phi), radius, 4);
      for (size_t q = 0; q < theirs.nranges(); ++q)
        for (int64_t p = theirs.ivbegin(q); p < theirs.ivend(q); ++p)
          ASSERT_TRUE(in_ranges(mine, p)) << "order " << order << " pix " << p << " r " << radius;
    }
  }
}

#endif  // CELERIS_HAVE_HEALPIX_CXX

TEST(Healpix, DiscQueryNeverMissesSampledPoints) {
  std::mt19937_64 rng(6);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto angles = test_angles(rng, 60);
  for (int order : {0, 1, 3, 6, 10, 15, 20, 25, 29}) {
    for (const auto& [theta, phi] : angles) {
      const double radius = hp::max_pixrad(order) * std::pow(10.0, -1.5 + 2.5 * u(rng));
      if (radius > 1.0) continue;
      const hp::Vec3 c = ang2vec(theta, phi);
      const auto r = disc(order, c, radius);
      for (int s = 0; s < 200; ++s) {
        const double d = radius * (s < 100 ? 1.0 : std::sqrt(u(rng)));
        const hp::Vec3 q = offset(c, d, 2 * hp::pi * u(rng));
        ASSERT_TRUE(in_ranges(r, hp::vec2pix_nest(order, q))) << "order " << order;
      }
    }
  }
}

TEST(Healpix, NeighboursCoverDiscOfMinPixelWidth) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto angles = test_angles(rng, 400);
  for (int order = 0; order <= hp::max_order; ++order) {
    const double r = hp::min_pixel_width(order);
    EXPECT_EQ(hp::order_for_radius(r), order);
    for (const auto& [theta, phi] : angles) {
      const hp::Vec3 c = ang2vec(theta, phi);
      const int64_t p = hp::vec2pix_nest(order, c);
      int64_t nb[9];
      nb[8] = p;
      hp::neighbours_nest(order, p, nb);
      for (int s = 0; s < 40; ++s) {
        const int64_t q = hp::vec2pix_nest(order, offset(c, r, 2 * hp::pi * u(rng)));
        ASSERT_TRUE(std::find(nb, nb + 9, q) != nb + 9)
            << "order " << order << " theta " << theta << " phi " << phi;
      }
    }
  }
}

TEST(Healpix, OrderForRadius) {
  EXPECT_EQ(hp::order_for_radius(1.0), -1);
  EXPECT_EQ(hp::order_for_radius(0.0), hp::max_order);
  const double arcsec = hp::pi / 180 / 3600;
  const int k = hp::order_for_radius(2 * arcsec);
  EXPECT_GE(hp::min_pixel_width(k), 2 * arcsec);
  EXPECT_LT(hp::min_pixel_width(k + 1), 2 * arcsec);
}
