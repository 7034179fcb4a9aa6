# celeris xmatch: HEALPix cross-match (include/celeris/healpix.hpp, include/celeris/xmatch.hpp).
target_sources(celeris PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/join.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/select.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/catalog.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/csv.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/chunked.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/partition_chunks.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/count.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/count_bins.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/count_pairs.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/count_cpu.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/sorted_count.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/frames.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/sexagesimal.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/text_catalogs.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/fits_positions.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/position_source.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/stream.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/hats_layout.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/hats_read.cpp)
# HATS catalogs are Parquet: read through pyarrow's Arrow C++ libraries when CELERIS_PARQUET
# found them (cmake/parquet.cmake), else every Parquet read is refused with one line.
if(CELERIS_HAVE_PARQUET)
  target_sources(celeris PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/parquet_file.cpp)
  target_link_libraries(celeris PRIVATE celeris_parquet)
else()
  target_sources(celeris PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/parquet_missing.cpp)
endif()
# VOTable inputs are parsed with expat (Debian libexpat1-dev).
find_package(EXPAT REQUIRED)
target_link_libraries(celeris PRIVATE EXPAT::EXPAT)
if(CELERIS_HAVE_CUDA)
  # The GPU join (Thrust sort + count/write kernels over the same healpix.hpp functions). No fused
  # multiply-add, so that chords, pixels and hence the pairs are bit-identical to the CPU join's.
  target_sources(celeris PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/join_cuda.cu)
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/xmatch/join_cuda.cu
    PROPERTIES COMPILE_OPTIONS "-fmad=false")
endif()
if(CELERIS_HAVE_MPI)
  # The distributed cross-match (mpirun -n N celeris xmatch): only built with MPI, so that the
  # library builds without it.
  target_sources(celeris PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/mpi/session.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/mpi/exchange.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/mpi/distribute.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/mpi/hats_partitions.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/mpi/driver.cpp)
  target_include_directories(celeris PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/xmatch)
  target_link_libraries(celeris PUBLIC MPI::MPI_CXX)
  target_compile_definitions(celeris PUBLIC CELERIS_HAVE_MPI=1)
endif()
