#include "fits_util.hpp"

#include <sys/stat.h>

#include "celeris/error.hpp"

namespace celeris {

void check_fits(int status, const std::string& context) {
  if (!status) return;
  char text[FLEN_STATUS] = {0};
  fits_get_errstatus(status, text);
  fits_clear_errmsg();
  throw Error(context + ": " + text);
}

namespace {
std::string file_part(const std::string& path) {
  const size_t b = path.find('[');
  return b == std::string::npos ? path : path.substr(0, b);
}
}  // namespace

FitsFile FitsFile::open_read(const std::string& path) {
  const std::string file = file_part(path);
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) throw Error(file + ": no such file");
  if (S_ISDIR(st.st_mode)) throw Error(file + ": is a directory, not a FITS file");
  if (st.st_size == 0) throw Error(file + ": empty file, not a FITS file");
  fitsfile* f = nullptr;
  int status = 0;
  fits_open_file(&f, path.c_str(), READONLY, &status);
  if (status) {
    char text[FLEN_STATUS] = {0};
    fits_get_errstatus(status, text);
    fits_clear_errmsg();
    if (f) {
      int s2 = 0;
      fits_close_file(f, &s2);
    }
    if (status == BAD_HDU_NUM || status == URL_PARSE_ERROR || status == BAD_HDU_NUM + 0)
      throw Error(path + ": no such HDU (" + text + ")");
    if (status == UNKNOWN_REC || status == NO_SIMPLE || status == BAD_SIMPLE ||
        status == UNKNOWN_EXT)
      throw Error(file + ": not a FITS file (" + text + ")");
    throw Error(path + ": cannot open as FITS (" + text + ")");
  }
  return FitsFile(f);
}

FitsFile FitsFile::create(const std::string& path) {
  fitsfile* f = nullptr;
  int status = 0;
  const std::string bang = "!" + path;  // CFITSIO: overwrite an existing file
  fits_create_file(&f, bang.c_str(), &status);
  check_fits(status, path + ": cannot create");
  return FitsFile(f);
}

void FitsFile::close() {
  if (!f_) return;
  int status = 0;
  fits_close_file(f_, &status);
  f_ = nullptr;
  check_fits(status, "closing FITS file");
}

FitsFile::~FitsFile() {
  if (f_) {
    int status = 0;
    fits_close_file(f_, &status);
  }
}

}  // namespace celeris
