#!/usr/bin/env python3
"""celeris xmatch against STILTS tmatch2 (matcher=sky find=all|best join=1and2): identical pair sets.

usage: compare_stilts.py CELERIS_BIN WORKDIR. Exit 77 (ctest SKIP) when `stilts` is not on PATH
(Debian package stilts).

Catalogs: SDSS-like ones from `celeris simulate catalog` (a stripe with repeat detections, split
into two sides by row parity, so most pairs are re-detections of one source), and dense random
ones written here across RA 0/360 and at both poles (stdlib only: no numpy needed). Self-matches are compared with tmatch2 of
the catalog with itself, keeping its pairs i < j (tmatch2 also pairs every row with itself).
"""
import csv
import math
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pair_sets import compare_pair_sets  # noqa: E402

STILTS = shutil.which("stilts")
if STILTS is None:
    print("stilts not installed: skipped")
    sys.exit(77)


def write(path, ids, ra, dec):
    with open(path, "w") as f:
        f.write("id,ra,dec\n")
        for i, a, d in zip(ids, ra, dec):
            f.write(f"{int(i)},{a:.12f},{d:.12f}\n")


def read_pairs(path):
    """{(id_1, id_2): separation} of a CSV with columns id_1, id_2 and a separation column."""
    with open(path) as f:
        rows = list(csv.DictReader(row for row in f if not row.startswith("#")))
    pairs = {}
    for r in rows:
        pairs[(int(float(r["id_1"])), int(float(r["id_2"])))] = float(r["Separation"])
    return pairs


def stilts_pairs(work, name, left, right, radius, find="all"):
    out = os.path.join(work, name + ".stilts.csv")
    # Quick JVM start (C1 compiler only, serial GC): these matches take well under a second.
    cmd = [STILTS, "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "tmatch2", "in1=" + left, "ifmt1=csv", "in2=" + right, "ifmt2=csv",
           "matcher=sky", "values1=ra dec", "values2=ra dec", f"params={radius!r}",
           "find=" + find, "join=1and2", "out=" + out, "ofmt=csv"]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"stilts failed: {' '.join(cmd)}\n{done.stderr}")
    return read_pairs(out)


def celeris_pairs(celeris, work, name, left, right, radius, self_match, find="all"):
    out = os.path.join(work, name + ".celeris.csv")
    inputs = ["--self", left] if self_match else [left, right]
    cmd = [celeris, "xmatch"] + inputs + ["--radius", f"{radius!r}arcsec", "--find", find,
                                          "-o", out, "-q"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return read_pairs(out)


def compare(celeris, work, name, left, right, radius, self_match=False, find="all"):
    ref = stilts_pairs(work, name, left, right if not self_match else left, radius, find)
    if self_match:
        ref = {p: s for p, s in ref.items() if p[0] < p[1]}
    mine = celeris_pairs(celeris, work, name, left, right, radius, self_match, find)
    cmp = compare_pair_sets(ref, mine, radius)
    only_ref, only_mine, boundary = cmp.only_ref, cmp.only_mine, cmp.boundary
    real, maxdiff = cmp.real, cmp.maxdiff
    ok = real == 0 and maxdiff < 1e-6 and len(ref) > 0
    print(f"{name:24s} radius {radius:6.2f}\" stilts {len(ref):7d} celeris {len(mine):7d} "
          f"only-stilts {len(only_ref)} only-celeris {len(only_mine)} boundary {len(boundary)} "
          f"max|dsep| {maxdiff:.2e} arcsec {'PASS' if ok else 'FAIL'}")
    for p in sorted(only_ref)[:5]:
        print("  only stilts", p, ref[p])
    for p in sorted(only_mine)[:5]:
        print("  only celeris", p, mine[p])
    return ok


def split_simulated(celeris, work, name, args):
    """A celeris-simulated catalog split by row parity into two CSV sides (ids = rows)."""
    full = os.path.join(work, name + ".csv")
    subprocess.run([celeris, "simulate", "catalog", "-o", full] + args, check=True,
                   stdout=subprocess.DEVNULL)
    with open(full) as f:
        rows = list(csv.DictReader(row for row in f if not row.startswith("#")))
    sides = []
    for parity in (0, 1):
        keep = [(k, float(r["RA"]), float(r["DEC"])) for k, r in enumerate(rows) if k % 2 == parity]
        path = os.path.join(work, f"{name}_{parity + 1}.csv")
        write(path, *zip(*keep))
        sides.append(path)
    return sides


def random_side(rng, work, name, n, boxes):
    """n positions uniform on the sphere, spread over RA/Dec boxes (RA taken modulo 360)."""
    ra, dec = [], []
    for k in range(n):
        ra_lo, ra_hi, dec_lo, dec_hi = boxes[k % len(boxes)]
        s_lo, s_hi = math.sin(math.radians(dec_lo)), math.sin(math.radians(dec_hi))
        ra.append(rng.uniform(ra_lo, ra_hi) % 360.0)
        dec.append(math.degrees(math.asin(rng.uniform(s_lo, s_hi))))
    path = os.path.join(work, name + ".csv")
    write(path, range(n), ra, dec)
    return path


def main():
    celeris, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    rng = random.Random(11)
    ok = True
    # SDSS-like stripe: 24k detections, ~3 per source, 0.3" scatter.
    a, b = split_simulated(celeris, work, "stripe",
                           ["--rows", "24000", "--seed", "5", "--dec-min", "-1.25",
                            "--dec-max", "1.25", "--repeats", "3", "--scatter", "0.3"])
    ok &= compare(celeris, work, "sdss-stripe", a, b, 1.0)
    ok &= compare(celeris, work, "sdss-stripe self", a, None, 1.0, self_match=True)
    # Dense random sides across RA 0/360 and at both poles (one catalog: each STILTS run starts
    # a JVM, so fewer runs keep the test short).
    boxes = [(-1, 1, -3, 3), (0, 360, 89.5, 90), (0, 360, -90, -89.5)]
    left = random_side(rng, work, "wrap-poles_1", 15000, boxes)
    right = random_side(rng, work, "wrap-poles_2", 15000, boxes)
    ok &= compare(celeris, work, "ra-wrap+poles", left, right, 10.0)
    ok &= compare(celeris, work, "ra-wrap+poles self", left, None, 30.0, self_match=True)
    # find=best ("best match, symmetric"): STILTS starts from the nearest partner of every row
    # of the larger table (table 1 when equal), so both cases: equal sides, larger right side.
    ok &= compare(celeris, work, "ra-wrap+poles best", left, right, 10.0, find="best")
    small = random_side(rng, work, "wrap-poles_3", 9000, boxes)
    ok &= compare(celeris, work, "small x large best", small, right, 10.0, find="best")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
