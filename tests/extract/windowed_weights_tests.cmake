# The windowed measurements (XWIN_IMAGE ... FLUX_WIN, FLAGS_WIN; stages/measure_windowed.cpp)
# with weight maps against source-extractor: each pixel's variance in the errors, WEIGHT_GAIN,
# bad weights masked (mirrored with MASK_TYPE CORRECT); every row identical, and the issue's
# acceptance on XWIN_IMAGE / YWIN_IMAGE (median relative difference <= 1e-4). About 1-4 s each.
# (Dual-image pairs with weights and WIN columns: extract.parity.dual_image_*, weights_tests.cmake.)
set(CELERIS_WIN_W_PARAMS
  XWIN_IMAGE,YWIN_IMAGE,ERRX2WIN_IMAGE,ERRY2WIN_IMAGE,ERRXYWIN_IMAGE,X2WIN_IMAGE,Y2WIN_IMAGE,XYWIN_IMAGE,AWIN_IMAGE,ERRAWIN_IMAGE,THETAWIN_IMAGE,FLUX_WIN,FLUXERR_WIN,SNR_WIN,FLAGS_WIN,NITER_WIN,FLUXERR_AUTO)
set(M67 ${CELERIS_TEST_DATA}/images/M6707HH.fits)
# name; image; WEIGHT_TYPE; then weights_parity.py options and, after --, -KEY VALUE pairs
foreach(variant
    "M67_map_weight;${M67};MAP_WEIGHT;--crop;100,200,700,600;--;-GAIN;4"
    "M67_map_rms_blank;${M67};MAP_RMS;--crop;100,200,700,600;--;-WEIGHT_THRESH;5;-MASK_TYPE;BLANK"
    "M67_map_weight_no_weight_gain;${M67};MAP_WEIGHT;--crop;100,200,700,600;--;-WEIGHT_GAIN;N;-GAIN;2.5;-INTERP_TYPE;NONE"
    "HorseHead_map_weight;${CELERIS_TEST_DATA}/images/HorseHead.fits;MAP_WEIGHT;--;-GAIN;3"
    "sep_emmi_background;${CELERIS_TEST_DATA}/images/sep_emmi_image.fits;BACKGROUND"
    "sim_separate_rms_weight_mask_none;sim:small;MAP_RMS,MAP_WEIGHT;--;-INTERP_TYPE;NONE,ALL;-MASK_TYPE;NONE;-GAIN;2")
  list(POP_FRONT variant name image type)
  add_test(NAME extract.parity.windowed_weights_${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/weights_parity.py
                   $<TARGET_FILE:celeris_cli> ${image}
                   ${CMAKE_CURRENT_BINARY_DIR}/parity/windowed_weights_${name} ${type}
                   --rows-frac 1.0 --params ${CELERIS_WIN_W_PARAMS}
                   --col-tol XWIN_IMAGE=1e-4 --col-tol YWIN_IMAGE=1e-4 ${variant})
  set_tests_properties(extract.parity.windowed_weights_${name} PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
