# ID_PARENT, the B1950 columns and a .param file listing a vector twice (issue 19), every row of
# every case identical to source-extractor's (tests/extract/parity.py). The multi-extension
# numbering of ID_PARENT is checked by extract.parity.mef (its catalogs include ID_PARENT).
#
# ID_PARENT (Objects::id_parent): a crowded simulation (10414 objects from 10657 detections,
# 1599 of them sharing a deblended detection) and HorseHead (hundreds of CLEAN merges, whose
# masters keep their own detection's number).
foreach(variant "sim_crowded;sim:crowded" "HorseHead;${CELERIS_TEST_DATA}/images/HorseHead.fits")
  list(POP_FRONT variant name case)
  add_test(NAME extract.parity.${name}_id_parent
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/parity.py
                   $<TARGET_FILE:celeris_cli> ${case}
                   ${CMAKE_CURRENT_BINARY_DIR}/parity/${name}_id_parent --rows-frac 1.0
                   --params ID_PARENT,XMIN_IMAGE,YMAX_IMAGE)
  set_tests_properties(extract.parity.${name}_id_parent PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
# The B1950 columns (sextractor/fk5_to_fk4.hpp): a simulation with a TAN WCS, every column; the
# windowed angles alone (SExtractor then rotates them from an unconverted pole at (0, 0): values
# tens of degrees from THETAWIN_J2000, reproduced); the 2MASS J frame (4311 objects), all but
# ERRTHETAWIN_B1950: like ERRTHETAWIN_SKY and _J2000 there, 2 or 3 rows differ by 0.01 as printed
# (the windowed error angle's Jacobian difference, docs/extract.md); the simulation's case has it.
set(CELERIS_B1950_PARAMS
  ALPHA_B1950,DELTA_B1950,ALPHAPEAK_B1950,DELTAPEAK_B1950,ALPHAWIN_B1950,DELTAWIN_B1950,THETA_B1950,ERRTHETA_B1950,THETAWIN_B1950)
foreach(variant "sim_nan_b1950;sim:nan;${CELERIS_B1950_PARAMS},ERRTHETAWIN_B1950,ID_PARENT"
                "sim_nan_b1950_windowed_angles;sim:nan;THETAWIN_B1950,ERRTHETAWIN_B1950,THETAWIN_J2000"
                "gc_2mass_j_b1950;${CELERIS_TEST_DATA}/images/gc_2mass_j.fits;${CELERIS_B1950_PARAMS}")
  list(POP_FRONT variant name case)
  string(REPLACE ";" "," params "${variant}")
  add_test(NAME extract.parity.${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/parity.py
                   $<TARGET_FILE:celeris_cli> ${case} ${CMAKE_CURRENT_BINARY_DIR}/parity/${name}
                   --rows-frac 1.0 --params ${params})
  set_tests_properties(extract.parity.${name} PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
# A .param file listing parameters again: vectors with other sizes (the last listing's size, in
# the first listing's place), a vector again without "(n)" (back to 1 element), a scalar with a
# size and NUMBER again (one column each). --same-columns (parity.py) checks the layout.
add_test(NAME extract.parity.sim_border_params_listed_twice
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/parity.py
                 $<TARGET_FILE:celeris_cli> sim:border
                 ${CMAKE_CURRENT_BINARY_DIR}/parity/sim_border_params_listed_twice --rows-frac 1.0
                 --append-params "FLUX_APER(4),FLUX_RADIUS(3),FLUXERR_APER(3),MAG_APER(2),FLUXERR_APER,FLUX_ISO(2),NUMBER"
                 -- -PHOT_APERTURES 3,5,8,12 -PHOT_FLUXFRAC 0.2,0.5,0.8)
set_tests_properties(extract.parity.sim_border_params_listed_twice PROPERTIES
                     LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
