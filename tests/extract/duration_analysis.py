#!/usr/bin/env python3
"""DURATION_ANALYSIS, the wall-clock time of each object's measurement, against source-extractor:
a timing cannot match bit for bit, so both tools run on the same image and the column is
compared for what can match (name, description and unit in ASCII_HEAD; TFORM and TUNIT in
FITS_1.0: celeris writes no TDISPn for any column yet) and checked for what a duration must be (finite, not negative, printed as %9.4g,
each below the whole run's time, their sum below the run's time times its threads, some above
0). The same checks on source-extractor's own values guard the checks.

usage: duration_analysis.py CELERIS_BIN WORKDIR
Exit code 77 (ctest SKIP) when source-extractor or astropy is absent.
"""
import math
import os
import re
import subprocess
import sys
import time

from parity_runs import exit_code, need_astropy, sextractor, simulate, write_params

PARAMS = ["NUMBER", "X_IMAGE", "FLUX_AUTO", "DURATION_ANALYSIS"]
THREADS = 2


def header_line(catalog, name):
    with open(catalog) as f:
        for line in f:
            if line.startswith("#") and line.split()[2] == name:
                return line.split(None, 2)[2].rstrip()
    return None


def rows(catalog):
    with open(catalog) as f:
        return [line.rstrip("\n") for line in f if not line.startswith("#")]


def check_values(tool, values, printed, seconds, threads):
    """One line per broken expectation; `printed` are the ASCII fields."""
    bad = []
    if not values:
        bad.append(f"{tool}: no rows")
    if any(not math.isfinite(v) or v < 0 for v in values):
        bad.append(f"{tool}: a duration is negative or not finite")
    if any(v >= seconds for v in values):
        bad.append(f"{tool}: a duration reaches the whole run's {seconds:.3g} s")
    if sum(values) > seconds * threads:
        bad.append(f"{tool}: durations sum to {sum(values):.3g} s, more than {seconds:.3g} s x "
                   f"{threads} threads")
    if not any(v > 0 for v in values):
        bad.append(f"{tool}: every duration is 0")
    for text, v in zip(printed, values):
        if len(text) != 9 or not re.fullmatch(r" *[-+0-9.e]+", text):
            bad.append(f"{tool}: {text!r} is not a %9.4g field")
            break
        if abs(float(text) - v) > 5e-4 * abs(v):  # 4 significant digits of the stored float
            bad.append(f"{tool}: printed {text!r}, stored {v!r}")
            break
    return bad


def main():
    celeris, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    sex = sextractor()
    need_astropy()
    from astropy.io import fits
    os.makedirs(work, exist_ok=True)
    image = simulate(celeris, os.path.join(work, "border.fits"),
                     ["--size", "512", "--seed", "15", "--stars", "400"])
    param = write_params(os.path.join(work, "duration.param"), PARAMS)
    bad = []
    catalogs = {}
    for tool, cmd, threads in (("source-extractor", [sex], 1),
                               ("celeris", [celeris, "extract"], THREADS)):
        for kind, ext in (("ASCII_HEAD", "cat"), ("FITS_1.0", "fits")):
            out = os.path.join(work, f"{tool}.{ext}")
            args = cmd + [image, "-PARAMETERS_NAME", param, "-CATALOG_NAME", out,
                          "-CATALOG_TYPE", kind, "-VERBOSE_TYPE", "QUIET", "-FILTER", "N"]
            if tool == "celeris":
                args += ["-NTHREADS", str(THREADS)]
            start = time.monotonic()
            subprocess.run(args, check=True, cwd=work, stderr=subprocess.DEVNULL)
            catalogs[tool, kind] = (out, time.monotonic() - start, threads)
    ref_head = header_line(catalogs["source-extractor", "ASCII_HEAD"][0], "DURATION_ANALYSIS")
    got_head = header_line(catalogs["celeris", "ASCII_HEAD"][0], "DURATION_ANALYSIS")
    if ref_head != got_head:
        bad.append(f"ASCII_HEAD column: {got_head!r}, source-extractor {ref_head!r}")
    cards = {}
    for tool in ("source-extractor", "celeris"):
        with fits.open(catalogs[tool, "FITS_1.0"][0]) as hdus:
            table = hdus["OBJECTS"]
            k = table.columns.names.index("DURATION_ANALYSIS") + 1
            cards[tool] = [table.header.get(f"{key}{k}") for key in ("TFORM", "TUNIT")]
            values = [float(v) for v in table.data["DURATION_ANALYSIS"]]
        out, seconds, threads = catalogs[tool, "ASCII_HEAD"]
        printed = [line[-9:] for line in rows(out)]
        _, fits_seconds, _ = catalogs[tool, "FITS_1.0"]
        # The ASCII run's printed values against its own run; the FITS run's stored ones
        # against the FITS run (two runs: the durations differ between them).
        ascii_values = [float(t) for t in printed]
        bad += check_values(tool + " ASCII", ascii_values, printed, seconds, threads)
        bad += check_values(tool + " FITS", values, ["%9.4g" % v for v in values], fits_seconds,
                            threads)
        print(f"{tool}: {len(values)} objects, median duration "
              f"{sorted(values)[len(values) // 2]:.3g} s, sum {sum(values):.3g} s "
              f"in a {fits_seconds:.3g} s run")
    if cards["source-extractor"] != cards["celeris"]:
        bad.append(f"FITS_1.0 TFORM/TUNIT: celeris {cards['celeris']}, "
                   f"source-extractor {cards['source-extractor']}")
    for line in bad:
        print("FAIL " + line)
    print("DURATION_ANALYSIS: " + ("FAIL" if bad else "PASS"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(exit_code(main))
