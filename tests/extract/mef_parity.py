#!/usr/bin/env python3
"""A multi-extension FITS file through source-extractor and celeris: the catalogs must be the
same, byte for byte in ASCII_HEAD, table by table in FITS_LDAC (an LDAC_IMHEAD / LDAC_OBJECTS
pair per extension) and FITS_1.0 (an OBJECTS table per extension). The extensions are a crowded
simulation (many deblended objects: SExtractor's rand() stream runs on from one extension to the
next), a sparse one with NaN patches, and, when ../shared/data is present, crops of two real
images with their WCS. Exit 77 (ctest SKIP) without source-extractor or astropy.

usage: mef_parity.py CELERIS_BIN WORKDIR [DATA_DIR] [options] [-- -KEY VALUE ...]
options (each writes what it needs as multi-extension files of the image's layout, one
extension per image extension, as SExtractor reads them: HDU n for HDU n):
  --small           the simulations 400x400 and 400x300, and the HorseHead crop only (quicker)
  --types T1,T2     the catalog types compared (default ASCII_HEAD,FITS_LDAC,FITS_1.0)
  --params P1,P2    more catalog parameters
  --weights TYPE    weight maps for TYPE (MAP_WEIGHT, MAP_RMS, MAP_VAR, or detection,measurement
                    as "MAP_RMS,MAP_WEIGHT"); each extension's map differs (weights_parity.py's
                    gradients and bad rectangles, seeded by extension)
  --flag-maps N     N flag maps (parity.py's rectangles, seeded by extension)
  --dual            dual-image mode: detection the file above, measurement a second
                    multi-extension file (each extension scaled, with a gradient added)
  --check T1,T2     check images, each one file with an extension per image extension: the HDU
                    layout (empty primary with NEXTEND, the EXTNAMEs, BITPIX, sizes) and every
                    pixel (check_images.py's comparison) must be source-extractor's
  --stream          celeris also runs the file in a stream of frames, after a one-image frame
                    (`celeris extract crowded.fits mef.fits -CATALOG_NAME stream.{stem}...`):
                    the file's catalog from the stream must be source-extractor's too
"""
import os
import shutil
import subprocess
import sys

from parity_runs import (exit_code, need_astropy, run_both, sextractor, simulate,
                         split_extra, split_params, take_all, take_switch, write_conv, write_params)

PARAMS = ["NUMBER", "EXT_NUMBER", "ID_PARENT", "X_IMAGE", "Y_IMAGE", "FLUX_ISO", "FLUX_AUTO",
          "FLUXERR_AUTO",
          "FLUX_APER(1)", "MAG_AUTO", "A_IMAGE", "THETA_IMAGE", "FLUX_RADIUS", "FLAGS"]


def take(argv, flag, default=None):
    """The value after the last `flag` in argv (every `flag` and its value removed), or
    `default`."""
    values = take_all(argv, flag)
    return values[-1] if values else default


def image_extensions(celeris, work, data, small):
    """The image extensions (astropy ImageHDUs) of the test file."""
    import numpy as np
    from astropy.io import fits
    sims = [("crowded", ["--size", "400" if small else "700", "--density", "crowded",
                         "--seed", "5"])]
    sims.append(("sparse", ["--width", "400" if small else "600", "--height",
                            "300" if small else "450", "--seed", "6", "--nan-patches", "2"]))
    hdus = []
    for name, args in sims:
        path = os.path.join(work, name + ".fits")
        simulate(celeris, path, args)
        with fits.open(path) as f:
            hdus.append(fits.ImageHDU(f[0].data.astype(np.float32), f[0].header, name=name))
    # Crops of real images with their WCS (a crop whose giant border object differs in
    # FLUX_AUTO on its own, HorseHead[0:400, 0:500], is not used: that is not the MEF's doing).
    reals = [("HorseHead", 400, 300)] + ([] if small else [("spitzer_example_image", 100, 100)])
    for name, y0, x0 in reals:
        real = os.path.join(data, "images", name + ".fits") if data else ""
        if real and os.path.exists(real):
            with fits.open(real) as f:
                crop = f[0].data[y0:y0 + 400, x0:x0 + 500].astype(np.float32)
                hdus.append(fits.ImageHDU(crop, f[0].header.copy(), name=name[:8]))
    return hdus


