# Weight maps (WEIGHT_TYPE, WEIGHT_IMAGE, WEIGHT_THRESH, WEIGHT_GAIN, RESCALE_WEIGHTS, INTERP_*;
# stages/weights.cpp) against source-extractor: crops of the shared images and a simulation with
# a generated map (a smooth noise gradient, rectangles of bad pixels over objects, sky and one
# border), every row identical (tests/extract/weights_parity.py); one map for both, and separate
# detection and measurement maps. About 1-2 s each.
set(CELERIS_W_PARAMS
  THRESHOLD,FLUX_ISOCOR,FLUXERR_ISOCOR,MU_THRESHOLD,ISO0,ISO4,FLUXERR_APER,MAGERR_AUTO,FLUX_BEST,FLUXERR_BEST,XPEAK_IMAGE,FLUX_MAX,BACKGROUND)
set(M67 ${CELERIS_TEST_DATA}/images/M6707HH.fits)
# name; image; WEIGHT_TYPE; then weights_parity.py options and, after --, -KEY VALUE pairs
foreach(variant
    "M67_map_weight;${M67};MAP_WEIGHT;--crop;100,200,700,600;--;-GAIN;4"
    "M67_map_weight_thresh;${M67};MAP_WEIGHT;--crop;100,200,700,600;--;-WEIGHT_THRESH;0.6;-INTERP_MAXXLAG;4;-INTERP_MAXYLAG;3"
    "M67_map_rms;${M67};MAP_RMS;--crop;100,200,700,600;--;-WEIGHT_THRESH;5;-MASK_TYPE;BLANK"
    "M67_map_var_no_rescale;${M67};MAP_VAR;--crop;100,200,700,600;--;-RESCALE_WEIGHTS;N;-GAIN;2.5"
    "M67_map_weight_no_weight_gain;${M67};MAP_WEIGHT;--crop;100,200,700,600;--;-WEIGHT_GAIN;N;-GAIN;2.5;-INTERP_TYPE;NONE"
    "sep_emmi_background;${CELERIS_TEST_DATA}/images/sep_emmi_image.fits;BACKGROUND"
    "HorseHead_map_weight_local;${CELERIS_TEST_DATA}/images/HorseHead.fits;MAP_WEIGHT;--;-BACKPHOTO_TYPE;LOCAL;-GAIN;3"
    "sim_map_weight_absolute;sim:small;MAP_WEIGHT;--;-THRESH_TYPE;ABSOLUTE;-DETECT_THRESH;30;-ANALYSIS_THRESH;25;-FILTER;N"
    # Separate detection and measurement weights (two values), each list element.
    "M67_separate_weight_rms;${M67};MAP_WEIGHT,MAP_RMS;--crop;100,200,700,600;--;-WEIGHT_THRESH;0.5,1000;-RESCALE_WEIGHTS;N,Y;-INTERP_TYPE;ALL,ALL;-INTERP_MAXXLAG;8,4;-INTERP_MAXYLAG;4,8;-GAIN;2"
    "M67_separate_background_weight;${M67};BACKGROUND,MAP_WEIGHT;--crop;100,200,700,600"
    "M67_measurement_weights_only;${M67};NONE,MAP_VAR;--crop;100,200,700,600;--;-GAIN;2"
    "HorseHead_detection_weights_only;${CELERIS_TEST_DATA}/images/HorseHead.fits;MAP_WEIGHT,NONE;--;-GAIN;2"
    "sep_emmi_separate_var_weight;${CELERIS_TEST_DATA}/images/sep_emmi_image.fits;MAP_VAR,MAP_WEIGHT;--;-RESCALE_WEIGHTS;N"
    "sim_separate_rms_weight;sim:small;MAP_RMS,MAP_WEIGHT;--;-INTERP_TYPE;NONE,ALL;-INTERP_MAXXLAG;16,3;-INTERP_MAXYLAG;16,3;-MASK_TYPE;NONE"
    # INTERP_TYPE VAR_ONLY: the variances interpolated, the image not (617 of 778 rows differ
    # from NONE,NONE and 633 from ALL,ALL on the M67 case; in one image a second VAR_ONLY acts as
    # ALL). One map with VAR_ONLY is refused: source-extractor 2.25 stops there itself.
    "M67_separate_var_only;${M67};MAP_WEIGHT,MAP_RMS;--crop;100,200,700,600;--;-INTERP_TYPE;VAR_ONLY,VAR_ONLY;-INTERP_MAXXLAG;8,4;-INTERP_MAXYLAG;4,8;-GAIN;4"
    "sim_separate_all_var_only;sim:small;MAP_RMS,MAP_WEIGHT;--;-INTERP_TYPE;ALL,VAR_ONLY;-INTERP_MAXXLAG;3,6;-INTERP_MAXYLAG;5,4"
    "sep_emmi_background_var_only;${CELERIS_TEST_DATA}/images/sep_emmi_image.fits;BACKGROUND;--;-INTERP_TYPE;VAR_ONLY"
    # THRESH_TYPE RELATIVE,ABSOLUTE: per-pixel detection thresholds, an absolute analysis one
    "M67_thresh_relative_absolute;${M67};MAP_WEIGHT;--crop;100,200,700,600;--;-THRESH_TYPE;RELATIVE,ABSOLUTE;-ANALYSIS_THRESH;30"
    # The whole frame (1059 rows, taller than the 1024-line buffer) at a low ABSOLUTE threshold
    # without the filter: 7863 objects overflow the object stack (3000) long before the buffer
    # moves, and the objects written out then see the buffer's first 1024 lines (one, with a
    # Kron ellipse 1400 px tall, had FLUX_AUTO 6% low when celeris clipped it at the scan line).
    "M67_absolute_stack_full;${M67};MAP_WEIGHT;--crop;0,0,1059,1059;--;-THRESH_TYPE;ABSOLUTE;-DETECT_THRESH;60;-ANALYSIS_THRESH;60;-FILTER;N;-GAIN;4;-MASK_TYPE;NONE")
  list(POP_FRONT variant name image type)
  add_test(NAME extract.parity.weights_${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/weights_parity.py
                   $<TARGET_FILE:celeris_cli> ${image}
                   ${CMAKE_CURRENT_BINARY_DIR}/parity/weights_${name} ${type}
                   --rows-frac 1.0 --params ${CELERIS_W_PARAMS} ${variant})
  set_tests_properties(extract.parity.weights_${name} PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# FLAGS_WEIGHT, NLOWWEIGHT_ISO, NLOWDWEIGHT_ISO (stages/measure_weight_flags.cpp): one map, separate
# maps (a measurement map not interpolated: bit 1), without the filter, with one side NONE (all 0,
# as SExtractor), and in dual-image mode. With the unfiltered detection variance where FILTER is Y,
# the M67 cases differ in 5 and 26 rows.
set(CELERIS_WFLAG_PARAMS ${CELERIS_W_PARAMS},FLAGS_WEIGHT,NLOWWEIGHT_ISO,NLOWDWEIGHT_ISO)
foreach(variant
    "M67_flags_weight;${M67};MAP_WEIGHT;--crop;100,200,700,600;--;-GAIN;4"
    "M67_separate_flags_weight;${M67};MAP_WEIGHT,MAP_RMS;--crop;100,200,700,600;--;-INTERP_TYPE;ALL,NONE;-INTERP_MAXXLAG;2,2;-INTERP_MAXYLAG;2,2"
    "M67_measurement_only_flags_weight;${M67};NONE,MAP_VAR;--crop;100,200,700,600;--;-GAIN;2"
    "sim_flags_weight_no_filter;sim:small;MAP_RMS;--;-INTERP_TYPE;NONE;-FILTER;N")
  list(POP_FRONT variant name image type)
  add_test(NAME extract.parity.weights_${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/weights_parity.py
                   $<TARGET_FILE:celeris_cli> ${image}
                   ${CMAKE_CURRENT_BINARY_DIR}/parity/weights_${name} ${type}
                   --rows-frac 1.0 --params ${CELERIS_WFLAG_PARAMS} ${variant})
  set_tests_properties(extract.parity.weights_${name} PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
add_test(NAME extract.parity.dual_image_sim_border_band_flags_weight
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/weights_dual_image_parity.py
                 $<TARGET_FILE:celeris_cli> sim:border band:6
                 ${CMAKE_CURRENT_BINARY_DIR}/parity/dual_image_sim_border_band_flags_weight
                 --rows-frac 1.0 --params ${CELERIS_WFLAG_PARAMS} --weights MAP_WEIGHT,MAP_VAR --
                 -INTERP_TYPE VAR_ONLY,NONE -INTERP_MAXXLAG 2,2 -INTERP_MAXYLAG 2,2 -GAIN 2)
set_tests_properties(extract.parity.dual_image_sim_border_band_flags_weight PROPERTIES
                     LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)

# Dual-image mode (detect.fits,measure.fits; stages/dual_image.cpp) against source-extractor: the
# 2MASS J/K pair of the same field, and images with a generated second band (scaled, a tilted
# background, own noise, sources in that band only; weights_dual_image_parity.py), every row
# identical, with the windowed, CLASS_STAR, ISO, world and error columns; without and with
# weights (one map for both images, or one per image).
set(CELERIS_DUAL_PARAMS
  ${CELERIS_W_PARAMS},MU_MAX,ERRX2_IMAGE,ERRY2_IMAGE,CLASS_STAR,XWIN_IMAGE,YWIN_IMAGE,FLUX_WIN,ERRX2WIN_IMAGE,FLAGS_WIN)
# name; detection image; measurement image (or band:<seed>); options; --; -KEY VALUE pairs
foreach(variant
    "gc_2mass_j_k;${CELERIS_TEST_DATA}/images/gc_2mass_j.fits;${CELERIS_TEST_DATA}/images/gc_2mass_k.fits;--params;X_WORLD,ALPHA_J2000;--;-GAIN;2"
    "sim_border_band;sim:border;band:6;--params;X_WORLD,ALPHA_J2000;--;-MASK_TYPE;BLANK;-CLEAN_PARAM;2"
    "sim_nan_band;sim:nan;band:8;--;-PHOT_AUTOAPERS;8,10"
    "sep_emmi_band;${CELERIS_TEST_DATA}/images/sep_emmi_image.fits;band:5;--;-FILTER;N"
    # with weights: one map for both images, and one map per image
    "sim_border_band_map_weight;sim:border;band:6;--weights;MAP_WEIGHT;--;-RESCALE_WEIGHTS;N,Y;-INTERP_TYPE;ALL,ALL;-GAIN;2"
    "sep_emmi_band_background;${CELERIS_TEST_DATA}/images/sep_emmi_image.fits;band:5;--weights;BACKGROUND;--"
    "gc_2mass_j_k_var_weight;${CELERIS_TEST_DATA}/images/gc_2mass_j.fits;${CELERIS_TEST_DATA}/images/gc_2mass_k.fits;--weights;MAP_VAR,MAP_WEIGHT;--;-INTERP_TYPE;ALL,ALL;-WEIGHT_THRESH;1e29,0.5"
    "sim_nan_band_rms_none;sim:nan;band:8;--weights;MAP_RMS,NONE;--"
    # VAR_ONLY in dual-image mode: variances interpolated, neither image (114 of 178 rows differ
    # from ALL,ALL).
    "sim_border_band_var_only;sim:border;band:6;--weights;MAP_WEIGHT,MAP_VAR;--;-INTERP_TYPE;VAR_ONLY,VAR_ONLY;-INTERP_MAXXLAG;5,5;-INTERP_MAXYLAG;5,5;-GAIN;2")
  list(POP_FRONT variant name detect measure)
  # With the measurement image blanked as scanned (not blank_lag rows behind, as the detection
  # image), sim_border_band_map_weight and sim_nan_band_rms_none pass; before, their objects
  # written out at the end of the last line with windows reaching the last row (FLUX_WIN of 2
  # of 3111 and 1 of 15532 objects) differed.
  add_test(NAME extract.parity.dual_image_${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/weights_dual_image_parity.py
                   $<TARGET_FILE:celeris_cli> ${detect} ${measure}
                   ${CMAKE_CURRENT_BINARY_DIR}/parity/dual_image_${name} --rows-frac 1.0
                   --params ${CELERIS_DUAL_PARAMS} ${variant} -STARNNW_NAME ${CELERIS_NNW})
  set_tests_properties(extract.parity.dual_image_${name} PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
