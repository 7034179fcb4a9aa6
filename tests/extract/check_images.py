#!/usr/bin/env python3
"""Writes every check image celeris supports with celeris and with Debian's source-extractor on
the same image and configuration, and requires them to be equal pixel for pixel. Masked pixels
are NaN in celeris and SExtractor's -BIG (about -1e30, or a fraction of it after filtering) in
SExtractor: the two sets of masked pixels must coincide.

usage: check_images.py CELERIS_BIN WORKDIR [IMAGE] [--params P1,P2]
(exit 77 = skipped: no source-extractor/astropy)
Without IMAGE, a simulated crowded 768x768 field with NaN patches. --params adds catalog
parameters (FLUX_PETRO: the Petrosian ellipses are drawn on APERTURES too).
"""
import os
import shutil
import subprocess
import sys

TYPES = ["BACKGROUND", "BACKGROUND_RMS", "MINIBACKGROUND", "MINIBACK_RMS", "-BACKGROUND",
         "FILTERED", "SEGMENTATION", "OBJECTS", "-OBJECTS",
         "APERTURES"]


def compare_pixels(a, b):
    """SExtractor's check image `a` against celeris's `b` (same shape, float64): the number of
    pixels that differ where neither is masked, the number masked in one only, and the number
    masked in SExtractor's."""
    import numpy as np
    masked_s = a < -1e20
    masked_c = ~np.isfinite(b)
    both = ~masked_s & ~masked_c
    return (int(np.count_nonzero(a[both] != b[both])),
            int(np.count_nonzero(masked_s != masked_c)), int(masked_s.sum()))


def main():
    argv = sys.argv[1:]
    extra_params = []
    if "--params" in argv:
        k = argv.index("--params")
        extra_params = argv[k + 1].split(",")
        del argv[k:k + 2]
    celeris, work = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    sex = shutil.which("source-extractor") or shutil.which("sex")
    try:
        import numpy as np
        from astropy.io import fits
    except ImportError:
        print("astropy not available: skipped")
        return 77
    if not sex:
        print("source-extractor not installed: skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    image = os.path.join(work, "field.fits")
    if len(argv) > 2:
        image = os.path.abspath(argv[2])
    else:
        # NaN patches and a crowded field: masked pixels, blends and cleaning in one image.
        subprocess.run([celeris, "simulate", "image", "-o", image, "--size", "768", "--seed",
                        "31", "--nan-patches", "4", "--density", "crowded"], check=True,
                       stdout=subprocess.DEVNULL)
    with open(os.path.join(work, "check.param"), "w") as f:
        # Apertures and Kron photometry: drawn on APERTURES.
        f.write("NUMBER\nX_IMAGE\nY_IMAGE\nFLUX_ISO\nFLUX_APER(2)\nFLUX_AUTO\nFLAGS\n" +
                "".join(p + "\n" for p in extra_params))
    with open(os.path.join(work, "default.conv"), "w") as f:
        f.write("CONV NORM\n1 2 1\n2 4 2\n1 2 1\n")
    failed = 0
    outputs = {}
    for tool, exe in (("sex", [sex]), ("cel", [celeris, "extract"])):
        names = [os.path.join(work, f"{tool}_{i}.fits") for i in range(len(TYPES))]
        subprocess.run(exe + [image, "-PARAMETERS_NAME", "check.param", "-FILTER_NAME",
                              "default.conv", "-CATALOG_NAME", f"{tool}.cat", "-VERBOSE_TYPE",
                              "QUIET", "-PHOT_APERTURES", "5,12", "-CHECKIMAGE_TYPE", ",".join(TYPES),
                              "-CHECKIMAGE_NAME", ",".join(names)], check=True, cwd=work)
        outputs[tool] = names
    for t, s_path, c_path in zip(TYPES, outputs["sex"], outputs["cel"]):
        a = fits.getdata(s_path).astype(np.float64)
        b = fits.getdata(c_path).astype(np.float64)
        if a.shape != b.shape:
            print(f"{t:16s} shape {a.shape} vs {b.shape}: FAIL")
            failed += 1
            continue
        ndiff, nmask, nmasked = compare_pixels(a, b)
        ok = ndiff == 0 and nmask == 0
        failed += not ok
        print(f"{t:16s} {a.shape[1]}x{a.shape[0]}  differing pixels {ndiff}  masked-set "
              f"mismatches {nmask} (masked {nmasked})  {'PASS' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
