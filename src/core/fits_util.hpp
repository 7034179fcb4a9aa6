// CFITSIO helpers private to the library: an owning file handle and status -> Error.
#pragma once

#include <fitsio.h>

#include <string>

namespace celeris {

// Throws celeris::Error with CFITSIO's message (first line) when status != 0.
void check_fits(int status, const std::string& context);

// Checks, before CFITSIO opens it, that `path` (CFITSIO's [..] suffix allowed) names a readable,
// plain or gzip FITS file whose headers pass check_fits_headers; throws celeris::Error.
void check_fits_input(const std::string& path);

class FitsFile {
 public:
  static FitsFile open_read(const std::string& path);
  static FitsFile create(const std::string& path);  // overwrites
  FitsFile(FitsFile&& o) noexcept : f_(o.f_) { o.f_ = nullptr; }
  FitsFile(const FitsFile&) = delete;
  FitsFile& operator=(const FitsFile&) = delete;
  ~FitsFile();
  fitsfile* get() const { return f_; }
  void close();  // throws on error, unlike the destructor

 private:
  explicit FitsFile(fitsfile* f) : f_(f) {}
  fitsfile* f_ = nullptr;
};

}  // namespace celeris
