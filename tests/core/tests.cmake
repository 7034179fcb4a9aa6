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
