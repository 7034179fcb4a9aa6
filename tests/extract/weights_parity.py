#!/usr/bin/env python3
"""Weight-map parity with source-extractor: a crop of an image (or a simulation) with a generated
weight map, both tools run through parity.py with the same WEIGHT_* settings.

usage: weights_parity.py CELERIS_BIN IMAGE|sim:<name> WORKDIR TYPE [--crop X0,Y0,W,H]
                         [parity.py options ...] [-- extra -KEY VALUE ...]
TYPE: BACKGROUND, MAP_WEIGHT, MAP_RMS or MAP_VAR, or two of them separated by a comma (separate
detection and measurement weights; each MAP_* type gets its own map). The map (seeded) is a
smooth gradient of the
noise across the frame (weights from 0.4 to 2.5) with rectangles of bad pixels (weight 0, or an
RMS / variance beyond the default WEIGHT_THRESH), some over objects, some over sky, one on the
border. Exit code 77 (ctest SKIP) when the image, source-extractor or astropy is absent.
"""
import os
import subprocess
import sys

from parity_runs import (HERE, exit_code, image_pixels, input_image, need_astropy, sextractor,
                         split_extra, take)

BAD_VARIANCE = 1.0e30  # SExtractor's BIG: a variance at or beyond it is a bad pixel
SIMS = {"small": ["--size", "600", "--seed", "31", "--stars", "500"]}


def weight_map(shape, seed=23):
    import numpy as np
    h, w = shape
    y, x = np.mgrid[0:h, 0:w]
    # Relative weights (1 / variance up to a scale): a smooth gradient and a gentle bump; the
    # gradient runs the other way for the second map of a pair.
    ramp = x / max(w - 1, 1) if seed == 23 else 1.0 - y / max(h - 1, 1)
    weight = 0.4 + 2.1 * ramp
    weight *= 1.0 + 0.3 * np.exp(-(((x - 0.6 * w) / (0.25 * w)) ** 2 + ((y - 0.4 * h) / (0.3 * h)) ** 2))
    bad = np.zeros(shape, bool)
    rng = np.random.default_rng(seed)
    for _ in range(10):
        rh, rw = rng.integers(4, max(5, min(h, w) // 8), size=2)
        y0, x0 = rng.integers(0, h - rh), rng.integers(0, w - rw)
        bad[y0:y0 + rh, x0:x0 + rw] = True
    bad[:, :3] = True  # a bad border column band: INTERP_MAXYLAG and the truncation flag
    return weight.astype(np.float32), bad


def map_of_type(wtype, weight, bad):
    """The map of WEIGHT_TYPE `wtype` (MAP_WEIGHT, MAP_VAR or MAP_RMS) for the relative weights
    and bad pixels of weight_map(); a variance of 25 where the weight is 1."""
    import numpy as np
    if wtype == "MAP_WEIGHT":
        return np.where(bad, 0.0, weight)
    if wtype == "MAP_VAR":
        return np.where(bad, BAD_VARIANCE, 25.0 / weight)
    return np.where(bad, BAD_VARIANCE, 5.0 / np.sqrt(weight))  # MAP_RMS


def weight_map_args(shape, wtype, work, stem):
    """Writes a generated map for each MAP_* type of WTYPE ("A" or "A,B") and returns the
    -WEIGHT_TYPE / -WEIGHT_IMAGE arguments."""
    import numpy as np
    from astropy.io import fits
    args = ["-WEIGHT_TYPE", wtype]
    images = []
    for k, one in enumerate(wtype.split(",")):
        if one in ("BACKGROUND", "NONE"):
            continue
        m = map_of_type(one, *weight_map(shape, 23 + k))
        images.append(os.path.join(work, f"{stem}.{k}.{one.lower()}.fits"))
        fits.writeto(images[-1], m.astype(np.float32), overwrite=True)
    if images:
        args += ["-WEIGHT_IMAGE", ",".join(images)]
    return args


def main():
    argv, extra = split_extra(sys.argv[1:])
    crop = take(argv, "--crop")
    crop = [int(v) for v in crop.split(",")] if crop else None
    celeris, spec, wtype = os.path.abspath(argv[0]), argv[1], argv[3]
    work = os.path.abspath(argv[2])
    passthrough = argv[4:]
    sextractor()
    need_astropy()
    import numpy as np
    from astropy.io import fits
    os.makedirs(work, exist_ok=True)
    image = input_image(celeris, spec, work, SIMS)
    data, header = image_pixels(image)
    data = data.astype(np.float32)
    if crop:
        x0, y0, w, h = crop
        data = data[y0:y0 + h, x0:x0 + w]
    stem = os.path.basename(image).replace(".fits", "") + ("-crop" if crop else "")
    frame = os.path.join(work, stem + ".fits")
    fits.writeto(frame, data, header if not crop else None, overwrite=True)
    args = weight_map_args(data.shape, wtype, work, stem)
    return subprocess.run([sys.executable, os.path.join(HERE, "parity.py"), celeris, frame,
                           work] + passthrough + ["--"] + args + extra).returncode


if __name__ == "__main__":
    sys.exit(exit_code(main))
