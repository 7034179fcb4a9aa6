#include "extract/settings/input_checks.hpp"

#include <fitsio.h>

#include <filesystem>

#include "celeris/error.hpp"

namespace celeris::extract {

namespace {

// Image HDUs holding pixels (NAXIS > 0, tile-compressed ones included); 0 when CFITSIO cannot
// open the file (reading it later gives the error then).
int count_image_hdus(const std::string& path) {
  return static_cast<int>(image_hdus(path).size());
}

}  // namespace

std::vector<int> image_hdus(const std::string& path) {
  std::vector<int> out;
  fitsfile* f = nullptr;
  int status = 0;
  if (fits_open_file(&f, path.c_str(), READONLY, &status)) return out;
  int nhdu = 0;
  fits_get_num_hdus(f, &nhdu, &status);
  for (int h = 1; h <= nhdu && !status; ++h) {
    int type = 0, naxis = 0;
    if (fits_movabs_hdu(f, h, &type, &status)) break;
    fits_get_img_dim(f, &naxis, &status);
    if (!status && type == IMAGE_HDU && naxis > 0) out.push_back(h);
  }
  status = 0;
  fits_close_file(f, &status);
  return out;
}

std::string external_header_path(const std::string& image_path, const std::string& suffix) {
  std::string file = image_path.substr(0, image_path.find('['));
  const size_t slash = file.find_last_of('/');
  const size_t dot = file.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) file.erase(dot);
  return file + suffix;
}

void refuse_unsupported_inputs(const std::string& image_path, const Settings& settings) {
  if (image_path.find('[') == std::string::npos) {
    const int n = count_image_hdus(image_path);
    if (n > 1)
      throw Error(
          image_path + ": " + std::to_string(n) +
          " image extensions; a multi-extension file is extracted whole only as the image (or "
          "the detection image of a pair): name one extension here, e.g. " +
          image_path + "[1]");
  }
  const std::string head = external_header_path(image_path, settings.header_suffix);
  if (!settings.header_suffix.empty() && std::filesystem::exists(head))
    throw Error(head + ": SExtractor would read this external header (HEADER_SUFFIX " +
                settings.header_suffix +
                "); celeris does not read external headers yet: move it away or set "
                "HEADER_SUFFIX to a suffix with no file");
}

}  // namespace celeris::extract
