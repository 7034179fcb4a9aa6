# Hyperspectral module: cube I/O (ENVI, MATLAB via matio, FITS), spatial preprocessing (SPP),
# cube simulation. Included from src/CMakeLists.txt.
find_package(PkgConfig REQUIRED)
pkg_check_modules(MATIO REQUIRED IMPORTED_TARGET GLOBAL matio)
target_sources(celeris PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/cube.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/envi.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/mat.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/matio_runtime.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/fits_cube.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/spp.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/spp_reference.cpp
)
# libmatio is opened with dlopen on first use (matio_runtime.cpp): only its header is needed
# here, and its soname (libmatio.so.N) is taken from the library pkg-config found.
find_library(CELERIS_MATIO_LIBRARY NAMES matio HINTS ${MATIO_LIBRARY_DIRS} REQUIRED)
get_filename_component(celeris_matio_real ${CELERIS_MATIO_LIBRARY} REALPATH)
get_filename_component(celeris_matio_name ${celeris_matio_real} NAME)
string(REGEX MATCH "^libmatio\\.so\\.[0-9]+" CELERIS_MATIO_SONAME "${celeris_matio_name}")
if(NOT CELERIS_MATIO_SONAME)
  set(CELERIS_MATIO_SONAME ${celeris_matio_real})
endif()
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/matio_runtime.cpp
  PROPERTIES COMPILE_DEFINITIONS CELERIS_MATIO_SONAME="${CELERIS_MATIO_SONAME}")
target_include_directories(celeris PRIVATE ${MATIO_INCLUDE_DIRS})
target_link_libraries(celeris PUBLIC ${CMAKE_DL_LIBS})
if(CELERIS_HAVE_CUDA)
  target_sources(celeris PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/spp_cuda.cu)
else()
  target_sources(celeris PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/spp_cuda_stub.cpp)
endif()
