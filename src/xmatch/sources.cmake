# celeris xmatch: HEALPix cross-match (include/celeris/healpix.hpp, include/celeris/xmatch.hpp).
target_sources(celeris PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/join.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/select.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/catalog.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/csv.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/chunked.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/fits_positions.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/stream.cpp)
if(CELERIS_HAVE_CUDA)
  # The GPU join (Thrust sort + count/write kernels over the same healpix.hpp functions). No fused
  # multiply-add, so that chords, pixels and hence the pairs are bit-identical to the CPU join's.
  target_sources(celeris PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/join_cuda.cu)
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/xmatch/join_cuda.cu
    PROPERTIES COMPILE_OPTIONS "-fmad=false")
endif()
