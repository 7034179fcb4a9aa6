// The check images of a multi-extension file, as SExtractor 2.25 writes them (check.c,
// initcheck / reinitcheck): one file per CHECKIMAGE_TYPE holding an empty primary HDU with
// NEXTEND (the number of image extensions) and one image extension per image extension of the
// input, in order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "celeris/fits.hpp"
#include "celeris/image.hpp"

namespace celeris::extract {

// One such file written extension by extension, so that each extension's check image can be
// freed once appended: it is written under a temporary name, appears under its own at commit()
// (an OutputRun then tracks it) and is removed when the writer is destroyed uncommitted.
class CheckImageFileWriter {
 public:
  // `bitpix`: -32, or 32 for SEGMENTATION.
  CheckImageFileWriter(const std::string& path, int n_extensions, int bitpix);
  ~CheckImageFileWriter();
  CheckImageFileWriter(const CheckImageFileWriter&) = delete;
  CheckImageFileWriter& operator=(const CheckImageFileWriter&) = delete;
  // The next extension: its pixels and the header cards after the structural ones.
  void append(ImageView<const float> pixels, const std::vector<std::string>& cards);
  void commit();

 private:
  struct File;
  std::string path_, tmp_;
  int bitpix_;
  std::unique_ptr<File> file_;
};

// The cards of the check extension made from the image extension whose header is `header`:
// SExtractor copies that header whole; celeris its EXTNAME (and EXTVER), which name the
// extension, then what it writes in a one-image check image (the WCS, `with_wcs`, which is false
// for the one-pixel-per-mesh images).
std::vector<std::string> check_extension_cards(const FitsHeader& header, bool with_wcs);

}  // namespace celeris::extract
