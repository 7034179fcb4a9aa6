#!/usr/bin/env python3
"""Run Debian's source-extractor and celeris on the same image with the same configuration and
compare the catalogs object by object (compare_catalogs.py, the extraction issue's acceptance).

usage: parity.py CELERIS_BIN IMAGE|sim:<name> WORKDIR [--drop-cards K1,K2] [--set-cards K=V,K=V]
                 [--crop Y0:Y1,X0:X1] [--rows-frac F] [--params P1,P2] [--col-tol NAME=TOL ...]
                 [-- extra -KEY VALUE ...]
--crop runs both tools on rows Y0:Y1 and columns X0:X1 (numpy slices, 0-based) of the image's
first image HDU, written with its header (CRPIX moved with the crop; needs astropy).
--params adds catalog parameters to the compared list (VIGNET(w,h) keeps its comma; FLUX_APER(5)
replaces the listed FLUX_APER(2)); --append-params P1,P2 appends them as given, even names
already listed (a .param file listing a parameter twice);
--col-tol NAME=TOL also requires the median relative difference of column NAME <= TOL
(compare_catalogs.py). --flag-maps N writes N
flag maps of the image's size (int32; rectangles of flag values, some overlapping, over objects
and sky; seeded) and passes them as FLAG_IMAGE to both tools (needs astropy).
sim:<name> generates the image with `celeris simulate image` (sparse, crowded, nan, saturated,
border, strips). --drop-cards / --set-cards run both tools on a copy of the image without those
header cards / with those set (numbers where they parse as numbers; needs astropy). Exit code 77
(ctest SKIP) when the image, source-extractor or astropy is absent.
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PARAMS = """NUMBER
X_IMAGE
Y_IMAGE
FLUX_ISO
FLUXERR_ISO
FLUX_AUTO
FLUXERR_AUTO
FLUX_APER(2)
ISOAREA_IMAGE
A_IMAGE
B_IMAGE
THETA_IMAGE
FLUX_RADIUS
FWHM_IMAGE
FLAGS
"""
SIMS = {
    "sparse": ["--size", "2048", "--seed", "11"],
    "crowded": ["--size", "2048", "--seed", "12", "--density", "crowded"],
    "nan": ["--size", "1024", "--seed", "13", "--nan-patches", "12"],
    "saturated": ["--size", "1024", "--seed", "14", "--saturated", "6"],
    "border": ["--size", "512", "--seed", "15", "--stars", "400"],
    # Taller than SExtractor's 1024-line buffer: objects written out during the scan, apertures
    # clipped to the buffer (FLAGS 16), saturated stars and NaN patches.
    "strips": ["--size", "3000", "--seed", "9", "--saturated", "40", "--nan-patches", "6"],
}


def flag_map(shape, rng, rectangles=1500):
    """A flag map (int32) of `rectangles` rectangles of single bits, combinations and larger
    values; half OR'ed onto what is there, half overwriting it, so that objects see several
    distinct values."""
    import numpy as np
    m = np.zeros(shape, np.int32)
    for r in range(rectangles):
        h, w = rng.integers(3, 40, size=2)
        y0, x0 = rng.integers(0, shape[0]), rng.integers(0, shape[1])
        v = int(rng.choice([1, 2, 4, 8, 16, 3, 5, 12, 64, 1000, 65536]))
        if r % 2:
            m[y0:y0 + h, x0:x0 + w] |= v
        else:
            m[y0:y0 + h, x0:x0 + w] = v
    return m


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    drop = []
    if "--drop-cards" in argv:
        k = argv.index("--drop-cards")
        drop = argv[k + 1].split(",")
        del argv[k:k + 2]
    cards = {}
    if "--set-cards" in argv:
        k = argv.index("--set-cards")
        for item in argv[k + 1].split(","):
            key, value = item.split("=", 1)
            try:
                cards[key] = float(value)
            except ValueError:
                cards[key] = value
        del argv[k:k + 2]
    crop = None
    if "--crop" in argv:
        k = argv.index("--crop")
        crop = [tuple(int(v) for v in part.split(":")) for part in argv[k + 1].split(",")]
        del argv[k:k + 2]
    rows_frac = []  # --rows-frac F: the fraction of identical rows required (default 0.99)
    if "--rows-frac" in argv:
        k = argv.index("--rows-frac")
        rows_frac = ["--rows-frac", argv[k + 1]]
        del argv[k:k + 2]
    params = PARAMS
    if "--params" in argv:
        k = argv.index("--params")
        # Commas inside parentheses belong to the parameter: VIGNET(w,h). One already listed with
        # another vector size (FLUX_APER(5)) replaces it: SExtractor would keep only the last.
        lines = params.splitlines()
        for p in re.split(r",(?![^(]*\))", argv[k + 1]):
            same = [i for i, q in enumerate(lines) if q.split("(")[0] == p.split("(")[0]]
            if same:
                lines[same[0]] = p
            else:
                lines.append(p)
        params = "".join(q + "\n" for q in lines)
        del argv[k:k + 2]
    if "--append-params" in argv:
        k = argv.index("--append-params")
        params += "".join(p + "\n" for p in re.split(r",(?![^(]*\))", argv[k + 1]))
        del argv[k:k + 2]
    col_tols = []
    while "--col-tol" in argv:
        k = argv.index("--col-tol")
        col_tols += ["--col-tol", argv[k + 1]]
        del argv[k:k + 2]
    n_flag_maps = 0
    if "--flag-maps" in argv:
        k = argv.index("--flag-maps")
        n_flag_maps = int(argv[k + 1])
        del argv[k:k + 2]
    celeris, image, work = os.path.abspath(argv[0]), argv[1], os.path.abspath(argv[2])
    sex = shutil.which("source-extractor") or shutil.which("sex")
    if not sex:
        print("source-extractor not installed: skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    if image.startswith("sim:"):
        name = image[4:]
        path = os.path.join(work, name + ".fits")
        subprocess.run([celeris, "simulate", "image", "-o", path] + SIMS[name], check=True,
                       stdout=subprocess.DEVNULL)
        image, label = path, "sim:" + name
    else:
        image = os.path.abspath(image)
        if not os.path.exists(image):
            print(image, "absent: skipped")
            return 77
        label = os.path.basename(image)
    if drop or cards:
        try:
            from astropy.io import fits
        except ImportError:
            print("astropy not installed: skipped")
            return 77
        with fits.open(image) as hdus:
            for key in drop:
                hdus[0].header.remove(key, ignore_missing=True)
            for key, value in cards.items():
                hdus[0].header[key] = value
            stem = os.path.basename(image).replace(".fits", "")
            if drop:
                label += " without " + ",".join(drop)
                stem += "-without-" + "-".join(drop)
            if cards:
                label += " with " + ",".join(cards)
                stem += "-with-" + "-".join(cards)
            image = os.path.join(work, stem + ".fits")
            hdus.writeto(image, overwrite=True)
    if crop:
        try:
            import numpy as np
            from astropy.io import fits
        except ImportError:
            print("astropy not installed: skipped")
            return 77
        (y0, y1), (x0, x1) = crop
        with fits.open(image) as hdus:
            hdu = next(h for h in hdus if h.data is not None)
            header = hdu.header.copy()
            for key, shift in (("CRPIX1", x0), ("CRPIX2", y0)):
                if key in header:
                    header[key] -= shift
            stem = os.path.basename(image).replace(".fits", "") + f"-crop-{y0}-{y1}-{x0}-{x1}"
            label += f"[{y0}:{y1}, {x0}:{x1}]"
            image = os.path.join(work, stem + ".fits")
            fits.writeto(image, hdu.data[y0:y1, x0:x1].astype(np.float32), header, overwrite=True)
    if n_flag_maps:
        try:
            import numpy as np
            from astropy.io import fits
        except ImportError:
            print("astropy not installed: skipped")
            return 77
        with fits.open(image) as hdus:
            shape = next(h.data.shape for h in hdus if h.data is not None)
        rng = np.random.default_rng(19)
        names = []
        for k in range(n_flag_maps):
            names.append(os.path.join(work, f"flag{k}.fits"))
            fits.writeto(names[-1], flag_map(shape, rng), overwrite=True)
        extra = ["-FLAG_IMAGE", ",".join(names)] + extra
    with open(os.path.join(work, "parity.param"), "w") as f:
        f.write(params)
    conv = os.path.join(work, "default.conv")
    with open(conv, "w") as f:
        f.write("CONV NORM\n1 2 1\n2 4 2\n1 2 1\n")
    common = ["-PARAMETERS_NAME", os.path.join(work, "parity.param"), "-FILTER_NAME", conv,
              "-PHOT_APERTURES", "5,10", "-CATALOG_TYPE", "ASCII_HEAD", "-VERBOSE_TYPE", "QUIET"] + extra
    base = os.path.join(work, os.path.basename(image))
    # Both tools run from WORKDIR so that neither picks up a stray default.sex.
    subprocess.run([sex, image, "-CATALOG_NAME", base + ".sex.cat"] + common, check=True, cwd=work)
    subprocess.run([celeris, "extract", image, "-CATALOG_NAME", base + ".cel.cat"] + common,
                   check=True, cwd=work)
    return subprocess.run([sys.executable, os.path.join(HERE, "compare_catalogs.py"),
                           base + ".sex.cat", base + ".cel.cat", "--label", label,
                           "--same-columns"] +
                          rows_frac + col_tols).returncode


if __name__ == "__main__":
    sys.exit(main())
