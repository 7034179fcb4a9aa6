# PIXEL_SCALE 0, SExtractor's default "use FITS WCS info" (stages/measure_pixel_scale.hpp):
# CLASS_STAR with the field's scale at the image centre, MU_MAX, MU_THRESHOLD, FWHM_WORLD and
# ISOAREA(F)_WORLD and FWHMPSF_WORLD with the local pixel area at each barycentre. Every row identical to
# source-extractor's (tests/extract/parity.py), and where the frame's axes are the pixel axes
# the surface brightnesses, FWHM_WORLD and ISOAREA_WORLD equal bit for bit (FITS_1.0); CLASS_STAR
# is not bit-exact even with a PIXEL_SCALE given (its network's last float bit), nor are the
# world areas of a rotated frame (the Jacobian through wcslib, ~1e-9 relative, docs/extract.md).
# - simulations with a TAN WCS: as simulated (Dec 2), rotated and sheared at Dec 62.5 (the
#   cos(latitude) of the longitude steps), and latitude first (DEC--TAN, RA---TAN at Dec -41);
# - no WCS (M13_blue_0001) and a linear one (sep_emmi_image): SExtractor's linear frame, 1 deg
#   (3600 arcsec) a pixel by default;
# - DSS plate solutions (world_frame.hpp: SExtractor reads none of the plate polynomial that
#   wcslib applies): HorseHead (its TAN frame) and M6707HH (no CTYPE: the linear frame), with
#   their world positions; before, X_WORLD differed in every row of both;
# - 2MASS J (TAN at Dec -28.9, 4311 objects): the world areas left out, whose ~1e-9 Jacobian
#   difference moves 1 ISOAREA_WORLD in 4311 across the printed 7th digit.
set(CELERIS_PS_PARAMS
  ISO0,ISO5,CLASS_STAR,MU_THRESHOLD,MU_MAX,FWHM_WORLD,ISOAREA_WORLD,ISOAREAF_WORLD,FWHMPSF_IMAGE,FWHMPSF_WORLD)
set(CELERIS_PS_EXACT MU_THRESHOLD,MU_MAX,FWHM_WORLD,ISOAREA_WORLD,FWHMPSF_IMAGE,FWHMPSF_WORLD)
set(CELERIS_PS_ARGS -- -STARNNW_NAME ${CELERIS_NNW} -PIXEL_SCALE 0)
foreach(variant
    "sim_nan;sim:nan;--params;${CELERIS_PS_PARAMS};--exact-columns;${CELERIS_PS_EXACT}"
    "sim_saturated_rotated;sim:saturated;--params;${CELERIS_PS_PARAMS};--set-cards;CRVAL2=62.5,CD1_1=-4.8e-05,CD1_2=2.9e-05,CD2_1=2.7e-05,CD2_2=4.9e-05"
    "sim_nan_latitude_first;sim:nan;--params;${CELERIS_PS_PARAMS};--exact-columns;${CELERIS_PS_EXACT};--set-cards;CTYPE1=DEC--TAN,CTYPE2=RA---TAN,CRVAL1=-41,CRVAL2=150,CD1_1=0,CD1_2=5.55555555556E-05,CD2_1=-5.55555555556E-05,CD2_2=0"
    "M13_blue_0001;${CELERIS_TEST_DATA}/images/M13_blue_0001.fits;--params;${CELERIS_PS_PARAMS}"
    "sep_emmi_image;${CELERIS_TEST_DATA}/images/sep_emmi_image.fits;--params;${CELERIS_PS_PARAMS}"
    "HorseHead;${CELERIS_TEST_DATA}/images/HorseHead.fits;--params;${CELERIS_PS_PARAMS},X_WORLD,Y_WORLD,ALPHA_J2000,DELTA_J2000,XWIN_WORLD,A_WORLD,THETA_J2000;--exact-columns;${CELERIS_PS_EXACT}"
    "M6707HH;${CELERIS_TEST_DATA}/images/M6707HH.fits;--params;${CELERIS_PS_PARAMS},X_WORLD,Y_WORLD,ALPHA_J2000,DELTA_J2000,XWIN_WORLD,A_WORLD;--exact-columns;${CELERIS_PS_EXACT}"
    "gc_2mass_j;${CELERIS_TEST_DATA}/images/gc_2mass_j.fits;--params;ISO0,ISO5,CLASS_STAR,MU_THRESHOLD,MU_MAX,FWHM_WORLD,FWHMPSF_IMAGE,FWHMPSF_WORLD;--exact-columns;FWHMPSF_IMAGE,FWHMPSF_WORLD")
  list(POP_FRONT variant name case)
  add_test(NAME extract.parity.${name}_pixel_scale_0
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/parity.py
                   $<TARGET_FILE:celeris_cli> ${case}
                   ${CMAKE_CURRENT_BINARY_DIR}/parity/${name}_pixel_scale_0 --rows-frac 1.0
                   ${variant} ${CELERIS_PS_ARGS})
  set_tests_properties(extract.parity.${name}_pixel_scale_0 PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()

# FWHMPSF_IMAGE / FWHMPSF_WORLD without a PSF: SEEING_FWHM itself (arcsec, in SExtractor's "pixel"
# column) and times PIXEL_SCALE / 3600 as FWHM_WORLD (analyse.c), bit for bit; 2MASS J with a
# PIXEL_SCALE and a seeing given.
add_test(NAME extract.parity.gc_2mass_j_fwhmpsf
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/parity.py
                 $<TARGET_FILE:celeris_cli> ${CELERIS_TEST_DATA}/images/gc_2mass_j.fits
                 ${CMAKE_CURRENT_BINARY_DIR}/parity/gc_2mass_j_fwhmpsf --rows-frac 1.0
                 --params FWHMPSF_IMAGE,FWHMPSF_WORLD,FWHM_WORLD
                 --exact-columns FWHMPSF_IMAGE,FWHMPSF_WORLD,FWHM_WORLD
                 -- -PIXEL_SCALE 0.37 -SEEING_FWHM 2.5)
set_tests_properties(extract.parity.gc_2mass_j_fwhmpsf PROPERTIES
                     LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 600)
