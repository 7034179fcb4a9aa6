// Galactic coordinates: positions given as (l, b) are rotated to ICRS before matching, so a
// Galactic catalog matches an equatorial one (and two Galactic ones match as they would in ICRS).
#include <cctype>
#include <cmath>
#include <string>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"

namespace celeris::xmatch {

namespace {

constexpr double kDeg = healpix::pi / 180.0;

// ICRS -> Galactic rotation A_G of the Hipparcos catalogue (ESA SP-1200, vol. 1, sec. 1.5.3,
// eq. 1.5.11); Galactic -> ICRS is its transpose.
constexpr double kAG[3][3] = {{-0.0548755604162154, -0.8734370902348850, -0.4838350155487132},
                              {+0.4941094278755837, -0.4448296299600112, +0.7469822444972189},
                              {-0.8676661490190047, -0.1980763734312015, +0.4559837761750669}};

std::string upper(std::string s) {
  for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

class GalacticPositions final : public PositionSource {
 public:
  explicit GalacticPositions(std::unique_ptr<PositionSource> in) : in_(std::move(in)) {}
  size_t rows() const override { return in_->rows(); }
  void scan(const Visit& visit) const override { scan_rows(0, rows(), visit); }
  void scan_rows(size_t first, size_t count, const Visit& visit) const override {
    in_->scan_rows(first, count, [&](size_t f, const double* l, const double* b, size_t n) {
      ra_.resize(n);
      dec_.resize(n);
      for (size_t k = 0; k < n; ++k) galactic_to_icrs(l[k], b[k], ra_[k], dec_[k]);
      visit(f, ra_.data(), dec_.data(), n);
    });
  }

 private:
  std::unique_ptr<PositionSource> in_;
  mutable std::vector<double> ra_, dec_;
};

}  // namespace

Frame parse_frame(const std::string& s) {
  const std::string v = upper(s);
  if (v == "ICRS" || v == "EQUATORIAL" || v == "FK5" || v == "J2000") return Frame::Icrs;
  if (v == "GALACTIC" || v == "GAL") return Frame::Galactic;
  throw Error("unknown --frame '" + s + "' (icrs|galactic)");
}

bool galactic_by_name(const std::string& lon, const std::string& lat) {
  const std::string a = upper(lon), b = upper(lat);
  return (a == "GLON" && b == "GLAT") || (a == "L" && b == "B") || (a == "LII" && b == "BII");
}

bool is_galactic(const std::optional<Frame>& frame, const std::string& lon,
                 const std::string& lat) {
  return frame ? *frame == Frame::Galactic : galactic_by_name(lon, lat);
}

void galactic_to_icrs(double l, double b, double& ra, double& dec) {
  const double cb = std::cos(b * kDeg);
  const double g[3] = {cb * std::cos(l * kDeg), cb * std::sin(l * kDeg), std::sin(b * kDeg)};
  double v[3];
  for (int i = 0; i < 3; ++i) v[i] = kAG[0][i] * g[0] + kAG[1][i] * g[1] + kAG[2][i] * g[2];
  ra = std::atan2(v[1], v[0]) / kDeg;
  if (ra < 0) ra += 360.0;
  dec = std::asin(std::fmax(-1.0, std::fmin(1.0, v[2]))) / kDeg;
}

void galactic_to_icrs(SkyPoints& p) {
  for (size_t k = 0; k < p.size(); ++k) galactic_to_icrs(p.ra[k], p.dec[k], p.ra[k], p.dec[k]);
}

std::unique_ptr<PositionSource> galactic_to_icrs(std::unique_ptr<PositionSource> src) {
  return std::make_unique<GalacticPositions>(std::move(src));
}

}  // namespace celeris::xmatch
