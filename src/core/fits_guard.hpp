// A structural check of a FITS file's headers, done before CFITSIO or wcslib parse them.
//
// CFITSIO 4.2 copies some card values into fixed buffers (a 70-character unquoted TTYPEn
// overflows its column-name buffer and aborts the process), and wcslib's header lexer loops or
// crashes on bytes outside printable ASCII. Headers also state sizes (NAXISn, PCOUNT, GCOUNT)
// that celeris allocates from. This check reads the headers itself (through zlib, so gzip files
// are checked as CFITSIO will see them) and refuses, with one line naming the file, the HDU, the
// card and the problem, any header that is not what the FITS standard allows in these respects.
#pragma once

#include <string>

namespace celeris {

// Throws celeris::Error when a header of `file` (a path without CFITSIO's [..] suffix) has:
// a byte outside printable ASCII (FITS 4.0, section 4.1.2); a value card whose string lacks its
// closing quote or whose unquoted value is longer than 60 characters (no FITS number, logical or
// complex value is); a missing END; a malformed BITPIX, NAXIS, NAXISn, PCOUNT or GCOUNT; or data
// that the file is too short to hold (a truncated file, or sizes that are not real).
void check_fits_headers(const std::string& file);

}  // namespace celeris
