#!/usr/bin/env python3
"""celeris xmatch against its peers on one machine, in one run: a self-match of the paper's d1
set (1M rows, `celeris simulate catalog --table3 d1`) at a given radius.

usage: bench_peers.py CELERIS_BIN BENCH_TABLE3_BIN WORKDIR [radius_arcsec ...]
  (run with a python that has astropy + scipy; STILTS is skipped when `stilts` is absent)

Timed, each as the median of `REPEATS` runs:
  * celeris, in memory: bench_xmatch_table3 (the library's self_pairs, CPU, 1 and 2 threads) at
    the Table III radius only (that program's radius);
  * celeris, file to file: `celeris xmatch --self d1.fits` (read FITS, match, write the pairs);
  * astropy search_around_sky on SkyCoord arrays already in memory (its pairs include i == j
    and both orientations, as it has no self-match mode);
  * STILTS tmatch2 d1.fits d1.fits matcher=sky find=all join=1and2, file to file (JVM start
    included; like astropy it also finds the self pairs and both orientations); one run only,
    as it takes a minute or more.
"""
import os
import platform
import shutil
import subprocess
import sys
import time

import numpy as np
from astropy.coordinates import SkyCoord, search_around_sky
from astropy.io import fits
import astropy.units as u

REPEATS = 3


def timed(fn, repeats=REPEATS):
    times = []
    out = None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2], out


def main():
    celeris, table3, work = (os.path.abspath(a) for a in sys.argv[1:4])
    radii = [float(r) for r in sys.argv[4:]] or [2.0, 20.16]
    os.makedirs(work, exist_ok=True)
    cat = os.path.join(work, "d1.fits")
    print(f"# bench_peers  machine: {platform.node()} {platform.machine()}, "
          f"{os.cpu_count()} cores  date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("# command: " + " ".join(sys.argv))
    subprocess.run([celeris, "simulate", "catalog", "--table3", "d1", "--seed", "1", "-o", cat],
                   check=True, stdout=subprocess.DEVNULL)
    with fits.open(cat) as h:
        data = h[1].data
        ra, dec = np.array(data["RA"], dtype=float), np.array(data["DEC"], dtype=float)
    n = len(ra)
    print(f"# catalog: {cat}, {n} rows (Table III d1)")
    coords = SkyCoord(ra * u.deg, dec * u.deg)
    stilts = shutil.which("stilts")

    # celeris in memory (library call, CPU), Table III radius.
    for threads in (1, 2):
        out = subprocess.run([table3, "d1", str(threads)], check=True, capture_output=True,
                             text=True).stdout
        line = next(l for l in out.splitlines() if l.startswith("cpu"))
        print(f"celeris in memory, {threads} thread(s), 20.16\": {line}")

    for radius in radii:
        print(f"\n## radius {radius} arcsec")
        for threads in (1, 2):
            dst = os.path.join(work, "pairs.fits")
            secs, _ = timed(lambda: subprocess.run(
                [celeris, "xmatch", "--self", cat, "--radius", f"{radius}arcsec", "--threads",
                 str(threads), "--backend", "cpu", "-o", dst, "-q"], check=True))
            with fits.open(dst) as h:
                pairs = len(h[1].data)
            print(f"celeris xmatch --self file->file, {threads} thread(s): {secs:.2f} s, "
                  f"{pairs} pairs i<j")
        secs, res = timed(lambda: search_around_sky(coords, coords, radius * u.arcsec))
        i, j = res[0], res[1]
        print(f"astropy search_around_sky (in memory, 1 thread): {secs:.2f} s, {len(i)} pairs "
              f"incl. self and both orientations = {(len(i) - n) // 2} pairs i<j")
        if stilts:
            dst = os.path.join(work, "stilts.fits")
            cmd = [stilts, "tmatch2", "in1=" + cat, "in2=" + cat, "matcher=sky",
                   "values1=RA DEC", "values2=RA DEC", f"params={radius}", "find=all",
                   "join=1and2", "out=" + dst]
            secs, _ = timed(lambda: subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                                                   stderr=subprocess.DEVNULL), repeats=1)
            with fits.open(dst) as h:
                rows = len(h[1].data)
            print(f"STILTS tmatch2 file->file (JVM, its default threads; 1 run): {secs:.2f} s, {rows} "
                  f"rows incl. self and both orientations = {(rows - n) // 2} pairs i<j")
        else:
            print("STILTS: not installed")


if __name__ == "__main__":
    main()
