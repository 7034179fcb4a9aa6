# DURATION_ANALYSIS (measure.cpp times each object's measurement): the column's header, type and
# unit as source-extractor's, its values finite, not negative, %9.4g, each below the run's time
# and summing below it times the threads (tests/extract/duration_analysis.py).
add_test(NAME extract.duration_analysis
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/duration_analysis.py
                 $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/duration_analysis)
set_tests_properties(extract.duration_analysis PROPERTIES
                     LABELS "integration;extract" SKIP_RETURN_CODE 77 TIMEOUT 300)
