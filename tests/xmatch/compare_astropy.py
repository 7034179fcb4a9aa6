#!/usr/bin/env python3
"""celeris xmatch against astropy's search_around_sky: identical pair sets and separations.

usage: compare_astropy.py CELERIS_BIN WORKDIR. Exit 77 (ctest SKIP) without astropy.
Catalogs are generated with numpy (so the RA=0/360 and polar cases are explicit) and written as
CSV with an integer id column, which celeris carries into its output as id_1 / id_2.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pair_sets import compare_pair_sets  # noqa: E402

import numpy as np

try:
    import astropy.units as u
    from astropy.coordinates import SkyCoord, search_around_sky
    import scipy.spatial  # noqa: F401  (search_around_sky needs it)
except ImportError:
    print("astropy or scipy not installed: skipped")
    sys.exit(77)


def catalog(rng, n, ra_lo, ra_hi, dec_lo, dec_hi):
    ra = rng.uniform(ra_lo, ra_hi, n) % 360.0
    # uniform on the sphere within the band
    s = rng.uniform(np.sin(np.radians(dec_lo)), np.sin(np.radians(dec_hi)), n)
    dec = np.degrees(np.arcsin(s))
    return ra, dec


def write(path, ra, dec):
    with open(path, "w") as f:
        f.write("id,ra,dec\n")
        for i, (a, d) in enumerate(zip(ra, dec)):
            f.write(f"{i},{a:.12f},{d:.12f}\n")


def read_pairs(path):
    data = np.genfromtxt(path, delimiter=",", names=True, comments=None)
    data = np.atleast_1d(data)
    return data


def run(celeris, work, name, left, right, radius, self_match=False):
    out = os.path.join(work, name + ".out.csv")
    cmd = [celeris, "xmatch"] + ([ "--self", left[0]] if self_match else [left[0], right[0]]) + \
          ["--radius", f"{radius}arcsec", "--find", "all", "-o", out, "-q"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    got = read_pairs(out)
    c1 = SkyCoord(left[1] * u.deg, left[2] * u.deg)
    c2 = SkyCoord(right[1] * u.deg, right[2] * u.deg)
    i, j, sep, _ = search_around_sky(c1, c2, radius * u.arcsec)
    sep = sep.to(u.arcsec).value
    if self_match:
        keep = i < j
        i, j, sep = i[keep], j[keep], sep[keep]
    ref = {(int(a), int(b)): s for a, b, s in zip(i, j, sep)}
    if len(got):
        gi, gj, gs = got["id_1"].astype(int), got["id_2"].astype(int), got["Separation"]
    else:
        gi = gj = gs = np.zeros(0)
    mine = {(int(a), int(b)): s for a, b, s in zip(gi, gj, gs)}
    cmp = compare_pair_sets(ref, mine, radius)
    only_ref, only_mine, boundary = cmp.only_ref, cmp.only_mine, cmp.boundary
    real, maxdiff = cmp.real, cmp.maxdiff
    ok = real == 0 and maxdiff < 1e-6
    print(f"{name:28s} radius {radius:7.2f}\" astropy {len(ref):7d} celeris {len(mine):7d} "
          f"only-astropy {len(only_ref)} only-celeris {len(only_mine)} boundary {len(boundary)} "
          f"max|dsep| {maxdiff:.2e} arcsec {'PASS' if ok else 'FAIL'}")
    if not ok:
        for p in sorted(only_ref)[:5]:
            print("  only astropy", p, ref[p])
        for p in sorted(only_mine)[:5]:
            print("  only celeris", p, mine[p])
    return ok


def main():
    celeris, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(7)
    ok = True
    cases = [("band", (10, 14, -2, 2), 20000, 20000, [1.0, 5.0, 60.0]),
             ("ra-wrap", (-2, 2, -5, 5), 15000, 15000, [2.0, 30.0]),
             ("north-pole", (0, 360, 89.0, 90.0), 15000, 15000, [2.0, 30.0])]
    for name, (ra_lo, ra_hi, d_lo, d_hi), n1, n2, radii in cases:
        r1, d1 = catalog(rng, n1, ra_lo, ra_hi, d_lo, d_hi)
        r2, d2 = catalog(rng, n2, ra_lo, ra_hi, d_lo, d_hi)
        p1, p2 = os.path.join(work, name + "_1.csv"), os.path.join(work, name + "_2.csv")
        write(p1, r1, d1)
        write(p2, r2, d2)
        for radius in radii:
            ok &= run(celeris, work, name, (p1, r1, d1), (p2, r2, d2), radius)
        ok &= run(celeris, work, name + " self", (p1, r1, d1), (p1, r1, d1), radii[-1], True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
