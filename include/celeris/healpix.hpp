// HEALPix pixel math, NESTED scheme (Gorski et al. 2005, ApJ 622, 759), as small pure inline
// functions shared by the CPU join, the CUDA join and the tests. No allocation, no state: every
// function takes the order explicitly (nside = 2^order, order 0..29, npix = 12 * 4^order).
//
// Conventions: theta is the colatitude in radians [0, pi] (theta = pi/2 - dec), phi the longitude
// in radians (any value; reduced modulo 2 pi, so RA 0 and 360 are the same pixel). Pixel numbers
// are int64_t; -1 marks "no such neighbour" (8 pixel corners have only 7 neighbours).
//
// The integer/float steps follow healpix_cxx (healpix_base.cc: loc2pix, pix2loc, neighbors) so
// that pixel numbers agree bit for bit with the reference; tests/xmatch/healpix_test.cpp checks
// that over all orders, at the poles and across RA 0/360.
#pragma once

#include <cmath>
#include <cstdint>

#include "celeris/host_device.hpp"

namespace celeris::healpix {

inline constexpr int max_order = 29;
inline constexpr double pi = 3.141592653589793238462643383279502884197;
inline constexpr double halfpi = 0.5 * pi;
inline constexpr double inv_halfpi = 0.6366197723675813430755350534900574;
inline constexpr double twothird = 2.0 / 3.0;

// A unit vector on the sphere (x towards RA 0, z towards the north pole).
struct Vec3 {
  double x, y, z;
};

// A half-open range of pixel numbers [begin, end) at one order.
struct PixelRange {
  int64_t begin, end;
};

CELERIS_HD inline int64_t nside(int order) {
  return int64_t(1) << order;
}
CELERIS_HD inline int64_t npix(int order) {
  return 12 * (int64_t(1) << (2 * order));
}

// Interleave the low 32 bits of v with zeros: bit i goes to bit 2i (the NEST Z-order curve).
CELERIS_HD inline uint64_t spread_bits(uint64_t v) {
  v &= 0xFFFFFFFFull;
  v = (v | (v << 16)) & 0x0000FFFF0000FFFFull;
  v = (v | (v << 8)) & 0x00FF00FF00FF00FFull;
  v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0Full;
  v = (v | (v << 2)) & 0x3333333333333333ull;
  v = (v | (v << 1)) & 0x5555555555555555ull;
  return v;
}

// Inverse of spread_bits: gather the even bits.
CELERIS_HD inline uint64_t compress_bits(uint64_t v) {
  v &= 0x5555555555555555ull;
  v = (v | (v >> 1)) & 0x3333333333333333ull;
  v = (v | (v >> 2)) & 0x0F0F0F0F0F0F0F0Full;
  v = (v | (v >> 4)) & 0x00FF00FF00FF00FFull;
  v = (v | (v >> 8)) & 0x0000FFFF0000FFFFull;
  v = (v | (v >> 16)) & 0x00000000FFFFFFFFull;
  return v;
}

// (x, y, face) <-> nested pixel number. x runs along the face's south-east edge.
CELERIS_HD inline int64_t xyf2nest(int order, int64_t ix, int64_t iy, int face) {
  return (int64_t(face) << (2 * order)) + int64_t(spread_bits(uint64_t(ix))) +
         int64_t(spread_bits(uint64_t(iy)) << 1);
}

CELERIS_HD inline void nest2xyf(int order, int64_t pix, int64_t& ix, int64_t& iy, int& face) {
  face = int(pix >> (2 * order));
  const uint64_t p = uint64_t(pix) & ((uint64_t(1) << (2 * order)) - 1);
  ix = int64_t(compress_bits(p));
  iy = int64_t(compress_bits(p >> 1));
}

// x modulo v in [0, v), as healpix_cxx's fmodulo.
CELERIS_HD inline double fmodulo(double x, double v) {
  if (x >= 0) return (x < v) ? x : std::fmod(x, v);
  const double t = std::fmod(x, v) + v;
  return (t == v) ? 0.0 : t;
}

// The pixel containing the point (z = cos theta, phi). Near the poles (|z| > 0.99) pass
// sin(theta) too (have_sth), which keeps full precision there (healpix_cxx loc2pix).
CELERIS_HD inline int64_t loc2pix_nest(int order, double z, double phi, double sth, bool have_sth) {
  const int64_t ns = nside(order);
  const double za = std::fabs(z);
  const double tt = fmodulo(phi * inv_halfpi, 4.0);  // in [0, 4)
  if (za <= twothird) {                              // equatorial region
    const double temp1 = double(ns) * (0.5 + tt);
    const double temp2 = double(ns) * (z * 0.75);
    const int64_t jp = int64_t(temp1 - temp2);  // ascending edge line
    const int64_t jm = int64_t(temp1 + temp2);  // descending edge line
    const int64_t ifp = jp >> order;            // in {0, 4}
    const int64_t ifm = jm >> order;
    const int face = int((ifp == ifm) ? (ifp | 4) : ((ifp < ifm) ? ifp : (ifm + 8)));
    const int64_t ix = jm & (ns - 1);
    const int64_t iy = ns - (jp & (ns - 1)) - 1;
    return xyf2nest(order, ix, iy, face);
  }
  // polar caps
  const int ntt = tt < 3.0 ? int(tt) : 3;
  const double tp = tt - ntt;
  const double tmp = ((za < 0.99) || !have_sth) ? double(ns) * std::sqrt(3.0 * (1.0 - za))
                                                : double(ns) * sth / std::sqrt((1.0 + za) / 3.0);
  int64_t jp = int64_t(tp * tmp);          // increasing edge line
  int64_t jm = int64_t((1.0 - tp) * tmp);  // decreasing edge line
  if (jp > ns - 1) jp = ns - 1;            // points on the boundary
  if (jm > ns - 1) jm = ns - 1;
  return (z >= 0) ? xyf2nest(order, ns - jm - 1, ns - jp - 1, ntt)
                  : xyf2nest(order, jp, jm, ntt + 8);
}

// Pixel of colatitude theta, longitude phi (radians), as healpix_cxx's ang2pix.
CELERIS_HD inline int64_t ang2pix_nest(int order, double theta, double phi) {
  if (theta < 0.01 || theta > 3.14159 - 0.01)
    return loc2pix_nest(order, std::cos(theta), phi, std::sin(theta), true);
  return loc2pix_nest(order, std::cos(theta), phi, 0.0, false);
}

// Pixel of a unit (or any non-zero) vector, as healpix_cxx's vec2pix.
CELERIS_HD inline int64_t vec2pix_nest(int order, const Vec3& v) {
  const double xl = 1.0 / std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
  const double phi = (v.x == 0.0 && v.y == 0.0) ? 0.0 : std::atan2(v.y, v.x);
  const double nz = v.z * xl;
  if (std::fabs(nz) > 0.99)
    return loc2pix_nest(order, nz, phi, std::sqrt(v.x * v.x + v.y * v.y) * xl, true);
  return loc2pix_nest(order, nz, phi, 0.0, false);
}

// Unit vector of right ascension / declination in degrees (formulas 1-3 of the cross-match paper,
// with x towards RA 0): the form every distance in celeris xmatch is computed from.
CELERIS_HD inline Vec3 radec2vec(double ra_deg, double dec_deg) {
  const double ra = ra_deg * (pi / 180.0), dec = dec_deg * (pi / 180.0);
  const double cd = std::cos(dec);
  return Vec3{cd * std::cos(ra), cd * std::sin(ra), std::sin(dec)};
}

// Pixel of RA/Dec in degrees. Goes through the unit vector, so the pole is exact.
CELERIS_HD inline int64_t radec2pix_nest(int order, double ra_deg, double dec_deg) {
  return vec2pix_nest(order, radec2vec(ra_deg, dec_deg));
}

// Centre of a pixel as (z, phi) and, near the poles, sin(theta) (healpix_cxx pix2loc).
CELERIS_HD inline void pix2loc_nest(int order, int64_t pix, double& z, double& phi, double& sth,
                                    bool& have_sth) {
  constexpr int jrll[12] = {2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4};
  constexpr int jpll[12] = {1, 3, 5, 7, 0, 2, 4, 6, 1, 3, 5, 7};
  const int64_t ns = nside(order);
  const double fact2 = 4.0 / double(npix(order));
  const double fact1 = double(ns << 1) * fact2;
  have_sth = false;
  sth = 0.0;
  int64_t ix, iy;
  int face;
  nest2xyf(order, pix, ix, iy, face);
  const int64_t jr = (int64_t(jrll[face]) << order) - ix - iy - 1;
  int64_t nr;
  if (jr < ns) {
    nr = jr;
    const double tmp = double(nr * nr) * fact2;
    z = 1 - tmp;
    if (z > 0.99) {
      sth = std::sqrt(tmp * (2.0 - tmp));
      have_sth = true;
    }
  } else if (jr > 3 * ns) {
    nr = ns * 4 - jr;
    const double tmp = double(nr * nr) * fact2;
    z = tmp - 1;
    if (z < -0.99) {
      sth = std::sqrt(tmp * (2.0 - tmp));
      have_sth = true;
    }
  } else {
    nr = ns;
    z = double(2 * ns - jr) * fact1;
  }
  int64_t tmp = int64_t(jpll[face]) * nr + ix - iy;
  if (tmp < 0) tmp += 8 * nr;
  phi =
      (nr == ns) ? 0.75 * halfpi * double(tmp) * fact1 : (0.5 * halfpi * double(tmp)) / double(nr);
}

// Centre of a pixel as colatitude/longitude in radians (healpix_cxx pix2ang).
CELERIS_HD inline void pix2ang_nest(int order, int64_t pix, double& theta, double& phi) {
  double z, sth;
  bool have_sth;
  pix2loc_nest(order, pix, z, phi, sth, have_sth);
  theta = have_sth ? std::atan2(sth, z) : std::acos(z);
}

// Centre of a pixel as a unit vector.
CELERIS_HD inline Vec3 pix2vec_nest(int order, int64_t pix) {
  double z, phi, sth;
  bool have_sth;
  pix2loc_nest(order, pix, z, phi, sth, have_sth);
  if (!have_sth) sth = std::sqrt((1.0 - z) * (1.0 + z));
  return Vec3{sth * std::cos(phi), sth * std::sin(phi), z};
}

// The 8 neighbours of a pixel in healpix_cxx order: SW, W, NW, N, NE, E, SE, S; -1 where a pixel
// corner has only 7 neighbours.
CELERIS_HD inline void neighbours_nest(int order, int64_t pix, int64_t result[8]) {
  constexpr int nb_xoffset[8] = {-1, -1, 0, 1, 1, 1, 0, -1};
  constexpr int nb_yoffset[8] = {0, 1, 1, 1, 0, -1, -1, -1};
  constexpr int nb_facearray[9][12] = {{8, 9, 10, 11, -1, -1, -1, -1, 10, 11, 8, 9},  // S
                                       {5, 6, 7, 4, 8, 9, 10, 11, 9, 10, 11, 8},      // SE
                                       {-1, -1, -1, -1, 5, 6, 7, 4, -1, -1, -1, -1},  // E
                                       {4, 5, 6, 7, 11, 8, 9, 10, 11, 8, 9, 10},      // SW
                                       {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},        // centre
                                       {1, 2, 3, 0, 0, 1, 2, 3, 5, 6, 7, 4},          // NE
                                       {-1, -1, -1, -1, 7, 4, 5, 6, -1, -1, -1, -1},  // W
                                       {3, 0, 1, 2, 3, 0, 1, 2, 4, 5, 6, 7},          // NW
                                       {2, 3, 0, 1, -1, -1, -1, -1, 0, 1, 2, 3}};     // N
  constexpr int nb_swaparray[9][3] = {{0, 0, 3}, {0, 0, 6}, {0, 0, 0}, {0, 0, 5}, {0, 0, 0},
                                      {5, 0, 0}, {0, 0, 0}, {6, 0, 0}, {3, 0, 0}};
  const int64_t ns = nside(order);
  int64_t ix, iy;
  int face;
  nest2xyf(order, pix, ix, iy, face);
  for (int i = 0; i < 8; ++i) {
    int64_t x = ix + nb_xoffset[i], y = iy + nb_yoffset[i];
    int nbnum = 4;
    if (x < 0) {
      x += ns;
      nbnum -= 1;
    } else if (x >= ns) {
      x -= ns;
      nbnum += 1;
    }
    if (y < 0) {
      y += ns;
      nbnum -= 3;
    } else if (y >= ns) {
      y -= ns;
      nbnum += 3;
    }
    const int f = nb_facearray[nbnum][face];
    if (f < 0) {
      result[i] = -1;
      continue;
    }
    const int bits = nb_swaparray[nbnum][face >> 2];
    if (bits & 1) x = ns - x - 1;
    if (bits & 2) y = ns - y - 1;
    if (bits & 4) {
      const int64_t t = x;
      x = y;
      y = t;
    }
    result[i] = xyf2nest(order, x, y, f);
  }
}

// Squared chord between two unit vectors (formula 4 squared). Exact for small angles, unlike
// 1 - cos: the comparison every inclusion test below and every match uses.
CELERIS_HD inline double chord2(const Vec3& a, const Vec3& b) {
  const double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
  return dx * dx + dy * dy + dz * dz;
}

// Squared chord of an angle in radians: gamma^2 = 4 sin^2(theta / 2) (formula 5). Angles of pi
// or more give 4, the squared diameter.
CELERIS_HD inline double chord2_of_angle(double angle) {
  if (angle >= pi) return 4.0;
  if (angle <= 0) return 0.0;
  const double s = std::sin(0.5 * angle);
  return 4.0 * s * s;
}

// Angle in radians of a squared chord (inverse of chord2_of_angle).
CELERIS_HD inline double angle_of_chord2(double c2) {
  const double h = 0.5 * std::sqrt(c2);
  return 2.0 * std::asin(h < 1.0 ? h : 1.0);
}

// Largest angular distance between a pixel centre and its corners at this order (healpix_cxx
// max_pixrad): reached by the pixels at the equator/polar-cap transition.
CELERIS_HD inline double max_pixrad(int order) {
  const double ns = double(nside(order));
  const double za = 2.0 / 3.0, pa = pi / (4.0 * ns);
  double t1 = 1.0 - 1.0 / ns;
  t1 *= t1;
  const double zb = 1.0 - t1 / 3.0;
  const double sa = std::sqrt((1 - za) * (1 + za)), sb = std::sqrt((1 - zb) * (1 + zb));
  const Vec3 a{sa * std::cos(pa), sa * std::sin(pa), za}, b{sb, 0.0, zb};
  return angle_of_chord2(chord2(a, b));
}

// Smallest distance (radians) between opposite edges of any pixel, a lower bound at each order
// (cdshealpix's table tends to 0.689 / nside; 0.6 / nside stays below it at every order). A disc
// of radius r <= min_pixel_width(order) centred anywhere in pixel p lies inside p and its 8
// neighbours: the join's neighbour path relies on this.
CELERIS_HD inline double min_pixel_width(int order) {
  return 0.6 / double(nside(order));
}

// Deepest order whose pixels are at least `radius` (radians) wide, so that pixel + neighbours
// cover any disc of that radius centred in the pixel; -1 when no order is (radius > 0.6 rad).
CELERIS_HD inline int order_for_radius(double radius) {
  for (int k = max_order; k >= 0; --k)
    if (min_pixel_width(k) >= radius) return k;
  return -1;
}

// Precomputed thresholds of an inclusive disc query of fixed radius at a target order: the
// descent keeps a pixel at order k when the centre-to-disc chord allows an overlap, i.e. angle <=
// radius + B_k, and takes all its descendants when angle <= radius - B_k, with B_k = 1.25 x
// max_pixrad(k) (a safety margin over the corner distance, since pixel edges are curved).
struct DiscPlan {
  int order = 0;
  int start_order = -1;          // descent starts from the centre's pixel + neighbours here
                                 // (pixels >= radius wide), or from the 12 base pixels when -1
  double outer2[max_order + 1];  // chord^2 of radius + B_k (4: always)
  double inner2[max_order + 1];  // chord^2 of radius - B_k (-1: never)
};

inline DiscPlan make_disc_plan(int order, double radius) {
  DiscPlan p;
  p.order = order;
  const int k0 = order_for_radius(radius);
  p.start_order = k0 < order ? k0 : order;
  for (int k = 0; k <= max_order; ++k) {
    const double b = 1.25 * max_pixrad(k) + 1e-15;
    p.outer2[k] = chord2_of_angle(radius + b);
    p.inner2[k] = (radius - b > 0) ? chord2_of_angle(radius - b) : -1.0;
  }
  return p;
}

// Inclusive disc query: calls emit(begin, end) with sorted, disjoint, non-adjacent half-open
// ranges of pixels at plan.order that together cover every pixel overlapping the disc of the
// plan's radius around `centre` (may over-include; never misses). Depth-first descent through
// the NEST hierarchy with an explicit stack (no allocation, usable on a device), from the
// centre's pixel and its neighbours at plan.start_order (which cover the disc, see
// min_pixel_width), or from the 12 base pixels for discs wider than 0.6 rad.
template <class Emit>
CELERIS_HD inline void query_disc_nest(const DiscPlan& plan, const Vec3& centre, Emit&& emit) {
  struct Item {
    int64_t pix;
    int order;
  };
  Item stack[4 * (max_order + 1) + 16];
  int top = 0;
  if (plan.start_order < 0) {
    for (int f = 11; f >= 0; --f) stack[top++] = Item{f, 0};
  } else {
    // Start pixels in decreasing order on the stack, so they pop (and emit) in increasing order.
    int64_t start[9];
    start[0] = vec2pix_nest(plan.start_order, centre);
    neighbours_nest(plan.start_order, start[0], start + 1);
    for (int a = 1; a < 9; ++a)  // insertion sort, descending
      for (int b = a; b > 0 && start[b] > start[b - 1]; --b) {
        const int64_t t = start[b];
        start[b] = start[b - 1];
        start[b - 1] = t;
      }
    for (int a = 0; a < 9; ++a)
      if (start[a] >= 0 && (a == 0 || start[a] != start[a - 1]))
        stack[top++] = Item{start[a], plan.start_order};
  }
  bool open = false;
  int64_t cur_b = 0, cur_e = 0;
  auto add = [&](int64_t b, int64_t e) {
    if (open && b == cur_e) {
      cur_e = e;
      return;
    }
    if (open) emit(cur_b, cur_e);
    open = true;
    cur_b = b;
    cur_e = e;
  };
  while (top > 0) {
    const Item it = stack[--top];
    const double c2 = chord2(pix2vec_nest(it.order, it.pix), centre);
    if (c2 > plan.outer2[it.order]) continue;
    const int shift = 2 * (plan.order - it.order);
    if (it.order == plan.order || c2 <= plan.inner2[it.order]) {
      add(it.pix << shift, (it.pix + 1) << shift);
      continue;
    }
    for (int c = 3; c >= 0; --c) stack[top++] = Item{it.pix * 4 + c, it.order + 1};
  }
  if (open) emit(cur_b, cur_e);
}

}  // namespace celeris::healpix
