#!/usr/bin/env python3
"""Which HDU of DGEO_IMAGE source-extractor reads (makeit.c: nima0 < 0 ? ntab : (ndgeo < 0 ? 1 :
ndgeo)), against celeris: a simulation written as one image and as a file of two image HDUs,
maps of one HDU and of two (the second the first negated, so that reading the wrong one moves
every position), and each pairing of an image named with or without its HDU and a map named
with or without one; every catalog row identical (compare_catalogs.py for one HDU, every line
of the ASCII_HEAD catalogs for the whole two-image file), and in a stream of two frames.

usage: dgeo_hdu_parity.py CELERIS_BIN WORKDIR
Exit code 77 (ctest SKIP) when source-extractor or astropy is absent.
"""
import os
import sys

from dgeo_parity import PARAMS, write_map
from parity_runs import (COMMON, compare, exit_code, need_astropy, run_both, sextractor,
                         simulate, write_conv, write_params)

# (image, map): an image named without its HDU reads the map's HDU of the same number, whatever
# the map's name says; one named with it reads the HDU the map's name gives, else the second.
# A multi-extension image (two.fits named without an HDU) reads the map's HDU of each extension's
# number, or the one HDU of a map that has one; its catalogs are compared line for line.
CASES = [("one.fits", "map1.fits"), ("one.fits", "map2.fits"), ("one.fits", "map2.fits[1]"),
         ("two.fits[1]", "map1.fits"), ("two.fits[1]", "map2.fits"), ("two.fits[0]", "map2.fits"),
         ("two.fits[1]", "map2.fits[0]"), ("two.fits", "map1.fits"), ("two.fits", "map2.fits"),
         ("two.fits", "map2.fits[1]")]


def main():
    celeris, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    sex = sextractor()
    need_astropy()
    import numpy as np
    from astropy.io import fits
    os.makedirs(work, exist_ok=True)
    one = simulate(celeris, os.path.join(work, "one.fits"), ["--size", "256", "--seed", "21",
                                                             "--stars", "60"])
    data = fits.getdata(one)
    fits.HDUList([fits.PrimaryHDU(data), fits.ImageHDU(data)]).writeto(
        os.path.join(work, "two.fits"), overwrite=True)
    cube = fits.getdata(write_map(one, os.path.join(work, "map1.fits"), "smooth"))
    fits.HDUList([fits.PrimaryHDU(cube), fits.ImageHDU(-cube)]).writeto(
        os.path.join(work, "map2.fits"), overwrite=True)
    param = write_params(os.path.join(work, "hdu.param"), PARAMS)
    verdict = 0
    for k, (image, dgeo) in enumerate(CASES):
        args = (["-PARAMETERS_NAME", param, "-FILTER_NAME", write_conv(work)] + COMMON +
                ["-DGEO_TYPE", "PIXEL", "-DGEO_IMAGE", dgeo])
        catalogs = (os.path.join(work, f"case{k}.sex.cat"), os.path.join(work, f"case{k}.cel.cat"))
        run_both(sex, celeris, image, catalogs, args, work)
        label = f"{image} with {dgeo}"
        if "[" in image:
            verdict |= compare(*catalogs, label, ["--same-columns", "--rows-frac", "1.0"])
            continue
        with open(catalogs[0]) as a, open(catalogs[1]) as b:  # both extensions' rows, in order
            rows = [r for r in a if not r.startswith("#")], [r for r in b if not r.startswith("#")]
        same = rows[0] == rows[1] and len(rows[0]) > 0
        print(f"{label:32s} {len(rows[0])} and {len(rows[1])} rows: " +
              ("every line identical PASS" if same else "FAIL"))
        verdict |= 0 if same else 1
    # A stream of frames (two images on one command line, one catalog each) reads the map for
    # each frame: both catalogs must be source-extractor's of one.fits with map2.fits (case 1).
    import shutil
    import subprocess
    shutil.copy(os.path.join(work, "one.fits"), os.path.join(work, "one_copy.fits"))
    args = (["-PARAMETERS_NAME", param, "-FILTER_NAME", write_conv(work)] + COMMON +
            ["-DGEO_TYPE", "PIXEL", "-DGEO_IMAGE", "map2.fits"])
    subprocess.run([celeris, "extract", "one.fits", "one_copy.fits", "-CATALOG_NAME",
                    "stream_{stem}.cat"] + args, check=True, cwd=work)
    with open(os.path.join(work, "case1.sex.cat")) as f:
        want = [r for r in f if not r.startswith("#")]
    for stem in ("one", "one_copy"):
        with open(os.path.join(work, f"stream_{stem}.cat")) as f:
            got = [r for r in f if not r.startswith("#")]
        same = got == want and len(want) > 0
        print(f"stream frame {stem}.fits with map2.fits {len(got)} rows: " +
              ("every line identical PASS" if same else "FAIL"))
        verdict |= 0 if same else 1
    return verdict


if __name__ == "__main__":
    sys.exit(exit_code(main))
