#include "matio_runtime.hpp"

#include <dlfcn.h>

#include <string>

#include "celeris/error.hpp"

namespace celeris::hyperspectral {

namespace {

template <typename F>
void resolve(void* lib, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, name));
  if (!out) throw Error(std::string(CELERIS_MATIO_SONAME ": missing symbol ") + name);
}

MatioApi load() {
  void* lib = dlopen(CELERIS_MATIO_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw Error(std::string("cannot load " CELERIS_MATIO_SONAME " (needed for MATLAB files): ") +
                (why ? why : "unknown error"));
  }
  MatioApi api{};
  resolve(lib, "Mat_Open", api.open);
  resolve(lib, "Mat_CreateVer", api.create_ver);
  resolve(lib, "Mat_Close", api.close);
  resolve(lib, "Mat_GetVersion", api.get_version);
  resolve(lib, "Mat_Rewind", api.rewind);
  resolve(lib, "Mat_VarRead", api.var_read);
  resolve(lib, "Mat_VarReadNextInfo", api.var_read_next_info);
  resolve(lib, "Mat_VarCreate", api.var_create);
  resolve(lib, "Mat_VarWrite", api.var_write);
  resolve(lib, "Mat_VarFree", api.var_free);
  return api;  // the library stays loaded for the life of the process
}

}  // namespace

const MatioApi& matio() {
  static const MatioApi api = load();
  return api;
}

}  // namespace celeris::hyperspectral
