# CELERIS_PARQUET: Parquet input (HATS catalogs for `celeris xmatch`) through the Arrow C++
# libraries of the pip `pyarrow` wheel. Debian 12 packages neither libarrow nor libparquet; the
# wheel ships both (libarrow.so.N, libparquet.so.N) with their headers, built with the new
# libstdc++ ABI (_GLIBCXX_USE_CXX11_ABI=1, the g++ 12 default: their symbols name
# std::__cxx11::basic_string) against glibc 2.28 and GLIBCXX_3.4.22 at most, so Debian's g++ 12
# links them as they are (docs/xmatch.md, "HATS input").
# The wheel is found through CELERIS_PYTHON (the test venv scripts/build.sh makes), or
# CELERIS_PARQUET_PYTHON when given. Defines the target celeris_parquet and CELERIS_HAVE_PARQUET.
set(CELERIS_PARQUET AUTO CACHE STRING
    "Read HATS / Parquet catalogs through pyarrow's Arrow C++ libraries: AUTO (when found), ON or OFF")
set_property(CACHE CELERIS_PARQUET PROPERTY STRINGS AUTO ON OFF)
set(CELERIS_HAVE_PARQUET OFF)
if(NOT CELERIS_PARQUET STREQUAL "OFF")
  if(CELERIS_PARQUET_PYTHON)
    set(_celeris_py "${CELERIS_PARQUET_PYTHON}")
  elseif(CELERIS_PYTHON)
    set(_celeris_py "${CELERIS_PYTHON}")
  else()
    set(_celeris_py python3)
  endif()
  execute_process(
    COMMAND "${_celeris_py}" -c
            "import pyarrow; print(pyarrow.get_include()); print(pyarrow.get_library_dirs()[0]); print(pyarrow.__version__)"
    OUTPUT_VARIABLE _celeris_pa OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _celeris_pa_rc ERROR_QUIET)
  set(_celeris_why "${_celeris_py} cannot import pyarrow")
  if(_celeris_pa_rc EQUAL 0)
    string(REPLACE "\n" ";" _celeris_pa "${_celeris_pa}")
    list(GET _celeris_pa 0 _celeris_pa_inc)
    list(GET _celeris_pa 1 _celeris_pa_lib)
    list(GET _celeris_pa 2 _celeris_pa_version)
    # The wheel holds only the versioned sonames (libarrow.so.2600); linking them by full path
    # records that soname, and the build RPATH points at the wheel's directory.
    file(GLOB _celeris_arrow "${_celeris_pa_lib}/libarrow.so.[0-9]*")
    file(GLOB _celeris_parquet "${_celeris_pa_lib}/libparquet.so.[0-9]*")
    list(FILTER _celeris_arrow EXCLUDE REGEX "\\.so\\.[0-9]+\\.")
    list(FILTER _celeris_parquet EXCLUDE REGEX "\\.so\\.[0-9]+\\.")
    set(_celeris_why "no libarrow.so.N / libparquet.so.N in ${_celeris_pa_lib}")
    list(LENGTH _celeris_arrow _celeris_na)
    list(LENGTH _celeris_parquet _celeris_np)
    # The Arrow C++ API changes between major versions: only the one scripts/build.sh pins.
    string(REGEX MATCH "^[0-9]+" _celeris_pa_major "${_celeris_pa_version}")
    if(NOT _celeris_pa_major STREQUAL "26")
      set(_celeris_why "pyarrow ${_celeris_pa_version} is not the 26.x whose C++ API celeris uses")
      set(_celeris_na 0)
    endif()
    if(_celeris_na EQUAL 1 AND _celeris_np EQUAL 1 AND EXISTS "${_celeris_pa_inc}/parquet/arrow/reader.h")
      add_library(celeris_arrow SHARED IMPORTED)
      set_target_properties(celeris_arrow PROPERTIES IMPORTED_LOCATION "${_celeris_arrow}"
                            IMPORTED_NO_SONAME FALSE)
      add_library(celeris_parquet SHARED IMPORTED)
      set_target_properties(celeris_parquet PROPERTIES
        IMPORTED_LOCATION "${_celeris_parquet}"
        INTERFACE_INCLUDE_DIRECTORIES "${_celeris_pa_inc}"
        INTERFACE_LINK_LIBRARIES celeris_arrow)
      set(CELERIS_HAVE_PARQUET ON)
      message(STATUS "celeris: Parquet ON (pyarrow ${_celeris_pa_version}, ${_celeris_pa_lib})")
    endif()
  endif()
  if(NOT CELERIS_HAVE_PARQUET AND CELERIS_PARQUET STREQUAL "ON")
    message(FATAL_ERROR "CELERIS_PARQUET=ON but ${_celeris_why} (scripts/build.sh installs "
                        "pyarrow into build/venv; or pass -DCELERIS_PARQUET_PYTHON=...)")
  endif()
endif()
if(NOT CELERIS_HAVE_PARQUET)
  message(STATUS "celeris: Parquet OFF (HATS inputs refused)")
endif()
