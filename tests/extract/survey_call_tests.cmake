# Issue 19's own call, as a survey pipeline makes it: a weight map (or RMS map) and flag maps with
# the windowed centroids, FLUX_PETRO, MU_MAX, CLASS_STAR, FLAGS_WIN and IMAFLAGS_ISO in one
# .param list, and the same columns in dual-image mode, against source-extractor. Every row
# identical, and the issue's acceptance checked column by column as it states it (median
# relative difference: FLUX_AUTO and FLUX_PETRO <= 1e-3, XWIN/YWIN_IMAGE and MU_MAX <= 1e-4,
# CLASS_STAR <= 1e-2; compare_catalogs.py also requires recall and precision >= 99.5% and FLAGS
# equal for >= 99%). The single-feature cases are in weights_tests.cmake, petro_tests.cmake and
# tests.cmake (flag maps); this is their combination. About 2-4 s each.
set(CELERIS_SURVEY_PARAMS
  XWIN_IMAGE,YWIN_IMAGE,FLUX_PETRO,FLUXERR_PETRO,MU_MAX,CLASS_STAR,FLAGS_WIN,ERRAWIN_IMAGE,FLUX_BEST)
set(CELERIS_SURVEY_TOLS
  --col-tol FLUX_AUTO=1e-3 --col-tol FLUX_PETRO=1e-3 --col-tol XWIN_IMAGE=1e-4
  --col-tol YWIN_IMAGE=1e-4 --col-tol MU_MAX=1e-4 --col-tol CLASS_STAR=1e-2)
# name; image; WEIGHT_TYPE; then weights_parity.py options and, after --, -KEY VALUE pairs
foreach(variant
    "M67_map_weight_flags;${CELERIS_TEST_DATA}/images/M6707HH.fits;MAP_WEIGHT;--crop;100,200,700,600;--flag-maps;1;--;-GAIN;4"
    "M67_map_rms_two_flag_maps;${CELERIS_TEST_DATA}/images/M6707HH.fits;MAP_RMS;--crop;300,100,600,700;--flag-maps;2;--;-WEIGHT_THRESH;5;-FLAG_TYPE;MAX"
    "HorseHead_map_weight_flags;${CELERIS_TEST_DATA}/images/HorseHead.fits;MAP_WEIGHT;--flag-maps;1;--;-FLAG_TYPE;OR;-GAIN;2"
    "sim_separate_weights_flags;sim:small;MAP_WEIGHT,MAP_RMS;--flag-maps;1;--;-FLAG_TYPE;MOST")
  list(POP_FRONT variant name image type)
  # IMAFLAGS_ISO has one element per flag map: as many as the case writes.
  list(FIND variant "--flag-maps" at)
  math(EXPR at "${at} + 1")
  list(GET variant ${at} nflag)
  add_test(NAME extract.parity.survey_call_${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/weights_parity.py
                   $<TARGET_FILE:celeris_cli> ${image}
                   ${CMAKE_CURRENT_BINARY_DIR}/parity/survey_call_${name} ${type} --rows-frac 1.0
                   --params "${CELERIS_SURVEY_PARAMS},IMAFLAGS_ISO(${nflag}),NIMAFLAGS_ISO(${nflag})"
                   ${CELERIS_SURVEY_TOLS} ${variant} -STARNNW_NAME ${CELERIS_NNW})
  set_tests_properties(extract.parity.survey_call_${name} PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
# Dual-image mode: the 2MASS J/K pair (one field, two bands) with a weight map per image.
add_test(NAME extract.parity.survey_call_dual_gc_2mass_j_k_weights
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/weights_dual_image_parity.py
                 $<TARGET_FILE:celeris_cli> ${CELERIS_TEST_DATA}/images/gc_2mass_j.fits
                 ${CELERIS_TEST_DATA}/images/gc_2mass_k.fits
                 ${CMAKE_CURRENT_BINARY_DIR}/parity/survey_call_dual_gc_2mass_j_k_weights
                 --rows-frac 1.0 --params ${CELERIS_SURVEY_PARAMS} ${CELERIS_SURVEY_TOLS}
                 --weights MAP_WEIGHT,MAP_WEIGHT -- -GAIN 2 -STARNNW_NAME ${CELERIS_NNW})
set_tests_properties(extract.parity.survey_call_dual_gc_2mass_j_k_weights PROPERTIES
                     LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
