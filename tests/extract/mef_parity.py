#!/usr/bin/env python3
"""A multi-extension FITS file through source-extractor and celeris: the catalogs must be the
same, byte for byte in ASCII_HEAD, table by table in FITS_LDAC (an LDAC_IMHEAD / LDAC_OBJECTS
pair per extension) and FITS_1.0 (an OBJECTS table per extension). The extensions are a crowded
simulation (many deblended objects: SExtractor's rand() stream runs on from one extension to the
next), a sparse one with NaN patches, and, when ../shared/data is present, crops of two real
images with their WCS. Exit 77 (ctest SKIP) without source-extractor or astropy.

usage: mef_parity.py CELERIS_BIN WORKDIR [DATA_DIR]
"""
import os
import shutil
import subprocess
import sys

PARAMS = ["NUMBER", "EXT_NUMBER", "ID_PARENT", "X_IMAGE", "Y_IMAGE", "FLUX_ISO", "FLUX_AUTO", "FLUXERR_AUTO",
          "FLUX_APER(1)", "MAG_AUTO", "A_IMAGE", "THETA_IMAGE", "FLUX_RADIUS", "FLAGS"]


def main():
    celeris, work = sys.argv[1], sys.argv[2]
    data = sys.argv[3] if len(sys.argv) > 3 else ""
    sex = shutil.which("source-extractor") or shutil.which("sex")
    if not sex:
        print("source-extractor not installed: skipped")
        return 77
    try:
        import numpy as np
        from astropy.io import fits
    except ImportError:
        print("astropy not installed: skipped")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    sims = [("crowded", ["--size", "700", "--density", "crowded", "--seed", "5"]),
            ("sparse", ["--width", "600", "--height", "450", "--seed", "6", "--nan-patches", "2"])]
    hdus = [fits.PrimaryHDU()]
    for name, args in sims:
        path = os.path.join(work, name + ".fits")
        subprocess.run([celeris, "simulate", "image", "-o", path] + args, check=True,
                       stdout=subprocess.DEVNULL)
        with fits.open(path) as f:
            hdus.append(fits.ImageHDU(f[0].data.astype(np.float32), f[0].header, name=name))
    # Crops of real images with their WCS (a crop whose giant border object differs in
    # FLUX_AUTO on its own, HorseHead[0:400, 0:500], is not used: that is not the MEF's doing).
    for name, y0, x0 in [("HorseHead", 400, 300), ("spitzer_example_image", 100, 100)]:
        real = os.path.join(data, "images", name + ".fits") if data else ""
        if real and os.path.exists(real):
            with fits.open(real) as f:
                crop = f[0].data[y0:y0 + 400, x0:x0 + 500].astype(np.float32)
                hdus.append(fits.ImageHDU(crop, f[0].header.copy(), name=name[:8]))
    mef = os.path.join(work, "mef.fits")
    fits.HDUList(hdus).writeto(mef, overwrite=True)
    with open(os.path.join(work, "mef.param"), "w") as f:
        f.write("\n".join(PARAMS) + "\n")
    with open(os.path.join(work, "default.conv"), "w") as f:
        f.write("CONV NORM\n1 2 1\n2 4 2\n1 2 1\n")
    failed = 0
    for ctype in ["ASCII_HEAD", "FITS_LDAC", "FITS_1.0"]:
        cats = {}
        for tool, cmd in [("sex", [sex]), ("cel", [celeris, "extract"])]:
            cats[tool] = os.path.join(work, f"{tool}.{ctype}.cat")
            subprocess.run(cmd + [mef, "-PARAMETERS_NAME", "mef.param", "-FILTER_NAME",
                                  "default.conv", "-CATALOG_TYPE", ctype, "-CATALOG_NAME",
                                  cats[tool], "-VERBOSE_TYPE", "QUIET"],
                           check=True, cwd=work, stderr=subprocess.DEVNULL)
        if ctype == "ASCII_HEAD":
            a, b = (open(cats[t], "rb").read() for t in ("sex", "cel"))
            rows = sum(1 for line in a.splitlines() if not line.startswith(b"#"))
            exts = sorted({int(line.split()[1]) for line in a.splitlines()
                           if not line.startswith(b"#")})
            ok = a == b and rows > 100 and len(exts) == len(hdus) - 1
            print(f"{ctype}: {rows} rows over extensions {exts}: "
                  f"{'identical' if a == b else 'DIFFERENT'}")
        else:
            with fits.open(cats["sex"]) as s, fits.open(cats["cel"]) as c:
                names_s = [h.name for h in s[1:]]
                names_c = [h.name for h in c[1:]]
                ok = names_s == names_c
                tables = 0
                for hs, hc in zip(s[1:], c[1:]):
                    if hs.name == "LDAC_IMHEAD":
                        continue
                    tables += 1
                    for col in hs.columns.names:
                        if not np.array_equal(hs.data[col], hc.data[col], equal_nan=True):
                            print(f"{ctype} {hs.name} #{tables}: column {col} differs")
                            ok = False
            print(f"{ctype}: HDUs {names_c} ({'same as' if names_s == names_c else 'NOT'} "
                  f"source-extractor's {names_s}); every table column "
                  f"{'identical' if ok else 'DIFFERENT'}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
