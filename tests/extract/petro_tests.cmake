# Petrosian photometry (FLUX_PETRO, FLUXERR_PETRO, MAG_PETRO, MAGERR_PETRO, PETRO_RADIUS with
# PHOT_PETROPARAMS), the growth curve (FLUX_GROWTH, MAG_GROWTH and their steps) and VIGNET(w,h)
# against source-extractor (stages/measure_petro.cpp, measure_growth.cpp, measure_vignet.cpp):
# every row identical, plus the issue's acceptance on FLUX_PETRO (median relative difference
# <= 1e-3), without and with weights, MASK_TYPE CORRECT/BLANK/NONE, PHOT_AUTOAPERS, a line
# buffer shorter than the image (sim:strips) and dual-image mode. About 1-4 s each.
set(CELERIS_PETRO_PARAMS
  FLUX_PETRO,FLUXERR_PETRO,MAG_PETRO,MAGERR_PETRO,PETRO_RADIUS,FLUX_GROWTH\(6\),FLUX_GROWTHSTEP,MAG_GROWTH\(5\),MAG_GROWTHSTEP,VIGNET\(7,5\),FLUXERR_AUTO,BACKGROUND)
set(M67 ${CELERIS_TEST_DATA}/images/M6707HH.fits)
# name; driver; driver arguments (parity.py: image; weights_parity.py: image, WEIGHT_TYPE
# [--crop]; weights_dual_image_parity.py: detection, measurement [--weights]); then, after --,
# -KEY VALUE pairs
foreach(variant
    "HorseHead;parity.py;${CELERIS_TEST_DATA}/images/HorseHead.fits"
    "sim_nan_blank;parity.py;sim:nan;--;-MASK_TYPE;BLANK;-PHOT_PETROPARAMS;1.5,2.5;-PHOT_AUTOAPERS;8,12;-GAIN;2"
    "sim_strips;parity.py;sim:strips"
    "M67_map_weight;weights_parity.py;${M67};MAP_WEIGHT;--crop;100,200,700,600;--;-GAIN;4"
    "M67_map_rms_blank;weights_parity.py;${M67};MAP_RMS;--crop;100,200,700,600;--;-WEIGHT_THRESH;5;-MASK_TYPE;BLANK;-PHOT_PETROPARAMS;1.5,2.5"
    "sim_separate_weights_mask_none;weights_parity.py;sim:small;MAP_RMS,MAP_WEIGHT;--;-INTERP_TYPE;NONE,ALL;-MASK_TYPE;NONE;-PHOT_AUTOAPERS;8,12"
    "dual_image_sim_nan_band;weights_dual_image_parity.py;sim:nan;band:8;--;-MASK_TYPE;BLANK"
    "dual_image_sim_border_band_map_weight;weights_dual_image_parity.py;sim:border;band:6;--weights;MAP_WEIGHT;--;-RESCALE_WEIGHTS;N,Y;-INTERP_TYPE;ALL,ALL;-GAIN;2")
  list(POP_FRONT variant name driver)
  # The driver's positional arguments come before WORKDIR; its options and -KEY VALUE pairs after.
  set(positional)
  if(driver STREQUAL "weights_dual_image_parity.py")
    list(POP_FRONT variant detect measure)
    set(positional ${detect} ${measure} ${CMAKE_CURRENT_BINARY_DIR}/parity/petro_${name})
  elseif(driver STREQUAL "weights_parity.py")
    list(POP_FRONT variant image type)
    set(positional ${image} ${CMAKE_CURRENT_BINARY_DIR}/parity/petro_${name} ${type})
  else()
    list(POP_FRONT variant image)
    set(positional ${image} ${CMAKE_CURRENT_BINARY_DIR}/parity/petro_${name})
  endif()
  add_test(NAME extract.parity.petro_${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/${driver}
                   $<TARGET_FILE:celeris_cli> ${positional} --rows-frac 1.0
                   --params ${CELERIS_PETRO_PARAMS} --col-tol FLUX_PETRO=1e-3 ${variant})
  set_tests_properties(extract.parity.petro_${name} PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# The APERTURES check image with the Petrosian ellipses drawn beside the Kron ones (and every
# other check image), pixel for pixel against source-extractor's (check_images.py).
add_test(NAME extract.check_images_petro
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/check_images.py
                 $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/check_images_petro
                 --params FLUX_PETRO,PETRO_RADIUS)
set_tests_properties(extract.check_images_petro PROPERTIES LABELS "integration;extract"
                     SKIP_RETURN_CODE 77 TIMEOUT 300)
