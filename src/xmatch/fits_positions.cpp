// fits_positions: the RA/Dec columns of a FITS table read block by block through CFITSIO, so
// that a catalog larger than memory can be matched in chunks (chunked.cpp) without loading it.
#include <fitsio.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/xmatch.hpp"
#include "core/fits_util.hpp"

namespace celeris::xmatch {

namespace {

std::string fits_error(const std::string& what, int status) {
  char text[FLEN_STATUS] = {0};
  fits_get_errstatus(status, text);
  fits_clear_errmsg();
  return what + " (" + text + ")";
}

// An open table HDU; closed on scope exit.
class TableFile {
 public:
  explicit TableFile(const std::string& path) : path_(path) {
    check_fits_input(path);  // what CFITSIO would overflow on is refused before it parses
    int status = 0;
    fits_open_file(&f_, path.c_str(), READONLY, &status);
    if (status) {
      close();  // CFITSIO may hand back a half-open file
      throw Error(fits_error(path + ": cannot open as FITS", status));
    }
    try {
      move_to_table(path);
    } catch (...) {
      close();  // the destructor does not run when the constructor throws
      throw;
    }
  }
  void close() {
    int status = 0;
    if (f_) fits_close_file(f_, &status);
    f_ = nullptr;
  }
  void move_to_table(const std::string& path) {
    int status = 0;
    int type = 0;
    fits_get_hdu_type(f_, &type, &status);
    if (type == IMAGE_HDU && path.find('[') == std::string::npos) {
      // No HDU named: the first table, skipping SExtractor's LDAC_IMHEAD (as read_fits_table).
      int nhdu = 0;
      fits_get_num_hdus(f_, &nhdu, &status);
      bool found = false;
      for (int h = 2; h <= nhdu && !found && !status; ++h) {
        fits_movabs_hdu(f_, h, &type, &status);
        char extname[FLEN_VALUE] = {0};
        int s2 = 0;
        fits_read_key(f_, TSTRING, "EXTNAME", extname, nullptr, &s2);
        found = type != IMAGE_HDU && std::string(extname) != "LDAC_IMHEAD";
      }
      if (status) throw Error(fits_error(path, status));
      if (!found) throw Error(path + ": no table HDU found");
    } else if (type == IMAGE_HDU) {
      throw Error(path + ": the HDU is an image, not a table");
    }
    if (status) throw Error(fits_error(path, status));
  }
  ~TableFile() { close(); }
  TableFile(const TableFile&) = delete;
  TableFile& operator=(const TableFile&) = delete;
  fitsfile* get() const { return f_; }

  size_t rows() const {
    int status = 0;
    LONGLONG n = 0;
    fits_get_num_rowsll(f_, &n, &status);
    if (status) throw Error(fits_error(path_, status));
    return size_t(n);
  }
  int column(const std::string& name) const {
    int status = 0, col = 0;
    fits_get_colnum(f_, CASEINSEN, const_cast<char*>(name.c_str()), &col, &status);
    if (status) {
      fits_clear_errmsg();
      throw Error(path_ + ": no column " + name);
    }
    return col;
  }

 private:
  std::string path_;
  fitsfile* f_ = nullptr;
};

class FitsPositions final : public PositionSource {
 public:
  FitsPositions(std::string path, std::string ra, std::string dec, size_t block)
      : path_(std::move(path)),
        ra_(std::move(ra)),
        dec_(std::move(dec)),
        block_(std::max<size_t>(block, 1)) {
    TableFile f(path_);  // fail early: file, HDU and columns
    rows_ = f.rows();
    f.column(ra_);
    f.column(dec_);
  }
  size_t rows() const override { return rows_; }
  void scan(const Visit& visit) const override { scan_rows(0, rows_, visit); }
  void scan_rows(size_t begin, size_t count, const Visit& visit) const override {
    TableFile f(path_);
    const int cra = f.column(ra_), cdec = f.column(dec_);
    std::vector<double> ra, dec;
    double nan = std::numeric_limits<double>::quiet_NaN();
    const size_t end = std::min(rows_, begin + count);
    for (size_t first = begin; first < end; first += block_) {
      const size_t n = std::min(block_, end - first);
      ra.resize(n);
      dec.resize(n);
      int status = 0, anynul = 0;
      fits_read_col(f.get(), TDOUBLE, cra, LONGLONG(first + 1), 1, LONGLONG(n), &nan, ra.data(),
                    &anynul, &status);
      fits_read_col(f.get(), TDOUBLE, cdec, LONGLONG(first + 1), 1, LONGLONG(n), &nan, dec.data(),
                    &anynul, &status);
      if (status) throw Error(fits_error(path_ + ": reading " + ra_ + "/" + dec_, status));
      for (size_t k = 0; k < n; ++k) check_sky_position(ra[k], dec[k], first + k, path_, ra_, dec_);
      visit(first, ra.data(), dec.data(), n);
    }
  }

 private:
  std::string path_, ra_, dec_;
  size_t block_, rows_ = 0;
};

}  // namespace

std::unique_ptr<PositionSource> fits_positions(const std::string& path, const std::string& ra,
                                               const std::string& dec, size_t block_rows) {
  return std::make_unique<FitsPositions>(path, ra, dec, block_rows);
}

}  // namespace celeris::xmatch
