#!/usr/bin/env python3
"""DGEO_TYPE PIXEL against source-extractor: both tools on the same image with the same generated
differential-geometry map (DGEO_IMAGE, a float32 cube of 2 planes: x shift, y shift), every
column of the catalogs compared (compare_catalogs.py, every row identical as printed), and the
columns of --exact-columns equal bit for bit in FITS_1.0 catalogs.

usage: dgeo_parity.py CELERIS_BIN IMAGE|sim:<name> WORKDIR --map smooth|wide|int16
                      [--exact-columns N1,N2] [--dual] [-- extra -KEY VALUE ...]
--map smooth: shifts within +-0.6 pixel, varying over the frame (each pixel's offset truncated
to an int by SExtractor moves by one pixel or none, by the sign of its shift); wide: within
+-2.5 pixels (offsets moved by up to 3 pixels either way); int16: the smooth map stored as
BITPIX 16 with BSCALE/BZERO (the scaling applied on reading). --dual: dual-image mode, the image
detecting and 1.3 x image + 5 measured. Exit code 77 (ctest SKIP) when the
image, source-extractor or astropy is absent.
"""
import os
import sys

from parity import SIMS
from parity_runs import (exact_columns, exit_code, image_pixels, input_image, need_astropy,
                         parity, sextractor, split_extra, take, take_switch)

# Every column the map changes: positions, moments, their errors, the FWHM, the windowed
# family, the photometry centred on the barycentre, and the six DGEO columns.
PARAMS = ["NUMBER", "X_IMAGE", "Y_IMAGE", "DGEOX_IMAGE", "DGEOY_IMAGE", "X2_IMAGE", "Y2_IMAGE",
          "XY_IMAGE", "A_IMAGE", "B_IMAGE", "THETA_IMAGE", "ERRX2_IMAGE", "ERRY2_IMAGE",
          "ERRXY_IMAGE", "FWHM_IMAGE", "FLUX_ISO", "FLUX_AUTO", "FLUX_APER(2)", "FLUX_RADIUS",
          "XWIN_IMAGE", "YWIN_IMAGE", "DGEOXWIN_IMAGE", "DGEOYWIN_IMAGE", "ERRX2WIN_IMAGE",
          "ERRY2WIN_IMAGE", "X2WIN_IMAGE", "Y2WIN_IMAGE", "XYWIN_IMAGE", "FLUX_WIN",
          "FLAGS_WIN", "NITER_WIN", "ISOAREA_IMAGE", "XMIN_IMAGE", "YMAX_IMAGE", "FLAGS",
          "VIGNET_DGEOX(7,5)", "VIGNET_DGEOY(5,7)"]


def write_map(image, path, kind):
    """The map for `image`'s shape (see the module's doc), written to `path`."""
    import numpy as np
    from astropy.io import fits
    data, _ = image_pixels(image)
    h, w = data.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    amp = 2.5 if kind == "wide" else 0.6
    dx = amp * (0.7 * np.sin(2 * np.pi * 1.3 * x / w) + 0.3 * (2 * y / h - 1))
    dy = amp * (0.7 * np.cos(2 * np.pi * 0.9 * y / h + 0.4) - 0.3 * (2 * x / w - 1))
    cube = np.stack([dx, dy]).astype(np.float32)
    if kind == "int16":
        hdu = fits.PrimaryHDU(cube)
        hdu.scale("int16", bscale=1e-4, bzero=0.5)
        hdu.writeto(path, overwrite=True)
    else:
        fits.writeto(path, cube, overwrite=True)
    return path


def main():
    argv, extra = split_extra(sys.argv[1:])
    kind = take(argv, "--map", "smooth")
    if kind not in ("smooth", "wide", "int16"):
        sys.exit(f"--map {kind}: one of smooth, wide, int16")
    exact = take(argv, "--exact-columns")
    dual = take_switch(argv, "--dual")
    celeris, spec, work = os.path.abspath(argv[0]), argv[1], os.path.abspath(argv[2])
    sextractor()
    need_astropy()
    os.makedirs(work, exist_ok=True)
    image = input_image(celeris, spec, work, SIMS)
    dgeo = write_map(image, os.path.join(work, f"dgeo-{kind}.fits"), kind)
    extra = ["-DGEO_TYPE", "PIXEL", "-DGEO_IMAGE", dgeo] + extra
    label = (spec if spec.startswith("sim:") else os.path.basename(image)) + f" DGEO {kind}"
    stem = os.path.basename(image).replace(".fits", "") + "-dgeo-" + kind
    if dual:  # the map goes with the detection image's pixels, the measurement image's size
        import numpy as np
        from astropy.io import fits
        data, header = image_pixels(image)
        measure = os.path.join(work, stem + "-measure.fits")
        fits.writeto(measure, (data * 1.3 + 5).astype(np.float32), header, overwrite=True)
        image, label, stem = image + "," + measure, label + " dual", stem + "-dual"
    verdict = parity(celeris, image, work, stem, PARAMS, extra, label,
                     ["--same-columns", "--rows-frac", "1.0"])
    if exact:
        verdict |= exact_columns(celeris, image, work, stem, PARAMS, extra, exact.split(","))
    return verdict


if __name__ == "__main__":
    sys.exit(exit_code(main))
