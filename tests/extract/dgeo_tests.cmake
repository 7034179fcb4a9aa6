# DGEO_TYPE PIXEL against source-extractor (stages/dgeo_map.hpp, measure_dgeo.hpp): a generated
# differential-geometry map, every row of the catalogs identical as printed (37 columns), and
# X/Y_IMAGE and the six DGEO columns equal bit for bit in FITS_1.0 catalogs (dgeo_parity.py;
# XWIN/YWIN_IMAGE, doubles, differ in the last bit in a few rows with or without a map, as
# before). On a simulation whose stars touch the border (VIGNET_DGEOX/Y overhanging the frame),
# with shifts beyond a pixel (wide; also on sim:crowded, 10428 rows of deblended and cleaned
# objects, about 25 s), with a BITPIX 16 map scaled by BSCALE/BZERO, and on two real
# images: gc_2mass_j (crowded) and M6707HH, taller than SExtractor's 1024-line buffer; with
# weights, NaN patches and MASK_TYPE CORRECT (the mirror at the pixel position), with
# BACKPHOTO_TYPE LOCAL, no CLEAN and deep deblending, and in dual-image mode. (HorseHead
# cannot be used: source-extractor takes its ASCII-table HDU for a second image and stops there,
# finding no map for it.) About 2-6 s each.
set(CELERIS_DGEO_EXACT
    X_IMAGE,Y_IMAGE,DGEOX_IMAGE,DGEOY_IMAGE,DGEOXWIN_IMAGE,DGEOYWIN_IMAGE,VIGNET_DGEOX,VIGNET_DGEOY)
foreach(variant
    "sim_border_smooth;sim:border;smooth"
    "sim_border_wide;sim:border;wide"
    "sim_crowded_wide;sim:crowded;wide"
    "sim_border_int16;sim:border;int16"
    "gc_2mass_j_smooth;${CELERIS_TEST_DATA}/images/gc_2mass_j.fits;smooth"
    "M6707HH_wide;${CELERIS_TEST_DATA}/images/M6707HH.fits;wide"
    "sim_nan_weights_correct;sim:nan;wide;--;-WEIGHT_TYPE;BACKGROUND;-MASK_TYPE;CORRECT"
    "sim_border_local_deblend;sim:border;smooth;--;-BACKPHOTO_TYPE;LOCAL;-CLEAN;N;-DEBLEND_MINCONT;0.0001"
    "sim_border_dual;sim:border;smooth;--dual")
  list(POP_FRONT variant name image map)
  add_test(NAME extract.parity.dgeo_${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/dgeo_parity.py
                   $<TARGET_FILE:celeris_cli> ${image}
                   ${CMAKE_CURRENT_BINARY_DIR}/parity/dgeo_${name} --map ${map}
                   --exact-columns ${CELERIS_DGEO_EXACT} ${variant})
  set_tests_properties(extract.parity.dgeo_${name} PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# Which HDU of DGEO_IMAGE is read, for images and maps named with or without their HDU, and for
# a multi-extension image (dgeo_hdu_parity.py, 10 pairings on a 256^2 simulation). About 4 s.
add_test(NAME extract.parity.dgeo_hdus
         COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/dgeo_hdu_parity.py
                 $<TARGET_FILE:celeris_cli> ${CMAKE_CURRENT_BINARY_DIR}/parity/dgeo_hdus)
set_tests_properties(extract.parity.dgeo_hdus PROPERTIES
                     LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