def write_mef(path, images):
    """A file of an empty primary HDU and one image extension per array of `images`."""
    from astropy.io import fits
    fits.HDUList([fits.PrimaryHDU()] + [fits.ImageHDU(a) for a in images]).writeto(
        path, overwrite=True)


def weight_files(wtype, shapes, work):
    """-WEIGHT_TYPE / -WEIGHT_IMAGE arguments: one multi-extension map per MAP_* type of WTYPE,
    extension k's map made from weights_parity.weight_map with its own seed."""
    import numpy as np
    from weights_parity import map_of_type, weight_map
    names = []
    for i, one in enumerate(wtype.split(",")):
        if one in ("BACKGROUND", "NONE"):
            continue
        maps = []
        for k, shape in enumerate(shapes):
            # Seed 23 ramps along x, the others along y: the maps of a pair run differently.
            maps.append(map_of_type(
                one, *weight_map(shape, 23 if (i + k) % 2 == 0 else 40 + 7 * k + i)))
        names.append(os.path.join(work, f"weight{i}.{one.lower()}.fits"))
        write_mef(names[-1], [m.astype(np.float32) for m in maps])
    return ["-WEIGHT_TYPE", wtype] + (["-WEIGHT_IMAGE", ",".join(names)] if names else [])


def flag_files(n, shapes, work):
    import numpy as np
    from parity import flag_map
    names = []
    for i in range(n):
        names.append(os.path.join(work, f"flag{i}.fits"))
        write_mef(names[-1], [flag_map(shape, np.random.default_rng(19 + 10 * i + k), 600)
                              for k, shape in enumerate(shapes)])
    return ["-FLAG_IMAGE", ",".join(names)]


def compare_catalogs(ctype, sex_cat, cel_cat, n_ext):
    import numpy as np
    from astropy.io import fits
    if ctype.startswith("ASCII"):
        a, b = (open(p, "rb").read() for p in (sex_cat, cel_cat))
        rows = [line for line in a.splitlines() if not line.startswith(b"#")]
        exts = sorted({int(line.split()[1]) for line in rows}) if ctype == "ASCII_HEAD" else []
        ok = a == b and len(rows) > 100 and (ctype != "ASCII_HEAD" or len(exts) == n_ext)
        print(f"{ctype}: {len(rows)} rows over extensions {exts}: "
              f"{'identical' if a == b else 'DIFFERENT'}")
        return ok
    with fits.open(sex_cat) as s, fits.open(cel_cat) as c:
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
          f"source-extractor's {names_s}); every table column {'identical' if ok else 'DIFFERENT'}")
    return ok


def compare_check_files(ctype, sex_path, cel_path):
    """One check image of each tool: the HDU layout, then every extension's pixels."""
    import numpy as np
    from astropy.io import fits
    from check_images import compare_pixels
    with fits.open(sex_path) as s, fits.open(cel_path) as c:
        layout = [(h.name, h.header["BITPIX"], h.data.shape if h.data is not None else None)
                  for h in s]
        layout_c = [(h.name, h.header["BITPIX"], h.data.shape if h.data is not None else None)
                    for h in c]
        ok = (layout == layout_c and s[0].data is None
              and s[0].header.get("NEXTEND") == c[0].header.get("NEXTEND") == len(s) - 1)
        if not ok:
            print(f"{ctype:16s} layout {layout_c} != source-extractor's {layout} "
                  f"(NEXTEND {c[0].header.get('NEXTEND')} / {s[0].header.get('NEXTEND')})")
            return False
        counts = []
        for hs, hc in zip(s[1:], c[1:]):
            ndiff, nmask, nmasked = compare_pixels(hs.data.astype(np.float64),
                                                   hc.data.astype(np.float64))
            counts.append(f"{hs.name} {ndiff}/{nmask}/{nmasked}")
            ok &= ndiff == 0 and nmask == 0
    print(f"{ctype:16s} {len(s) - 1} extensions, layout identical; differing/mask-mismatched/"
          f"masked pixels: {', '.join(counts)}  {'PASS' if ok else 'FAIL'}")
    return ok


