#!/usr/bin/env python3
"""DETECT_TYPE PHOTO parity: an image rescaled to photographic densities (a background of a few
units and the brightest pixel 60 above it, so that exp(pixel / ngamma) and its square stay
finite in float),
then parity.py with -DETECT_TYPE PHOTO: celeris and source-extractor compared object by object,
every row identical, with the fluxes PHOTO changes (ISO, APER, AUTO and their errors, FLUX_RADIUS,
ISOAREA, ISO0..ISO7, FLUX_ISOCOR, the windowed measurements).

usage: photo_parity.py CELERIS_BIN IMAGE|sim:<name> WORKDIR [-- extra -KEY VALUE ...]
Exit code 77 (ctest SKIP) when the image, source-extractor or astropy is absent.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PARAMS = ("FLUX_ISOCOR,FLUXERR_ISOCOR,FLUXERR_APER,MAG_AUTO,MAGERR_AUTO,ISO0,ISO1,ISO3,ISO5,ISO7,"
          "FLUX_MAX,BACKGROUND,THRESHOLD,KRON_RADIUS,XWIN_IMAGE,YWIN_IMAGE,FLUX_WIN,FLUXERR_WIN,"
          "ERRX2WIN_IMAGE,X2WIN_IMAGE,FLAGS_WIN")


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    celeris, image, work = os.path.abspath(argv[0]), argv[1], os.path.abspath(argv[2])
    if not (shutil.which("source-extractor") or shutil.which("sex")):
        print("source-extractor not installed: skipped")
        return 77
    try:
        import numpy as np
        from astropy.io import fits
    except ImportError:
        print("astropy not installed: skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    if image.startswith("sim:"):
        path = os.path.join(work, "sim.fits")
        subprocess.run([celeris, "simulate", "image", "-o", path, "--size", "512", "--seed", "15",
                        "--stars", "400"], check=True, stdout=subprocess.DEVNULL)
        image = path
    elif not os.path.exists(image):
        print(image, "absent: skipped")
        return 77
    with fits.open(image) as hdus:
        hdu = next(h for h in hdus if h.data is not None and h.data.ndim == 2)
        data, header = hdu.data.astype(np.float64), hdu.header.copy()
    for key in ("BSCALE", "BZERO", "BLANK", "BITPIX", "SATURATE"):
        header.remove(key, ignore_missing=True)
    finite = data[np.isfinite(data)]
    med, top = np.median(finite), finite.max()
    scaled = ((data - med) * (60.0 / (top - med)) + 4.0).astype(np.float32)
    path = os.path.join(work, "photo.fits")
    fits.writeto(path, scaled, header, overwrite=True)
    return subprocess.run([sys.executable, os.path.join(HERE, "parity.py"), celeris, path, work,
                           "--rows-frac", "1.0", "--params", PARAMS, "--",
                           "-DETECT_TYPE", "PHOTO"] + extra).returncode


if __name__ == "__main__":
    sys.exit(main())
