"""What every parity driver of tests/extract shares: finding source-extractor, the input image
(a file or a `celeris simulate` image), the .param and .conv files, running source-extractor and
celeris on the same input with the same arguments, and comparing the two ASCII_HEAD catalogs
with compare_catalogs.py. The drivers (parity.py, photo_parity.py, rice_parity.py,
weights_parity.py, weights_dual_image_parity.py, assoc_parity.py, mef_parity.py) keep only what
their case makes or compares differently.

A missing tool or input raises Skip; a driver's main() is wrapped by `exit_code`, which turns it
into exit code 77 (ctest SKIP) with one line saying what is absent.
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIPPED = 77  # ctest SKIP_RETURN_CODE of every parity test
# The filter both tools run with: SExtractor's default.conv (a 3x3 pyramid), written next to the
# catalogs so that neither tool picks up another one.
CONV = "CONV NORM\n1 2 1\n2 4 2\n1 2 1\n"
# Arguments both tools get in the catalog comparisons (parity.py, weights_dual_image_parity.py).
COMMON = ["-PHOT_APERTURES", "5,10", "-CATALOG_TYPE", "ASCII_HEAD", "-VERBOSE_TYPE", "QUIET"]


class Skip(Exception):
    """A tool or an input of the test is absent: the test is skipped, not failed."""


def exit_code(main):
    """main()'s return value, or 77 with the reason printed when it raises Skip."""
    try:
        return main()
    except Skip as absent:
        print(f"{absent}: skipped")
        return SKIPPED


def sextractor():
    """The path of Debian's source-extractor (or `sex`)."""
    sex = shutil.which("source-extractor") or shutil.which("sex")
    if not sex:
        raise Skip("source-extractor not installed")
    return sex


def need_astropy():
    try:
        import astropy.io.fits  # noqa: F401
    except ImportError:
        raise Skip("astropy not installed")


def split_extra(argv):
    """(options, extra): the arguments before `--`, and the -KEY VALUE pairs after it, which go
    to both tools unchanged."""
    if "--" in argv:
        k = argv.index("--")
        return argv[:k], argv[k + 1:]
    return list(argv), []


def take(argv, flag, default=None):
    """The value after the first `flag` in argv (the pair removed), or `default`."""
    if flag not in argv:
        return default
    k = argv.index(flag)
    value = argv[k + 1]
    del argv[k:k + 2]
    return value


def take_all(argv, flag):
    """The values after every `flag` in argv, in order (the pairs removed)."""
    values = []
    while flag in argv:
        values.append(take(argv, flag))
    return values


def take_switch(argv, flag):
    """Whether `flag` (an option without a value) is in argv (removed)."""
    if flag not in argv:
        return False
    argv.remove(flag)
    return True


def split_params(text):
    """P1,P2,... as a list; commas inside parentheses belong to the parameter: VIGNET(w,h)."""
    return re.split(r",(?![^(]*\))", text)


def simulate(celeris, path, args):
    """`celeris simulate image` with `args` written to `path`; returns `path`."""
    subprocess.run([celeris, "simulate", "image", "-o", path] + args, check=True,
                   stdout=subprocess.DEVNULL)
    return path


def input_image(celeris, spec, work, sims):
    """The absolute path of the test's image: a file, or for sim:<name> the simulation
    sims[name] (arguments of `celeris simulate image`) written to WORKDIR/<name>.fits
    (sim.fits for the unnamed `sim:`)."""
    if spec.startswith("sim:"):
        name = spec[4:]
        if name not in sims:
            sys.exit(f"unknown simulation {spec!r}: one of " +
                     ", ".join("sim:" + n for n in sims))
        return simulate(celeris, os.path.join(work, (name or "sim") + ".fits"), sims[name])
    path = os.path.abspath(spec)
    if not os.path.exists(path):
        raise Skip(path + " absent")
    return path


def image_pixels(path, drop=("BSCALE", "BZERO", "BLANK", "BITPIX")):
    """(data, header) of the first 2-D image HDU of `path`; the header without the cards of
    `drop` (by default the scaling ones: the data are already scaled, and a copy written with
    them would be scaled twice)."""
    from astropy.io import fits
    with fits.open(path) as hdus:
        hdu = next(h for h in hdus if h.data is not None and h.data.ndim == 2)
        data, header = hdu.data, hdu.header.copy()
    for key in drop:
        header.remove(key, ignore_missing=True)
    return data, header


