#!/usr/bin/env python3
"""ASSOC parity: celeris and Debian's source-extractor on the same image with the same ASSOC list,
catalogs compared row for row (every printed value identical, same rows, same order).

usage: assoc_parity.py CELERIS_BIN IMAGE|sim:<name> WORKDIR [--crop X0,Y0,W,H] [--quick]

The list is made from a source-extractor run on the image (no ASSOC): every object's position
moved by up to the radius (so some fall out of it), a second entry on most objects (two entries in
reach: NEAREST/FIRST/MIN/MAX choose, MEAN/SUM combine), exact duplicates and entries sharing a y
(ties, which SExtractor breaks by file order), entries with magnitudes 99 or beyond, zero and
negative weights, fake entries over the image and entries off it. Then each ASSOC configuration
(every ASSOC_TYPE, ASSOCSELEC_TYPE, ASSOC_DATA 0 and a list, VECTOR_ASSOC longer than the data,
NUMBER_ASSOC alone, two ASSOC_PARAMS, several radii, ASSOCCOORD_TYPE WORLD, an empty list) runs
through both tools. --crop cuts a region of the image first (needs astropy); --quick runs a subset.
Exit code 77 (ctest SKIP) when source-extractor, the image or astropy (for --crop) is absent.
"""
import math
import os
import random
import subprocess
import sys

from parity_runs import (exit_code, input_image, need_astropy, run_both, sextractor, take,
                         take_switch, write_conv, write_params)

SIMS = {
    "border": ["--size", "512", "--seed", "15", "--stars", "400"],
    "crowded": ["--size", "1024", "--seed", "12", "--density", "crowded"],
}
BASE_PARAMS = ["NUMBER", "X_IMAGE", "Y_IMAGE", "ALPHA_J2000", "DELTA_J2000", "MAG_AUTO",
               "FLUX_AUTO"]
# Each configuration's list: these, then VECTOR_ASSOC(n) (none for n = 0: NUMBER_ASSOC alone).
PARAMS = ["NUMBER", "X_IMAGE", "Y_IMAGE", "FLUX_AUTO", "FLAGS", "NUMBER_ASSOC"]


