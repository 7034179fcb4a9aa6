#include "extract/output/check_image_extensions.hpp"

#include "celeris/error.hpp"
#include "celeris/table.hpp"
#include "core/fits_util.hpp"

namespace celeris::extract {

struct CheckImageFileWriter::File {
  FitsFile fits;
};

CheckImageFileWriter::CheckImageFileWriter(const std::string& path, int n_extensions, int bitpix)
    : path_(path), tmp_(temporary_sibling(path)), bitpix_(bitpix) {
  try {
    file_ = std::make_unique<File>(File{FitsFile::create(tmp_)});
    int status = 0;
    // The primary HDU: no data (BITPIX 8, NAXIS 0, EXTEND), then NEXTEND, as check.c's "pure"
    // primary HDU.
    fits_create_img(file_->fits.get(), BYTE_IMG, 0, nullptr, &status);
    long next = n_extensions;
    fits_write_key(file_->fits.get(), TLONG, "NEXTEND", &next, "Number of extensions", &status);
    check_fits(status, path_);
  } catch (const Error& e) {
    file_.reset();
    discard_temporary(tmp_);
    throw Error(with_output_name(e.what(), tmp_, path_));
  }
}

CheckImageFileWriter::~CheckImageFileWriter() {
  if (!file_) return;  // committed, or never opened
  file_.reset();
  discard_temporary(tmp_);
}

void CheckImageFileWriter::append(ImageView<const float> pixels,
                                  const std::vector<std::string>& cards) {
  int status = 0;
  fitsfile* f = file_->fits.get();
  long naxes[2] = {static_cast<long>(pixels.width), static_cast<long>(pixels.height)};
  fits_create_img(f, bitpix_, 2, naxes, &status);
  for (const auto& card : cards) fits_write_record(f, card.c_str(), &status);
  fits_write_img(f, TFLOAT, 1, pixels.size(), const_cast<float*>(pixels.data), &status);
  if (status) {
    try {
      check_fits(status, path_);
    } catch (const Error& e) {
      throw Error(with_output_name(e.what(), tmp_, path_));
    }
  }
}

void CheckImageFileWriter::commit() {
  try {
    file_->fits.close();
  } catch (const Error& e) {
    throw Error(with_output_name(e.what(), tmp_, path_));
  }
  file_.reset();
  commit_temporary(tmp_, path_);
}

std::vector<std::string> check_extension_cards(const FitsHeader& header, bool with_wcs) {
  std::vector<std::string> out;
  for (const std::string& card : header.cards()) {
    const std::string key = card.substr(0, 8);
    if (key == "EXTNAME " || key == "EXTVER  ") out.push_back(card);
  }
  if (with_wcs)
    for (std::string& card : wcs_cards(header)) out.push_back(std::move(card));
  return out;
}

}  // namespace celeris::extract
