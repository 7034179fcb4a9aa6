#include "extract/stages/measure_class_star.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "celeris/error.hpp"

namespace celeris::extract {

void iso_areas(const ObjectView& pixels, float thresh, float peak, int32_t out[kNIso], bool photo) {
  float threshs[kNIso];
  for (int i = 0; i < kNIso; ++i)
    if (photo)  // DETECT_TYPE PHOTO: linear steps, in float (analyse.c)
      threshs[i] = thresh + (peak - thresh) * static_cast<float>(i) / kNIso;
    else
      threshs[i] = (peak > 0.0f && thresh > 0.0f)
                       ? static_cast<float>(thresh * std::pow(peak / thresh, double(i) / kNIso))
                       : 0.0f;
  for (int i = 0; i < kNIso; ++i) out[i] = 0;
  for (const Pixel p : pixels)
    for (int i = 0; i < kNIso && p.value > threshs[i]; ++i) ++out[i];
}

StarNetwork StarNetwork::parse(const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.compare(0, 3, "NNW") != 0)
    throw Error("STARNNW_NAME " + origin + ": not a neural-network weight file (no NNW line)");
  // After the NNW line and '#' comments, the numbers in order: the layer count and sizes, the
  // input biases and scales, per layer each neuron's weights then bias, the output biases and
  // scales (SExtractor's getnnw reads them line by line in this order).
  std::vector<double> v;
  while (std::getline(in, line)) {
    const size_t s = line.find_first_not_of(" \t");
    if (s == std::string::npos || line[s] == '#') continue;
    std::istringstream ls(line);
    std::string tok;
    while (ls >> tok) {
      char* end = nullptr;
      const double d = std::strtod(tok.c_str(), &end);
      if (end == tok.c_str() || *end != '\0')
        throw Error("STARNNW_NAME " + origin + ": bad number '" + tok + "'");
      v.push_back(d);
    }
  }
  size_t k = 0;
  auto next = [&]() {
    if (k >= v.size()) throw Error("STARNNW_NAME " + origin + ": truncated weight table");
    return v[k++];
  };
  StarNetwork n;
  const int nl = static_cast<int>(next());
  if (nl < 2 || nl > 16) throw Error("STARNNW_NAME " + origin + ": bad number of layers");
  for (int l = 0; l < nl; ++l) {
    const int size = static_cast<int>(next());
    if (size < 1 || size > 1024) throw Error("STARNNW_NAME " + origin + ": bad layer size");
    n.layers_.push_back(size);
  }
  for (int i = 0; i < n.layers_[0]; ++i) n.in_bias_.push_back(next());
  for (int i = 0; i < n.layers_[0]; ++i) n.in_scale_.push_back(next());
  for (int l = 0; l + 1 < nl; ++l) {
    const int ni = n.layers_[l], nj = n.layers_[l + 1];
    std::vector<double> w(static_cast<size_t>(ni) * nj), b(nj);
    for (int j = 0; j < nj; ++j) {
      for (int i = 0; i < ni; ++i) w[static_cast<size_t>(i) * nj + j] = next();
      b[j] = next();
    }
    n.weights_.push_back(std::move(w));
    n.biases_.push_back(std::move(b));
  }
  for (int i = 0; i < n.layers_.back(); ++i) n.out_bias_.push_back(next());
  for (int i = 0; i < n.layers_.back(); ++i) n.out_scale_.push_back(next());
  if (k != v.size()) throw Error("STARNNW_NAME " + origin + ": extra numbers after the table");
  return n;
}

StarNetwork StarNetwork::load(const std::string& name) {
  std::string path = name;
  if (!std::filesystem::exists(path) && name.find('/') == std::string::npos)
    for (const char* dir : {"/usr/share/source-extractor/", "/usr/share/sextractor/",
                            "/usr/local/share/source-extractor/", "/usr/local/share/sextractor/"})
      if (std::filesystem::exists(std::string(dir) + name)) {
        path = std::string(dir) + name;
        break;
      }
  std::ifstream f(path);
  if (!f) throw Error("STARNNW_NAME " + name + ": cannot open (no such file)");
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse(ss.str(), path);
}

double StarNetwork::respond(const std::vector<double>& input) const {
  std::vector<double> cur(layers_[0]);
  for (int i = 0; i < layers_[0]; ++i) cur[i] = input[i] * in_scale_[i] + in_bias_[i];
  for (size_t l = 0; l + 1 < layers_.size(); ++l) {
    const int ni = layers_[l], nj = layers_[l + 1];
    std::vector<double> nxt(nj);
    for (int j = 0; j < nj; ++j) {
      double sum = biases_[l][j];
      for (int i = 0; i < ni; ++i) sum += weights_[l][static_cast<size_t>(i) * nj + j] * cur[i];
      nxt[j] = 1.0 / (1.0 + std::exp(-sum));
    }
    cur = std::move(nxt);
  }
  return (cur[0] - out_bias_[0]) / out_scale_[0];
}

float class_star(const StarNetwork& net, const int32_t iso[kNIso], float peak, float thresh,
                 double seeing_fwhm, double pixel_scale) {
  double fac2 = seeing_fwhm / pixel_scale;
  fac2 *= fac2;
  std::vector<double> in;
  in.push_back(std::log10(iso[0] ? iso[0] / fac2 : 0.01));
  // The peak over the analysis threshold: a float division, as SExtractor.
  in.push_back(thresh > 0.0f ? std::log10(peak > 0.0f ? double(peak / thresh) : 0.1) : -1.0);
  for (int i = 1; i < kNIso; ++i) in.push_back(std::log10(iso[i] ? iso[i] / fac2 : 0.01));
  in.push_back(std::log10(seeing_fwhm));
  return static_cast<float>(net.respond(in));
}

}  // namespace celeris::extract
