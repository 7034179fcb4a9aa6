#!/usr/bin/env python3
"""Rice (fpack-style tile-compressed) frames: celeris on the compressed file against Debian's
source-extractor on the same pixels uncompressed, object by object (parity.py's comparison,
every row identical). source-extractor 2.25 cannot read tile-compressed images itself ("Unknown
TFORM"), so the plain file is its input; integer images only, for which Rice is lossless.

usage: rice_parity.py CELERIS_BIN IMAGE|sim: WORKDIR
sim: is a crowded 1024x1024 simulation. Exit code 77 (ctest SKIP) when the image,
source-extractor or astropy is absent.
"""
import os
import subprocess
import sys

from parity_runs import HERE, exit_code, image_pixels, input_image, need_astropy, sextractor

SIMS = {"": ["--size", "1024", "--seed", "21", "--density", "crowded"]}


def main():
    celeris, spec, work = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
    sextractor()
    need_astropy()
    import numpy as np
    from astropy.io import fits
    os.makedirs(work, exist_ok=True)
    image = input_image(celeris, spec, work, SIMS)
    data, header = image_pixels(image)
    # Integer pixels (the stored values, no scaling), written plain and Rice-compressed.
    pixels = np.round(data).astype(np.int32)
    plain = os.path.join(work, "plain.fits")
    packed = os.path.join(work, "packed.fits.fz")
    fits.writeto(plain, pixels, header, overwrite=True)
    fits.HDUList([fits.PrimaryHDU(),
                  fits.CompImageHDU(pixels, header, compression_type="RICE_1")]).writeto(
                      packed, overwrite=True)
    # parity.py runs both tools on one image: run it with celeris reading the packed file.
    wrapper = os.path.join(work, "celeris-on-packed.sh")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\n# celeris on the Rice-compressed copy of the image parity.py gives\n'
                f'if [ "$1" = extract ]; then shift 2; exec "{celeris}" extract "{packed}" "$@"; fi\n'
                f'exec "{celeris}" "$@"\n')
    os.chmod(wrapper, 0o755)
    return subprocess.run([sys.executable, os.path.join(HERE, "parity.py"), wrapper, plain,
                           work, "--rows-frac", "1.0"]).returncode


if __name__ == "__main__":
    sys.exit(exit_code(main))
