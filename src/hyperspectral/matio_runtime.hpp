// libmatio, loaded on the first use of a MATLAB file rather than linked: through HDF5 it brings
// libcurl, OpenSSL, Kerberos and a dozen more libraries whose loading would add milliseconds to
// the start of every celeris command (extract on a small frame takes about 20 ms in all).
#pragma once

#include <matio.h>

namespace celeris::hyperspectral {

struct MatioApi {
  decltype(&Mat_Open) open;
  decltype(&Mat_CreateVer) create_ver;
  decltype(&Mat_Close) close;
  decltype(&Mat_GetVersion) get_version;
  decltype(&Mat_Rewind) rewind;
  decltype(&Mat_VarRead) var_read;
  decltype(&Mat_VarReadNextInfo) var_read_next_info;
  decltype(&Mat_VarCreate) var_create;
  decltype(&Mat_VarWrite) var_write;
  decltype(&Mat_VarFree) var_free;
};

// The library's entry points; loads it on the first call (thread-safe). Throws celeris::Error
// naming the library when it cannot be loaded.
const MatioApi& matio();

}  // namespace celeris::hyperspectral
