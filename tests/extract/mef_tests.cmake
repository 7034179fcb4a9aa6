# Multi-extension files with weight maps, flag maps, a second (measurement) image and check
# images (issue 19; src/extract/mef_inputs.cpp, output/check_image_extensions.cpp): each
# companion a multi-extension file with one map per image extension, read at the image's HDU
# as SExtractor 2.25 does; every row identical to source-extractor's (ASCII_HEAD byte for byte;
# FITS_LDAC table by table for dual-image mode), check images pixel for pixel with
# source-extractor's HDU layout (tests/extract/mef_parity.py). The file: a crowded 400x400
# simulation, a sparse 400x300 one with NaN patches and a HorseHead crop (when the shared data
# is present). mef_stream_vignet_shift: the file given after a one-image frame in a stream
# (run_frames.cpp), with VIGNET_SHIFT in its catalog.
# name; mef_parity.py options, then after -- extra -KEY VALUE pairs
foreach(variant
    "map_weight;--weights;MAP_WEIGHT;--params;FLUXERR_ISO,FLAGS_WEIGHT,NLOWWEIGHT_ISO,NLOWDWEIGHT_ISO"
    "map_rms;--weights;MAP_RMS;--params;FLUXERR_ISO,FLUX_WIN,FLUXERR_WIN;--;-WEIGHT_GAIN;N"
    "separate_weights;--weights;MAP_RMS,MAP_WEIGHT;--params;FLUXERR_ISO,FLAGS_WEIGHT"
    "dual_image;--dual;--weights;MAP_WEIGHT,MAP_VAR;--types;ASCII_HEAD,FITS_LDAC;--params;FLUXERR_ISO"
    "flag_maps;--flag-maps;2;--params;IMAFLAGS_ISO(2),NIMAFLAGS_ISO(2);--;-FLAG_TYPE;OR,MAX"
    "check_images;--check;BACKGROUND,BACKGROUND_RMS,MINIBACKGROUND,MINIBACK_RMS,-BACKGROUND,FILTERED,SEGMENTATION,OBJECTS,-OBJECTS,APERTURES"
    "check_images_map_weight;--weights;MAP_WEIGHT;--check;BACKGROUND_RMS,MINIBACK_RMS,-OBJECTS,SEGMENTATION"
    "stream_vignet_shift;--stream;--types;ASCII_HEAD,FITS_LDAC;--params;VIGNET_SHIFT(9,7)")
  list(POP_FRONT variant name)
  add_test(NAME extract.parity.mef_${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/mef_parity.py
                   $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/parity/mef_${name}
                   ${CELERIS_TEST_DATA} --small --types ASCII_HEAD ${variant})
  set_tests_properties(extract.parity.mef_${name} PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
