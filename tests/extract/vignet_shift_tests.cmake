# VIGNET_SHIFT(w,h) against source-extractor (stages/vignet_shift.cpp): every row identical as
# printed and the VIGNET_SHIFT and VIGNET cells equal bit for bit in FITS_1.0 catalogs
# (parity.py --exact-columns), on a real image, on a simulation whose stars touch the border
# (the vignet and its interpolation mask overhang the frame), with masked pixels and MASK_TYPE
# BLANK (-1e30 entering the sums), and with a line buffer shorter than the image (sim:strips:
# rows outside it count for nothing; the cleaning margin grows by 3 + h/2). About 2-6 s each.
set(CELERIS_VIGNET_SHIFT_PARAMS VIGNET_SHIFT\(31,25\),VIGNET\(5,5\))
foreach(variant
    "HorseHead;${CELERIS_TEST_DATA}/images/HorseHead.fits"
    "sim_border;sim:border"
    "sim_nan_blank;sim:nan;--;-MASK_TYPE;BLANK"
    "sim_strips;sim:strips")
  list(POP_FRONT variant name image)
  add_test(NAME extract.parity.vignet_shift_${name}
           COMMAND ${CELERIS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/extract/parity.py
                   $<TARGET_FILE:celeris_cli> ${image}
                   ${CMAKE_CURRENT_BINARY_DIR}/parity/vignet_shift_${name} --rows-frac 1.0
                   --params ${CELERIS_VIGNET_SHIFT_PARAMS} --exact-columns VIGNET_SHIFT,VIGNET
                   ${variant})
  set_tests_properties(extract.parity.vignet_shift_${name} PROPERTIES
                       LABELS "integration;extract;parity" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
