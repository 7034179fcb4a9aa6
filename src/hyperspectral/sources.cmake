# Hyperspectral module: cube I/O (ENVI, MATLAB via matio, FITS), spatial preprocessing (SPP),
# cube simulation. Included from src/CMakeLists.txt.
find_package(PkgConfig REQUIRED)
pkg_check_modules(MATIO REQUIRED IMPORTED_TARGET matio)
target_sources(celeris PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/cube.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/envi.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/mat.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/fits_cube.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/spp.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/spp_reference.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/simulate_cube.cpp)
target_link_libraries(celeris PUBLIC PkgConfig::MATIO)
if(CELERIS_HAVE_CUDA)
  target_sources(celeris PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/spp_cuda.cu)
else()
  target_sources(celeris PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/hyperspectral/spp_cuda_stub.cpp)
endif()
