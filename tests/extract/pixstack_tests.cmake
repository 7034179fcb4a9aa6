# SExtractor's pixel stack (MEMORY_PIXSTACK; src/extract/sextractor/pixel_stack.hpp) overflowing,
# every row identical to source-extractor's (FLAGS 128, the victims' lost pixels, NUMBERs):
# - the 1000 x 1000 M6707HH crop with a MAP_WEIGHT map, ABSOLUTE 30, FILTER N: the default stack
#   (300000) overflows once at 323,715 (4404 objects; celeris without the model gave 4183);
# - the 1024^2 crowded simulation at 0.05 sigma with a stack of 20000: 43 overflows;
# - sim:border at 0.5 sigma with the smallest stack SExtractor accepts (1000): one.
# About 4, 5 and 1 s.
add_test(NAME extract.parity.weights_M67_pixstack_overflow
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/weights_parity.py
                 $<TARGET_FILE:celeris_cli> ${CELERIS_TEST_DATA}/images/M6707HH.fits
                 ${CMAKE_CURRENT_BINARY_DIR}/parity/weights_M67_pixstack_overflow MAP_WEIGHT
                 --rows-frac 1.0 --crop 0,0,1000,1000 -- -THRESH_TYPE ABSOLUTE -DETECT_THRESH 30
                 -ANALYSIS_THRESH 30 -FILTER N)
foreach(variant "sim_pixstack;sim:pixstack;-DETECT_THRESH;0.05;-ANALYSIS_THRESH;0.05;-MEMORY_PIXSTACK;20000"
                "sim_border_pixstack;sim:border;-DETECT_THRESH;0.5;-ANALYSIS_THRESH;0.5;-MEMORY_PIXSTACK;1000")
  list(POP_FRONT variant name case)
  add_test(NAME extract.parity.${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/parity.py
                   $<TARGET_FILE:celeris_cli> ${case} ${CMAKE_CURRENT_BINARY_DIR}/parity/${name}
                   --rows-frac 1.0 -- ${variant})
endforeach()
set_tests_properties(extract.parity.weights_M67_pixstack_overflow extract.parity.sim_pixstack
                     extract.parity.sim_border_pixstack PROPERTIES
                     LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