def main():
    argv, extra = split_extra(sys.argv[1:])
    small = take_switch(argv, "--small")
    dual = take_switch(argv, "--dual")
    stream = take_switch(argv, "--stream")
    types = take(argv, "--types", "ASCII_HEAD,FITS_LDAC,FITS_1.0").split(",")
    more = take(argv, "--params")
    params = PARAMS + (split_params(more) if more else [])
    wtype = take(argv, "--weights")
    n_flag_maps = int(take(argv, "--flag-maps", "0"))
    checks = take(argv, "--check", "")
    checks = checks.split(",") if checks else []
    celeris, work = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    data = argv[2] if len(argv) > 2 else ""
    sex = sextractor()
    need_astropy()
    import numpy as np
    from astropy.io import fits
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    exts = image_extensions(celeris, work, data, small)
    mef = os.path.join(work, "mef.fits")
    fits.HDUList([fits.PrimaryHDU()] + exts).writeto(mef, overwrite=True)
    shapes = [h.data.shape for h in exts]
    image = mef
    if dual:
        # The measurement image: each extension scaled and given a gradient, its header kept
        # (the catalog's LDAC_IMHEAD is the measurement image's).
        meas = []
        for h in exts:
            y, x = np.mgrid[0:h.data.shape[0], 0:h.data.shape[1]]
            meas.append(fits.ImageHDU((0.8 * h.data + 0.01 * x + 0.02 * y).astype(np.float32),
                                      h.header, name=h.name))
        meas_path = os.path.join(work, "meas.fits")
        fits.HDUList([fits.PrimaryHDU()] + meas).writeto(meas_path, overwrite=True)
        image = mef + "," + meas_path
    if wtype:
        extra = weight_files(wtype, shapes, work) + extra
    if n_flag_maps:
        extra = flag_files(n_flag_maps, shapes, work) + extra
    write_params(os.path.join(work, "mef.param"), params)
    write_conv(work)
    args = ["-PARAMETERS_NAME", "mef.param", "-FILTER_NAME", "default.conv", "-VERBOSE_TYPE",
            "QUIET"]
    failed = 0
    for ctype in types:
        cats, check_names, check_args = {}, {}, {}
        for tool in ("sex", "cel"):
            cats[tool] = os.path.join(work, f"{tool}.{ctype}.cat")
            check_names[tool] = [os.path.join(work, f"{tool}.check{i}.fits")
                                 for i in range(len(checks))]
            check_args[tool] = ["-CHECKIMAGE_TYPE", ",".join(checks), "-CHECKIMAGE_NAME",
                                ",".join(check_names[tool])] if checks else []
        run_both(sex, celeris, image, (cats["sex"], cats["cel"]),
                 args + ["-CATALOG_TYPE", ctype] + extra, work, quiet=("sex",),
                 own=check_args)
        failed += not compare_catalogs(ctype, cats["sex"], cats["cel"], len(exts))
        if stream:
            # The file as the second input of a stream (extract_files): one catalog per input.
            pattern = os.path.join(work, f"stream.{{stem}}.{ctype}.cat")
            subprocess.run([celeris, "extract", os.path.join(work, "crowded.fits"), image,
                            "-CATALOG_NAME", pattern] + args + ["-CATALOG_TYPE", ctype] + extra,
                           check=True, cwd=work)
            print("stream:", end=" ")
            failed += not compare_catalogs(ctype, cats["sex"], pattern.replace("{stem}", "mef"),
                                           len(exts))
        for t, s_path, c_path in zip(checks, check_names["sex"], check_names["cel"]):
            failed += not compare_check_files(t, s_path, c_path)
        checks = []  # the check images of the first catalog type only
    if dual:
        # One pair of extensions named (the comma outside CFITSIO's brackets splits the pair),
        # without the multi-extension maps (SExtractor would read their HDU 1 for it).
        pair = f"{mef}[1],{meas_path}[1]"
        cats = {tool: os.path.join(work, f"{tool}.pair.cat") for tool in ("sex", "cel")}
        run_both(sex, celeris, pair, (cats["sex"], cats["cel"]), args, work, quiet=("sex",))
        a, b = (open(cats[t], "rb").read() for t in ("sex", "cel"))
        rows = sum(1 for line in a.splitlines() if not line.startswith(b"#"))
        print(f"{os.path.basename(mef)}[1],{os.path.basename(meas_path)}[1]: {rows} rows "
              f"{'identical' if a == b else 'DIFFERENT'}")
        failed += a != b or rows < 10
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(exit_code(main))
