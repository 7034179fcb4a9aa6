# test_xmatch checks celeris/healpix.hpp against the reference healpix_cxx (Debian
# libhealpix-cxx-dev) when pkg-config finds it; those tests are compiled out otherwise.
if(TARGET test_xmatch)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(HEALPIX_CXX QUIET IMPORTED_TARGET healpix_cxx)
  endif()
  if(HEALPIX_CXX_FOUND)
    target_link_libraries(test_xmatch PRIVATE PkgConfig::HEALPIX_CXX)
    target_compile_definitions(test_xmatch PRIVATE CELERIS_HAVE_HEALPIX_CXX=1)
  else()
    message(STATUS "healpix_cxx not found: test_xmatch skips the reference comparisons")
  endif()
endif()

# Identical pair sets and separations to astropy's search_around_sky (RA wrap, pole, self-match).
add_test(NAME xmatch.astropy
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/compare_astropy.py
                 $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/xmatch_astropy)
set_tests_properties(xmatch.astropy PROPERTIES LABELS "integration;xmatch" SKIP_RETURN_CODE 77
                     TIMEOUT 300)

# Identical pair sets and separations to STILTS tmatch2 (Debian package stilts): SDSS-like stripe,
# RA wrap, both poles, self-match. Skipped when stilts is not installed.
add_test(NAME xmatch.stilts
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/compare_stilts.py
                 $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/xmatch_stilts)
set_tests_properties(xmatch.stilts PROPERTIES LABELS "integration;xmatch" SKIP_RETURN_CODE 77
                     TIMEOUT 300)

# HATS catalogs (written with pyarrow in the test) against the same rows as CSV: byte-identical
# outputs in one process and under mpirun -n 1 and 2 (when built with MPI); bad catalogs refused.
# Skipped without pyarrow; without CELERIS_PARQUET it checks the one-line refusal, then skips.
add_test(NAME xmatch.hats
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/hats_identical.py
                 $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/xmatch_hats)
set_tests_properties(xmatch.hats PROPERTIES LABELS "integration;xmatch" SKIP_RETURN_CODE 77
                     TIMEOUT 300 RUN_SERIAL TRUE)

# HATS collections written by LSDB, matched by celeris and by LSDB's crossmatch: the same pairs.
# Skipped unless CELERIS_PYTHON imports lsdb (not in the CI venv; hats_lsdb.py says how to run it).
add_test(NAME xmatch.hats_lsdb
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/hats_lsdb.py
                 $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/xmatch_hats_lsdb)
set_tests_properties(xmatch.hats_lsdb PROPERTIES LABELS "integration;xmatch" SKIP_RETURN_CODE 77
                     TIMEOUT 300 RUN_SERIAL TRUE)

# The partition-wise HATS generator of the 1.23 B-row benchmark (bench/xmatch): a valid catalog,
# every row in its partition, independent of the thread count, the same count by three paths.
if(CELERIS_HAVE_PARQUET AND CELERIS_BENCH)
  add_test(NAME xmatch.hats_simulate
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/hats_simulate.py
                   $<TARGET_FILE:bench_simulate_hats> $<TARGET_FILE:celeris_cli>
                   ${CMAKE_CURRENT_BINARY_DIR}/xmatch_hats_simulate)
  set_tests_properties(xmatch.hats_simulate PROPERTIES LABELS "integration;xmatch"
                       SKIP_RETURN_CODE 77 TIMEOUT 300 RUN_SERIAL TRUE)
endif()

# mpirun -n 1, 2, 4 on CPU cores (oversubscribed on the 2-core CI machine): byte-identical outputs
# to the single-process run for every find mode, self-matches, --count; a failing rank fails the
# job naming its partition. Only with CELERIS_MPI; skipped when mpirun is absent.
if(CELERIS_HAVE_MPI)
  add_test(NAME xmatch.mpi
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/mpi_identical.py
                   $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/xmatch_mpi)
  set_tests_properties(xmatch.mpi PROPERTIES LABELS "integration;xmatch;mpi"
                       SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL TRUE)
  # The same with every rank on the GPU (ranks sharing the device's one GPU); skipped without one.
  add_test(NAME xmatch.mpi_gpu
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/xmatch/mpi_identical.py
                   $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/xmatch_mpi_gpu
                   --backend cuda --ranks 1,2,4)
  set_tests_properties(xmatch.mpi_gpu PROPERTIES LABELS "gpu;mpi" SKIP_RETURN_CODE 77
                       TIMEOUT 600 RUN_SERIAL TRUE)
endif()
