# Core integration tests. The robustness unit tests (fits_robust_test.cpp) write gzip files with
# zlib directly.
find_package(ZLIB REQUIRED)
target_link_libraries(test_core PRIVATE ZLIB::ZLIB)

# The README's first command, run part only (simulate, extract, print the first objects; no
# install or build): it must exit 0 (it exited 141 when `grep | head` met SIGPIPE).
add_test(NAME core.demo_run
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/demo.sh --run-only
                 $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/demo)
set_tests_properties(core.demo_run PROPERTIES LABELS "integration;core" TIMEOUT 300)

# The CUDA layer on a GPU (tests/core/cuda_layer_gpu_test.cu): its own executable, a .cu compiled
# by nvcc (the tests launch kernels), labelled "core" and "gpu"; every test skips without a device.
# gtest_add_tests (names read from the source at configure time) rather than discovery, so that
# the tests can be given two labels.
if(CELERIS_HAVE_CUDA)
  add_executable(test_core_gpu ${CMAKE_CURRENT_SOURCE_DIR}/core/cuda_layer_gpu_test.cu
                               ${CMAKE_CURRENT_SOURCE_DIR}/core/cr_math_gpu_test.cu
                               ${CMAKE_CURRENT_SOURCE_DIR}/core/glibc_float_math_gpu_test.cu
                               ${CMAKE_CURRENT_SOURCE_DIR}/core/stored_pixels_gpu_test.cu
                               ${CMAKE_CURRENT_SOURCE_DIR}/core/table_ascii_gpu_test.cu)
  # core/cr_math.hpp's exact sums need every product rounded on its own, as on the host.
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/core/cr_math_gpu_test.cu
                              ${CMAKE_CURRENT_SOURCE_DIR}/core/glibc_float_math_gpu_test.cu
                              PROPERTIES COMPILE_OPTIONS --fmad=false)
  target_link_libraries(test_core_gpu PRIVATE celeris GTest::gtest_main)
  target_include_directories(test_core_gpu PRIVATE ${PROJECT_SOURCE_DIR}/src)
  gtest_add_tests(TARGET test_core_gpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/core/cuda_layer_gpu_test.cu
                  ${CMAKE_CURRENT_SOURCE_DIR}/core/cr_math_gpu_test.cu
                  ${CMAKE_CURRENT_SOURCE_DIR}/core/glibc_float_math_gpu_test.cu
                  ${CMAKE_CURRENT_SOURCE_DIR}/core/stored_pixels_gpu_test.cu
                  ${CMAKE_CURRENT_SOURCE_DIR}/core/table_ascii_gpu_test.cu
                  TEST_LIST celeris_core_gpu_tests)
  set_tests_properties(${celeris_core_gpu_tests} PROPERTIES LABELS "core;gpu"
                       SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endif()

# `celeris simulate image|catalog|cube` outputs pinned by their hashes (the one simulation module).
add_test(NAME SimulateOutputsKeepTheirBytes
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/core/simulate_bytes.sh
                 ${PROJECT_BINARY_DIR}/bin/celeris)
set_tests_properties(SimulateOutputsKeepTheirBytes PROPERTIES LABELS core)

# core/cr_math.hpp: exact products and sums (no contraction); against __float128 where GCC's
# libquadmath is there (bench/extract/CMakeLists.txt's check).
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/core/cr_math_test.cpp
                            ${CMAKE_CURRENT_SOURCE_DIR}/core/glibc_float_math_test.cpp
                            PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_LIBRARIES quadmath)
check_cxx_source_compiles("#include <quadmath.h>
int main() { return static_cast<int>(logq(static_cast<__float128>(2))); }" CELERIS_TESTS_HAVE_QUADMATH)
unset(CMAKE_REQUIRED_LIBRARIES)
if(CELERIS_TESTS_HAVE_QUADMATH)
  target_compile_definitions(test_core PRIVATE CELERIS_TEST_QUADMATH)
  target_link_libraries(test_core PRIVATE quadmath)
endif()
