#!/usr/bin/env python3
"""Dual-image mode parity with source-extractor: `detect.fits,measure.fits` on both tools, the
catalogs compared object by object (compare_catalogs.py).

usage: weights_dual_image_parity.py CELERIS_BIN DETECT MEASURE|band:<seed> WORKDIR
                                    [--rows-frac F] [--params P1,P2 ...] [--weights TYPE]
                                    [--col-tol NAME=TOL ...]
                                    [-- -KEY VALUE ...]
MEASURE band:<seed> makes a second band of DETECT (needs astropy): the image scaled by 0.6 with a
tilted background and its own noise, and a few sources only in that band, so that fluxes, peaks
and the background differ between the images while the objects are the same. DETECT may be
sim:<name> (celeris simulate). Exit code 77 (ctest SKIP) when an image, source-extractor or
astropy is absent. --weights TYPE (as weights_parity.py: one type, or detection,measurement)
writes generated weight maps of the images' size and passes them to both tools.
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from parity import PARAMS, SIMS  # noqa: E402


def second_band(detect, path, seed):
    import numpy as np
    from astropy.io import fits
    with fits.open(detect) as hdus:
        hdu = next(h for h in hdus if h.data is not None)
        data = hdu.data.astype(np.float64)
        header = hdu.header.copy()  # the same sky: the same WCS
    for key in ("BZERO", "BSCALE", "BLANK", "BITPIX"):
        header.remove(key, ignore_missing=True)
    h, w = data.shape
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    band = 0.6 * data + 80.0 + 0.05 * x - 0.03 * y + rng.normal(0.0, 4.0, data.shape)
    for _ in range(20):  # sources seen in this band only
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        band += rng.uniform(200, 2000) * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * 1.5 ** 2))
    fits.writeto(path, band.astype(np.float32), header, overwrite=True)


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    options = []
    for flag in ("--rows-frac",):
        if flag in argv:
            k = argv.index(flag)
            options += [flag, argv[k + 1]]
            del argv[k:k + 2]
    while "--col-tol" in argv:  # NAME=TOL, passed on to compare_catalogs.py
        k = argv.index("--col-tol")
        options += ["--col-tol", argv[k + 1]]
        del argv[k:k + 2]
    wtype = None
    if "--weights" in argv:
        k = argv.index("--weights")
        wtype = argv[k + 1]
        del argv[k:k + 2]
    params = PARAMS
    while "--params" in argv:
        k = argv.index("--params")
        # Commas inside parentheses belong to the parameter: VIGNET(w,h).
        params += "".join(p + "\n" for p in re.split(r",(?![^(]*\))", argv[k + 1]))
        del argv[k:k + 2]
    celeris, detect, measure, work = os.path.abspath(argv[0]), argv[1], argv[2], os.path.abspath(argv[3])
    sex = shutil.which("source-extractor") or shutil.which("sex")
    if not sex:
        print("source-extractor not installed: skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    if detect.startswith("sim:"):
        path = os.path.join(work, detect[4:] + ".fits")
        subprocess.run([celeris, "simulate", "image", "-o", path] + SIMS[detect[4:]], check=True,
                       stdout=subprocess.DEVNULL)
        detect = path
    detect = os.path.abspath(detect)
    if not os.path.exists(detect):
        print(detect, "absent: skipped")
        return 77
    if measure.startswith("band:"):
        try:
            import astropy  # noqa: F401
        except ImportError:
            print("astropy not installed: skipped")
            return 77
        path = os.path.join(work, "band.fits")
        second_band(detect, path, int(measure[5:]))
        measure = path
    measure = os.path.abspath(measure)
    if not os.path.exists(measure):
        print(measure, "absent: skipped")
        return 77
    if wtype:
        try:
            from astropy.io import fits
        except ImportError:
            print("astropy not installed: skipped")
            return 77
        from weights_parity import weight_map_args
        with fits.open(detect) as hdus:
            shape = next(h.data.shape for h in hdus if h.data is not None)
        extra = weight_map_args(shape, wtype, work, "dual") + extra
    with open(os.path.join(work, "parity.param"), "w") as f:
        f.write(params)
    conv = os.path.join(work, "default.conv")
    with open(conv, "w") as f:
        f.write("CONV NORM\n1 2 1\n2 4 2\n1 2 1\n")
    common = ["-PARAMETERS_NAME", os.path.join(work, "parity.param"), "-FILTER_NAME", conv,
              "-PHOT_APERTURES", "5,10", "-CATALOG_TYPE", "ASCII_HEAD", "-VERBOSE_TYPE",
              "QUIET"] + extra
    pair = detect + "," + measure
    base = os.path.join(work, "dual")
    subprocess.run([sex, pair, "-CATALOG_NAME", base + ".sex.cat"] + common, check=True, cwd=work)
    subprocess.run([celeris, "extract", pair, "-CATALOG_NAME", base + ".cel.cat"] + common,
                   check=True, cwd=work)
    label = os.path.basename(detect) + "," + os.path.basename(measure)
    return subprocess.run([sys.executable, os.path.join(HERE, "compare_catalogs.py"),
                           base + ".sex.cat", base + ".cel.cat", "--label", label] +
                          options).returncode


if __name__ == "__main__":
    sys.exit(main())
