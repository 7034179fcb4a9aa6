#!/usr/bin/env python3
"""Compare a celeris catalog with a SExtractor catalog object by object.

Both catalogs are ASCII_HEAD files with X_IMAGE, Y_IMAGE, FLUX_ISO, FLUX_AUTO and FLAGS. Objects
are paired by nearest position (mutual nearest neighbours within --radius pixels). Prints the
acceptance metrics of the extraction issue and exits non-zero when one fails:
  recall and precision >= --min-match (fraction of SExtractor's / celeris' objects paired),
  median |dFLUX_ISO|/FLUX_ISO <= --iso-tol, median |dFLUX_AUTO|/FLUX_AUTO <= --auto-tol,
  FLAGS equal for >= --flags-frac of the pairs,
  NUMBER equal (the same catalog order) for >= --number-frac of the pairs,
  every common column equal as printed (the whole catalog row the same) for >= --rows-frac of
  the pairs (`rows=`; NUMBER and whole rows are celeris's own standard, beyond the issue's);
  with --same-columns, the same columns in the same places (the ASCII_HEAD header's numbers and
  names), so that a column missing, added or resized on one side fails.
"""
import argparse
import sys

import numpy as np


def read_ascii_head(path):
    names, cols = [], []
    data_lines = []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                parts = line.split()
                names.append(parts[2])
                cols.append(int(parts[1]) - 1)
            elif line.strip():
                data_lines.append(line)
    if not data_lines:
        arr = np.zeros((0, max(cols) + 1 if cols else 0))
    else:
        arr = np.loadtxt(data_lines, ndmin=2)
    # Vector columns: ASCII_HEAD names only their first element; later ones are NAME#2, ...
    out = {}
    ends = cols[1:] + [arr.shape[1]]
    for n, c, e in zip(names, cols, ends):
        out[n] = arr[:, c]
        for k in range(c + 1, e):
            out[f"{n}#{k - c + 1}"] = arr[:, k]
    return out


def header_columns(path):
    """The (column number, name) pairs of an ASCII_HEAD header, in order."""
    with open(path) as f:
        return [tuple(line.split()[1:3]) for line in f if line.startswith("#")]


def pair(ref, test, radius):
    """Mutual nearest neighbours within radius; returns (i_ref, j_test) index arrays."""
    if len(ref["X_IMAGE"]) == 0 or len(test["X_IMAGE"]) == 0:
        return np.zeros(0, int), np.zeros(0, int)
    rx, ry = ref["X_IMAGE"], ref["Y_IMAGE"]
    tx, ty = test["X_IMAGE"], test["Y_IMAGE"]
    # Grid hashing keeps this O(N) for crowded fields.
    cell = max(radius, 1.0)
    grid = {}
    for j, (x, y) in enumerate(zip(tx, ty)):
        grid.setdefault((int(x // cell), int(y // cell)), []).append(j)

    def nearest(x, y, xs, ys, g):
        best, bd = -1, radius * radius
        cx, cy = int(x // cell), int(y // cell)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for k in g.get((cx + dx, cy + dy), ()):
                    d = (xs[k] - x) ** 2 + (ys[k] - y) ** 2
                    if d <= bd:
                        best, bd = k, d
        return best

    rgrid = {}
    for i, (x, y) in enumerate(zip(rx, ry)):
        rgrid.setdefault((int(x // cell), int(y // cell)), []).append(i)
    ii, jj = [], []
    for i in range(len(rx)):
        j = nearest(rx[i], ry[i], tx, ty, grid)
        if j >= 0 and nearest(tx[j], ty[j], rx, ry, rgrid) == i:
            ii.append(i)
            jj.append(j)
    return np.array(ii, int), np.array(jj, int)


def median_rel(a, b):
    ok = np.abs(a) > 0
    if not ok.any():
        return 0.0
    return float(np.median(np.abs(b[ok] - a[ok]) / np.abs(a[ok])))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sextractor_catalog")
    ap.add_argument("celeris_catalog")
    ap.add_argument("--radius", type=float, default=0.5)
    ap.add_argument("--min-match", type=float, default=0.995)
    ap.add_argument("--iso-tol", type=float, default=1e-4)
    ap.add_argument("--auto-tol", type=float, default=1e-3)
    ap.add_argument("--flags-frac", type=float, default=0.99)
    ap.add_argument("--number-frac", type=float, default=0.99)
    ap.add_argument("--rows-frac", type=float, default=0.99)
    ap.add_argument("--col-tol", action="append", default=[], metavar="NAME=TOL",
                    help="also require median |d NAME| / |NAME| <= TOL over the pairs")
    ap.add_argument("--label", default="")
    ap.add_argument("--same-columns", action="store_true",
                    help="require the same header (column numbers and names) in both catalogs")
    a = ap.parse_args()
    if a.same_columns:
        ref_cols, test_cols = header_columns(a.sextractor_catalog), header_columns(a.celeris_catalog)
        if ref_cols != test_cols:
            print(f"{a.label}: column layouts differ: SExtractor {ref_cols}, celeris {test_cols} FAIL")
            return 1
    ref = read_ascii_head(a.sextractor_catalog)
    test = read_ascii_head(a.celeris_catalog)
    nref, ntest = len(ref["X_IMAGE"]), len(test["X_IMAGE"])
    i, j = pair(ref, test, a.radius)
    recall = len(i) / nref if nref else 1.0
    precision = len(j) / ntest if ntest else 1.0
    iso = median_rel(ref["FLUX_ISO"][i], test["FLUX_ISO"][j]) if len(i) else 0.0
    auto = median_rel(ref["FLUX_AUTO"][i], test["FLUX_AUTO"][j]) if len(i) else 0.0
    flags = float(np.mean(ref["FLAGS"][i] == test["FLAGS"][j])) if len(i) else 1.0
    number = float(np.mean(ref["NUMBER"][i] == test["NUMBER"][j])) if len(i) else 1.0
    common = [c for c in ref if c in test]
    same = np.ones(len(i), dtype=bool)
    differing = []
    for c in common:
        r, t = ref[c][i], test[c][j]
        eq = (r == t) | (np.isnan(r) & np.isnan(t))
        same &= eq
        if len(i) and not eq.all():
            differing.append(f"{c} ({int((~eq).sum())})")
    rows = float(np.mean(same)) if len(i) else 1.0
    col_report, cols_ok = "", True
    for item in a.col_tol:
        name, tol = item.split("=")
        if name not in ref or name not in test:
            print(f"column {name} missing from a catalog")
            return 1
        m = median_rel(ref[name][i], test[name][j]) if len(i) else 0.0
        col_report += f" med|d{name}| {m:.2e}"
        cols_ok &= m <= float(tol)
    ok = (cols_ok and recall >= a.min_match and precision >= a.min_match and iso <= a.iso_tol
          and auto <= a.auto_tol and flags >= a.flags_frac and number >= a.number_frac
          and rows >= a.rows_frac)
    print(f"{a.label:24s} sex {nref:6d} celeris {ntest:6d} paired {len(i):6d} "
          f"recall {recall:.4f} precision {precision:.4f} med|dISO| {iso:.2e} "
          f"med|dAUTO| {auto:.2e}{col_report} flags= {flags:.4f} number= {number:.4f} "
          f"rows= {rows:.4f} "
          f"{'PASS' if ok else 'FAIL'}")
    if differing:
        print("  columns differing (pairs):", ", ".join(differing))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
