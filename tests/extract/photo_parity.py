#!/usr/bin/env python3
"""DETECT_TYPE PHOTO parity: an image rescaled to photographic densities (a background of a few
units and the brightest pixel 60 above it, so that exp(pixel / ngamma) and its square stay
finite in float),
then parity.py with -DETECT_TYPE PHOTO: celeris and source-extractor compared object by object,
every row identical, with the fluxes PHOTO changes (ISO, APER, AUTO and their errors, FLUX_RADIUS,
ISOAREA, ISO0..ISO7, FLUX_ISOCOR, the windowed measurements).

usage: photo_parity.py CELERIS_BIN IMAGE|sim: WORKDIR [-- extra -KEY VALUE ...]
sim: is a 512x512 simulation of 400 stars. Exit code 77 (ctest SKIP) when the image,
source-extractor or astropy is absent.
"""
import os
import subprocess
import sys

from parity_runs import (HERE, exit_code, image_pixels, input_image, need_astropy, sextractor,
                         split_extra)

PARAMS = ("FLUX_ISOCOR,FLUXERR_ISOCOR,FLUXERR_APER,MAG_AUTO,MAGERR_AUTO,ISO0,ISO1,ISO3,ISO5,ISO7,"
          "FLUX_MAX,BACKGROUND,THRESHOLD,KRON_RADIUS,XWIN_IMAGE,YWIN_IMAGE,FLUX_WIN,FLUXERR_WIN,"
          "ERRX2WIN_IMAGE,X2WIN_IMAGE,FLAGS_WIN")
SIMS = {"": ["--size", "512", "--seed", "15", "--stars", "400"]}


def main():
    argv, extra = split_extra(sys.argv[1:])
    celeris, spec, work = os.path.abspath(argv[0]), argv[1], os.path.abspath(argv[2])
    sextractor()
    need_astropy()
    import numpy as np
    from astropy.io import fits
    os.makedirs(work, exist_ok=True)
    image = input_image(celeris, spec, work, SIMS)
    data, header = image_pixels(image, ("BSCALE", "BZERO", "BLANK", "BITPIX", "SATURATE"))
    data = data.astype(np.float64)
    finite = data[np.isfinite(data)]
    med, top = np.median(finite), finite.max()
    scaled = ((data - med) * (60.0 / (top - med)) + 4.0).astype(np.float32)
    path = os.path.join(work, "photo.fits")
    fits.writeto(path, scaled, header, overwrite=True)
    return subprocess.run([sys.executable, os.path.join(HERE, "parity.py"), celeris, path, work,
                           "--rows-frac", "1.0", "--params", PARAMS, "--",
                           "-DETECT_TYPE", "PHOTO"] + extra).returncode


if __name__ == "__main__":
    sys.exit(exit_code(main))
