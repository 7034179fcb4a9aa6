# Extraction integration tests: CLI error handling, and catalogs compared object by object with
# Debian's source-extractor (tests/extract/parity.py; skipped when source-extractor or the
# shared images are absent).
add_test(NAME extract.cli_errors
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/extract/cli_errors.sh $<TARGET_FILE:celeris_cli>)
set_tests_properties(extract.cli_errors PROPERTIES LABELS "integration;extract")

# Check images (CHECKIMAGE_TYPE) against source-extractor's, pixel for pixel.
add_test(NAME extract.check_images
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/check_images.py
                 $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/check_images)
set_tests_properties(extract.check_images PROPERTIES LABELS "integration;extract"
                     SKIP_RETURN_CODE 77 TIMEOUT 300)

# Cases that meet the acceptance of the extraction issue (recall/precision >= 99.5%, median
# FLUX_ISO <= 1e-4, FLUX_AUTO <= 1e-3, FLAGS >= 99%) with SExtractor's defaults. The one that
# does not (gc_bolocam_gps: SExtractor reads its LONPOLEA card as LONPOLE, see docs/extract.md)
# is run by scripts/parity-report.sh, which prints the whole matrix; without the LONPOLEA and
# LATPOLEA cards it agrees exactly, a ctest below.
set(CELERIS_PARITY_CASES
  sim:sparse sim:crowded sim:nan sim:saturated sim:border sim:strips)
foreach(image sep_emmi_image HorseHead M13_blue_0001 M13_blue_0002 M13_blue_0003 M6707HH gc_2mass_j gc_2mass_k gc_msx_e
              spitzer_example_image)
  list(APPEND CELERIS_PARITY_CASES ${CELERIS_TEST_DATA}/images/${image}.fits)
endforeach()
# Every row identical (rows= 1.0) on every case but gc_2mass_k (one object of 3927 differs, see
# docs/extract.md); the issue's own thresholds are far looser.
foreach(case ${CELERIS_PARITY_CASES})
  get_filename_component(name ${case} NAME_WE)
  string(REPLACE "sim:" "sim_" name ${name})
  set(rows_frac 1.0)
  if(name STREQUAL "gc_2mass_k")
    set(rows_frac 0.999)
  endif()
  add_test(NAME extract.parity.${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/parity.py
                   $<TARGET_FILE:celeris_cli> ${case} ${CMAKE_CURRENT_BINARY_DIR}/parity/${name}
                   --rows-frac ${rows_frac})
  set_tests_properties(extract.parity.${name} PROPERTIES LABELS "integration;extract;parity"
                       SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
# PHOT_AUTOAPERS (minimum Kron search and MAG_AUTO diameters): on a frame taller than SExtractor's
# line buffer, so that the larger growth-curve box of objects measured after the scan meets the
# buffer's first row (FLAGS 16), and on the 3000^2 simulation.
foreach(case ${CELERIS_TEST_DATA}/images/M6707HH.fits sim:strips)
  get_filename_component(name ${case} NAME_WE)
  string(REPLACE "sim:" "sim_" name ${name})
  add_test(NAME extract.parity.${name}_autoapers
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/parity.py
                   $<TARGET_FILE:celeris_cli> ${case}
                   ${CMAKE_CURRENT_BINARY_DIR}/parity/${name}_autoapers --rows-frac 1.0
                   -- -PHOT_AUTOAPERS 12,20)
  set_tests_properties(extract.parity.${name}_autoapers PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
add_test(NAME extract.parity.gc_bolocam_gps_without_LONPOLEA
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/parity.py
                 $<TARGET_FILE:celeris_cli> ${CELERIS_TEST_DATA}/images/gc_bolocam_gps.fits
                 ${CMAKE_CURRENT_BINARY_DIR}/parity/gc_bolocam_gps_without_LONPOLEA
                 --drop-cards LONPOLEA,LATPOLEA)
set_tests_properties(extract.parity.gc_bolocam_gps_without_LONPOLEA PROPERTIES
                     LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 600)