def write_conv(work):
    path = os.path.join(work, "default.conv")
    with open(path, "w") as f:
        f.write(CONV)
    return path


def write_params(path, names):
    """A .param file listing `names`, one a line, in order."""
    with open(path, "w") as f:
        f.write("".join(n + "\n" for n in names))
    return path


def run_both(sex, celeris, image, catalogs, args, cwd, quiet=(), own=None):
    """source-extractor, then `celeris extract`, on `image` with the same `args`, writing
    catalogs[0] and catalogs[1]; from `cwd` so that neither picks up a stray default.sex. The
    tools named in `quiet` ("sex", "cel") have their stderr discarded; own[tool], when given,
    are that tool's own arguments (names of the files it writes), put before `args`."""
    own = own or {}
    for tool, cmd, catalog in (("sex", [sex], catalogs[0]),
                               ("cel", [celeris, "extract"], catalogs[1])):
        subprocess.run(cmd + [image, "-CATALOG_NAME", catalog] + own.get(tool, []) + args,
                       check=True, cwd=cwd, stderr=subprocess.DEVNULL if tool in quiet else None)


def compare(sex_catalog, cel_catalog, label, options):
    """compare_catalogs.py's verdict (its exit code) on the two ASCII_HEAD catalogs."""
    return subprocess.run([sys.executable, os.path.join(HERE, "compare_catalogs.py"), sex_catalog,
                           cel_catalog, "--label", label] + options).returncode


def parity(celeris, image, work, stem, params, extra, label, options):
    """Both tools on `image` (a file, or `detect,measure`) with `params` (a list of catalog
    parameters), the 3x3 filter, COMMON and `extra`; the catalogs WORKDIR/<stem>.sex.cat and
    .cel.cat compared (compare_catalogs.py `options`). Returns compare_catalogs.py's exit code."""
    sex = sextractor()
    param = write_params(os.path.join(work, "parity.param"), params)
    args = ["-PARAMETERS_NAME", param, "-FILTER_NAME", write_conv(work)] + COMMON + extra
    base = os.path.join(work, stem)
    catalogs = (base + ".sex.cat", base + ".cel.cat")
    run_both(sex, celeris, image, catalogs, args, work)
    return compare(*catalogs, label, options)


def exact_columns(celeris, image, work, stem, params, extra, names):
    """Both tools on `image` as parity() runs them, but writing FITS_1.0 catalogs, whose columns
    `names` must be equal bit for bit (float32 as stored), object for object in catalog order
    (the ASCII comparison prints 7 digits; this checks the stored floats). Returns 0 when equal,
    1 with one line per differing column otherwise."""
    need_astropy()
    import numpy as np
    from astropy.io import fits
    sex = sextractor()
    param = write_params(os.path.join(work, "exact.param"), params)
    args = (["-PARAMETERS_NAME", param, "-FILTER_NAME", write_conv(work)] + COMMON + extra
            + ["-CATALOG_TYPE", "FITS_1.0"])
    base = os.path.join(work, stem + ".exact")
    catalogs = (base + ".sex.fits", base + ".cel.fits")
    run_both(sex, celeris, image, catalogs, args, work)
    with fits.open(catalogs[0]) as s, fits.open(catalogs[1]) as c:
        ref, got = s["OBJECTS"].data, c["OBJECTS"].data
        bad = 0
        if len(ref) != len(got):
            print(f"exact columns: {len(ref)} source-extractor rows, {len(got)} celeris rows")
            return 1
        for name in names:
            a, b = np.asarray(ref[name]), np.asarray(got[name])
            differ = ~((a == b) | (np.isnan(a) & np.isnan(b)))
            if a.shape != b.shape or differ.any():
                bad += 1
                rel = np.abs(a - b) / np.maximum(np.abs(a), 1e-30) if a.shape == b.shape else [0]
                print(f"exact columns: {name} differs in {int(differ.sum())} of {differ.size} "
                      f"values (max relative difference {np.max(rel):.3g})")
            else:
                print(f"exact columns: {name} equal bit for bit ({a.size} values, "
                      f"{len(a)} objects)")
    return 1 if bad else 0
