#include "fits_util.hpp"

#include <sys/stat.h>

#include <cstdio>

#include "celeris/error.hpp"
#include "fits_guard.hpp"

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

void check_fits_input(const std::string& path) {
  const std::string file = file_part(path);
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) throw Error(file + ": no such file");
  if (S_ISDIR(st.st_mode)) throw Error(file + ": is a directory, not a FITS file");
  if (st.st_size == 0) throw Error(file + ": empty file, not a FITS file");
  // A FITS file starts with "SIMPLE  ="; gzip, bzip2 and Unix-compress files by their magic.
  char head[9] = {0};
  FILE* fp = std::fopen(file.c_str(), "rb");
  if (!fp) throw Error(file + ": cannot read (permission denied?)");
  const size_t n = std::fread(head, 1, 9, fp);
  std::fclose(fp);
  const auto* u = reinterpret_cast<const unsigned char*>(head);
  const bool gzip = n >= 2 && u[0] == 0x1f && u[1] == 0x8b;
  // The header check (check_fits_headers) reads gzip through zlib; the other compressions
  // would reach CFITSIO's parser unchecked, so they are refused.
  if (n >= 2 && ((u[0] == 0x1f && u[1] == 0x9d) || (u[0] == 'B' && u[1] == 'Z')))
    throw Error(file +
                ": compressed with bzip2 or Unix compress; celeris reads plain and gzip "
                "FITS files (decompress it first)");
  if (!gzip && (n < 9 || std::string(head, 9) != "SIMPLE  ="))
    throw Error(file + ": not a FITS file (no SIMPLE card at the start)");
  check_fits_headers(file);
}

FitsFile FitsFile::open_read(const std::string& path) {
  check_fits_input(path);
  const std::string file = file_part(path);
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
    if (path.find('[') != std::string::npos &&
        (status == BAD_HDU_NUM || status == END_OF_FILE || status == URL_PARSE_ERROR))
      throw Error(path + ": no such HDU in " + file + " (" + text + ")");
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
