#include <cstdio>
#include <random>
#include <string>
#include "celeris/maxsub.hpp"
namespace ms = celeris::maxsub;
static std::vector<double> ints(std::mt19937& r, size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = d(r);
  return v;
}
static int fails = 0, checks = 0;
static void cmp(const ms::ConvexRegion& g, const ms::ConvexRegion& c, const std::string& what) {
  ++checks;
  if (g.sum != c.sum || g.left != c.left || g.right != c.right || g.top != c.top ||
      g.bottom != c.bottom) {
    ++fails;
    std::printf("MISMATCH %s: gpu sum %g cols %d..%d  cpu sum %g cols %d..%d\n", what.c_str(),
                g.sum, g.left, g.right, c.sum, c.left, c.right);
  }
}
int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::stoi(argv[1]) : 40;
  std::mt19937 rng(41);
  for (int it = 0; it < iters; ++it) {
    const int w = 1 + int(rng() % 13), h = 1 + int(rng() % 40);
    const int lo = it % 3 == 0 ? -1 : (it % 3 == 1 ? -9 : -20);
    const int hi = lo == -20 ? -1 : -lo;
    auto a = ints(rng, size_t(w) * h, lo, hi);
    cmp(ms::max_convex(a, w, h, celeris::Device::Cuda), ms::max_convex(a, w, h),
        std::to_string(w) + "x" + std::to_string(h));
  }
  std::normal_distribution<double> d(-0.05, 1.0);
  for (auto [w, h] : {std::pair{12, 140}, std::pair{20, 270}, std::pair{7, 33}}) {
    std::vector<double> a(size_t(w) * h);
    for (double& v : a) v = d(rng);
    cmp(ms::max_convex(a, w, h, celeris::Device::Cuda), ms::max_convex(a, w, h),
        "real " + std::to_string(w) + "x" + std::to_string(h));
    auto b = ints(rng, size_t(w) * h, -2, 2);
    cmp(ms::max_convex(b, w, h, celeris::Device::Cuda), ms::max_convex(b, w, h),
        "ties " + std::to_string(w) + "x" + std::to_string(h));
  }
  auto a = ints(rng, 15 * 40, -5, 5);
  auto gk = ms::k_max_convex_disjoint(a, 15, 40, 6, celeris::Device::Cuda);
  auto ck = ms::k_max_convex_disjoint(a, 15, 40, 6);
  if (gk.size() != ck.size()) {
    ++fails;
    std::printf("K size differs\n");
  }
  for (size_t i = 0; i < std::min(gk.size(), ck.size()); ++i)
    cmp(gk[i], ck[i], "k" + std::to_string(i));
  auto tiny = ints(rng, 5 * 4, -3, 3);
  auto gt = ms::k_max_convex_disjoint(tiny, 5, 4, 30, celeris::Device::Cuda);
  auto ct = ms::k_max_convex_disjoint(tiny, 5, 4, 30);
  if (gt.size() != ct.size()) {
    ++fails;
    std::printf("K tiny size differs\n");
  }
  for (size_t i = 0; i < std::min(gt.size(), ct.size()); ++i)
    cmp(gt[i], ct[i], "kt" + std::to_string(i));
  std::printf("%d checks, %d mismatches\n", checks, fails);
  return fails != 0;
}