def make_list(rows, width, height, radius, seed, world=False):
    """Entries: id x y mag flux weight (columns 1..6); positions in pixels, or RA/Dec."""
    rng = random.Random(seed)
    # degrees per pixel, from pairs of objects (the list's moves in WORLD mode are in pixels)
    ratios = []
    for a, b in zip(rows, rows[1:]):
        dpix = math.hypot(a[0] - b[0], a[1] - b[1])
        if dpix > 10:
            dra = (a[2] - b[2]) * math.cos(math.radians(a[3]))
            ratios.append(math.hypot(dra, a[3] - b[3]) / dpix)
    scale = sorted(ratios)[len(ratios) // 2] if ratios else 1 / 3600.0
    out = []
    k = 0
    for r in rows:
        x, y, ra, dec, mag, flux = r
        k += 1
        if world:
            d = radius * scale  # moves of up to 1.2 radius
            px, py = (ra + rng.uniform(-1.2, 1.2) * d / math.cos(math.radians(dec)),
                      dec + rng.uniform(-1.2, 1.2) * d)
        else:
            px, py = x + rng.uniform(-1.2, 1.2) * radius, y + rng.uniform(-1.2, 1.2) * radius
        m = mag + rng.gauss(0, 0.1)
        if k % 17 == 0:
            m = 99.0
        if k % 29 == 0:
            m = -120.0  # |mag| >= 99: no flux in MAG_MEAN / MAG_SUM
        w = rng.choice([1.0, 2.5, 0.0, -1.0, 0.3]) if k % 5 == 0 else rng.uniform(0.1, 3)
        out.append((px, py, m, flux * rng.uniform(0.9, 1.1), w))
        if k % 7 == 0:  # an exact duplicate (NEAREST, MIN, MAX ties) with other data
            out.append((px, py, m, flux * 2, w))
        if world:
            continue
        if k % 3 == 0:  # a second entry near the same object
            out.append((px + rng.uniform(-0.5, 0.5) * radius, py + rng.uniform(-0.5, 0.5) * radius,
                        m + 0.5, flux, rng.uniform(-1, 3)))
        if k % 11 == 0:  # the same y, another x (sorting ties)
            out.append((px + 0.3 * radius, py, m - 0.2, flux, w + 1))
    if not world:
        for _ in range(max(20, len(rows) // 4)):  # fakes over the image
            out.append((rng.uniform(0, width + 1), rng.uniform(0, height + 1),
                        rng.uniform(15, 25), rng.uniform(1, 1e4), rng.uniform(0, 2)))
        for xy in [(-5, -5), (width + 10, 3), (3, height + 10), (width / 2, height + 0.6),
                   (width / 2, -0.6)]:  # off the image
            out.append((xy[0], xy[1], 20.0, 100.0, 1.0))
    rng.shuffle(out)
    lines = ["# id x y mag flux weight"]
    for i, (px, py, m, f, w) in enumerate(out):
        xy = f"{px:.9f} {py:.9f}" if world else f"{px:.6f} {py:.6f}"
        lines.append(f"{i + 1} {xy} {m:.4f} {f:.5g} {w:.3f}")
    return "\n".join(lines) + "\n"


CONFIGS = [
    # (label, VECTOR_ASSOC size (0: NUMBER_ASSOC alone), list, options)
    ("nearest_matched_data0", 8, "pix", ["-ASSOC_DATA", "0"]),
    ("nearest_all_data", 3, "pix", ["-ASSOC_DATA", "1,4,6", "-ASSOCSELEC_TYPE", "ALL"]),
    ("first_all", 4, "pix", ["-ASSOC_TYPE", "FIRST", "-ASSOC_DATA", "1,2,3,4",
                             "-ASSOCSELEC_TYPE", "ALL"]),
    ("mean_weight", 4, "pix", ["-ASSOC_TYPE", "MEAN", "-ASSOC_PARAMS", "2,3,6",
                               "-ASSOC_DATA", "1,4,5,6", "-ASSOCSELEC_TYPE", "ALL"]),
    ("mag_mean", 3, "pix", ["-ASSOC_TYPE", "MAG_MEAN", "-ASSOC_PARAMS", "2,3,4",
                            "-ASSOC_DATA", "4,5,1", "-ASSOCSELEC_TYPE", "ALL"]),
    ("sum_notmatched", 3, "pix", ["-ASSOC_TYPE", "SUM", "-ASSOC_DATA", "1,5,6",
                                  "-ASSOCSELEC_TYPE", "-MATCHED"]),
    ("mag_sum", 2, "pix", ["-ASSOC_TYPE", "MAG_SUM", "-ASSOC_DATA", "4,1",
                           "-ASSOCSELEC_TYPE", "ALL", "-ASSOC_RADIUS", "6"]),
    ("min", 3, "pix", ["-ASSOC_TYPE", "MIN", "-ASSOC_PARAMS", "2,3,4", "-ASSOC_DATA", "1,4,6",
                       "-ASSOCSELEC_TYPE", "ALL", "-ASSOC_RADIUS", "4"]),
    ("max_matched", 3, "pix", ["-ASSOC_TYPE", "MAX", "-ASSOC_PARAMS", "2,3,6",
                               "-ASSOC_DATA", "1,4,6", "-ASSOC_RADIUS", "4"]),
    ("two_params_mean_is_first", 2, "pix", ["-ASSOC_TYPE", "MEAN", "-ASSOC_PARAMS", "2,3",
                                            "-ASSOC_DATA", "1,4", "-ASSOCSELEC_TYPE", "ALL"]),
    ("number_only", 0, "pix", ["-ASSOCSELEC_TYPE", "ALL", "-ASSOC_RADIUS", "15"]),
    ("small_radius", 2, "pix", ["-ASSOC_DATA", "1,4", "-ASSOC_RADIUS", "0.5"]),
    ("world_nearest", 3, "world", ["-ASSOCCOORD_TYPE", "WORLD", "-ASSOC_DATA", "1,2,3",
                                   "-ASSOCSELEC_TYPE", "ALL", "-ASSOC_RADIUS", "2"]),
    ("empty_list", 2, "empty", ["-ASSOCSELEC_TYPE", "ALL"]),
]
QUICK = {"nearest_matched_data0", "mean_weight", "mag_sum", "max_matched", "world_nearest"}


def main():
    argv = sys.argv[1:]
    crop = take(argv, "--crop")
    crop = [int(v) for v in crop.split(",")] if crop else None
    quick = take_switch(argv, "--quick")
    celeris, spec, work = os.path.abspath(argv[0]), argv[1], os.path.abspath(argv[2])
    sex = sextractor()
    os.makedirs(work, exist_ok=True)
    image = input_image(celeris, spec, work, SIMS)
    if crop:
        need_astropy()
        from astropy.io import fits
        x0, y0, w, h = crop
        with fits.open(image) as hdus:
            hdu = next(hd for hd in hdus if hd.data is not None and hd.data.ndim == 2)
            header = hdu.header.copy()
            if "CRPIX1" in header:
                header["CRPIX1"] -= x0
                header["CRPIX2"] -= y0
            path = os.path.join(work, "crop.fits")
            fits.writeto(path, hdu.data[y0:y0 + h, x0:x0 + w], header, overwrite=True)
        image = path
    conv = write_conv(work)
    common = ["-FILTER_NAME", conv, "-CATALOG_TYPE", "ASCII_HEAD", "-VERBOSE_TYPE", "QUIET"]
    # The objects the list is made from: a source-extractor run without ASSOC.
    base = os.path.join(work, "base.cat")
    subprocess.run([sex, image, "-CATALOG_NAME", base, "-PARAMETERS_NAME",
                    write_params(os.path.join(work, "base.param"), BASE_PARAMS)] + common,
                   check=True, cwd=work)
    rows = []
    with open(base) as f:
        for line in f:
            if not line.startswith("#"):
                v = [float(t) for t in line.split()]
                rows.append((v[1], v[2], v[3], v[4], v[5], v[6]))
    width = height = 0
    with open(image, "rb") as f:  # NAXIS1/2 from the primary header (enough for these files)
        head = f.read(28800).decode("ascii", "replace")
        for k in range(0, len(head), 80):
            card = head[k:k + 80]
            if card.startswith("NAXIS1 "):
                width = int(card[10:30])
            if card.startswith("NAXIS2 "):
                height = int(card[10:30])
    lists = {}
    for kind in ("pix", "world", "empty"):
        lists[kind] = os.path.join(work, f"assoc_{kind}.list")
        with open(lists[kind], "w") as f:
            if kind == "empty":
                f.write("# nothing here\n")
            else:
                f.write(make_list(rows, width, height, 2.0, 19, world=(kind == "world")))
    failed = []
    for label, n, kind, options in CONFIGS:
        if quick and label not in QUICK:
            continue
        param = write_params(os.path.join(work, label + ".param"),
                             PARAMS + ([f"VECTOR_ASSOC({n})"] if n else []))
        args = ["-PARAMETERS_NAME", param, "-ASSOC_NAME", lists[kind]] + common + options
        out = {tool: os.path.join(work, f"{label}.{tool}.cat") for tool in ("sex", "cel")}
        run_both(sex, celeris, image, (out["sex"], out["cel"]), args, work, quiet=("sex", "cel"))
        a, b = open(out["sex"]).read().splitlines(), open(out["cel"]).read().splitlines()
        data_a = [l for l in a if not l.startswith("#")]
        data_b = [l for l in b if not l.startswith("#")]
        same = sum(x == y for x, y in zip(data_a, data_b))
        matched = sum(1 for l in data_a if int(l.split()[5]) > 0)
        ok = a == b
        print(f"{label:28s} rows {len(data_a):5d} / {len(data_b):5d}  matched {matched:5d}  "
              f"identical {same:5d}  {'PASS' if ok else 'FAIL'}")
        if not ok:
            failed.append(label)
            for x, y in zip(a, b):
                if x != y:
                    print("  source-extractor:", x)
                    print("  celeris:         ", y)
                    break
    print("FAILED: " + ", ".join(failed) if failed else "all identical")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(exit_code(main))
