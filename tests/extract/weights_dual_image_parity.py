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
import sys

from parity import PARAMS, SIMS
from parity_runs import (Skip, exit_code, image_pixels, input_image, need_astropy, parity, sextractor,
                         split_extra, split_params, take, take_all)


def second_band(detect, path, seed):
    import numpy as np
    from astropy.io import fits
    data, header = image_pixels(detect)  # the same sky: the same WCS
    data = data.astype(np.float64)
    h, w = data.shape
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    band = 0.6 * data + 80.0 + 0.05 * x - 0.03 * y + rng.normal(0.0, 4.0, data.shape)
    for _ in range(20):  # sources seen in this band only
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        band += rng.uniform(200, 2000) * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * 1.5 ** 2))
    fits.writeto(path, band.astype(np.float32), header, overwrite=True)


def main():
    argv, extra = split_extra(sys.argv[1:])
    rows_frac = take(argv, "--rows-frac")
    options = ["--rows-frac", rows_frac] if rows_frac is not None else []
    for item in take_all(argv, "--col-tol"):  # NAME=TOL, passed on to compare_catalogs.py
        options += ["--col-tol", item]
    wtype = take(argv, "--weights")
    params = list(PARAMS)
    for more in take_all(argv, "--params"):  # appended as given
        params += split_params(more)
    celeris, detect, measure = os.path.abspath(argv[0]), argv[1], argv[2]
    work = os.path.abspath(argv[3])
    sextractor()
    os.makedirs(work, exist_ok=True)
    detect = input_image(celeris, detect, work, SIMS)
    if measure.startswith("band:"):
        need_astropy()
        path = os.path.join(work, "band.fits")
        second_band(detect, path, int(measure[5:]))
        measure = path
    measure = os.path.abspath(measure)
    if not os.path.exists(measure):
        raise Skip(measure + " absent")
    if wtype:
        need_astropy()
        from astropy.io import fits
        from weights_parity import weight_map_args
        with fits.open(detect) as hdus:
            shape = next(h.data.shape for h in hdus if h.data is not None)
        extra = weight_map_args(shape, wtype, work, "dual") + extra
    label = os.path.basename(detect) + "," + os.path.basename(measure)
    return parity(celeris, detect + "," + measure, work, "dual", params, extra, label, options)


if __name__ == "__main__":
    sys.exit(exit_code(main))
