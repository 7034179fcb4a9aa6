#!/usr/bin/env python3
"""`celeris xmatch` on HATS catalogs written by LSDB, against LSDB's own crossmatch.

usage: hats_lsdb.py CELERIS_BIN WORKDIR

The catalogs of mpi_identical.py (dense spots across RA 0/360, both polar caps, perturbed copies)
written by lsdb.from_dataframe(...).write_catalog (a HATS collection with a 10 arcsec margin
cache, adaptive partitions of at most 1000 rows up to order 10); LSDB's crossmatch (k nearest
neighbours within 5 arcsec, k large enough to return every pair) against `celeris xmatch` on the
same directories: the same pairs by id, separations within 1e-6 arcsec, pairs within 1e-9 arcsec
of the radius allowed on one side only (pair_sets.py). Also mpirun -n 2 --count on the LSDB
catalogs equal to one process, and mpirun -n 1, 2, 4 reading LSDB's margin caches (no fallback
notice) writing the same files as one process (the 5 arcsec match and a 10 arcsec self-match).

Exit 77 (ctest SKIP) when lsdb is not importable (it is not in the CI venv: about 50 s to
install with its dask / pandas dependencies; run this with a Python that has it:
  python3 -m venv /tmp/lsdbvenv && /tmp/lsdbvenv/bin/pip install lsdb
  /tmp/lsdbvenv/bin/python tests/xmatch/hats_lsdb.py build/bin/celeris /tmp/hats_lsdb)
"""
import csv
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_identical import pole_cap, spot, uniform  # noqa: E402
from pair_sets import compare_pair_sets  # noqa: E402

RADIUS = 5.0  # arcsec


def die(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd):
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if done.returncode != 0:
        die(" ".join(cmd) + ": " + done.stderr.strip())
    return done.stdout


def main():
    celeris, work = sys.argv[1], sys.argv[2]
    try:
        import lsdb
        import pandas as pd
    except ImportError:
        print("lsdb not importable: skipped")
        sys.exit(77)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rng = random.Random(20)
    left = (uniform(rng, 1500) + spot(rng, 2500, 0.0, 0.3, 40) + pole_cap(rng, 700, True, 0.02)
            + pole_cap(rng, 700, False, 0.02) + spot(rng, 400, 123.4, -45.6, 20))
    rng.shuffle(left)
    right = uniform(rng, 800) + spot(rng, 500, 359.999, 0.3, 40) + pole_cap(rng, 300, True, 0.02)
    for a, d in left[::3]:
        right += spot(rng, 1, a, d, 1.5)
    rng.shuffle(right)
    paths = {}
    cats = {}
    for name, pts in (("left", left), ("right", right)):
        df = pd.DataFrame({"id": range(len(pts)), "ra": [p[0] for p in pts],
                           "dec": [p[1] for p in pts], "mag": [15 + (k % 97) / 10
                                                               for k in range(len(pts))]})
        cat = lsdb.from_dataframe(df, ra_column="ra", dec_column="dec", catalog_name=name,
                                  partition_rows=1000, highest_order=10, margin_threshold=10.0)
        paths[name] = os.path.join(work, name)
        cat.write_catalog(paths[name], progress_bar=False)
        cats[name] = lsdb.open_catalog(paths[name])
    parts = len(cats["left"].get_healpix_pixels())
    ref = cats["left"].crossmatch(cats["right"], radius_arcsec=RADIUS, n_neighbors=100000,
                                  suffixes=("_1", "_2")).compute()
    dist = [c for c in ref.columns if "dist" in c][0]
    lsdb_pairs = {(int(a), int(b)): float(s)
                  for a, b, s in zip(ref["id_1"], ref["id_2"], ref[dist])}

    out = os.path.join(work, "celeris.csv")
    run([celeris, "xmatch", "-q", paths["left"], paths["right"], "-r", "%garcsec" % RADIUS,
         "-o", out])
    with open(out) as f:
        mine = {(int(float(r["id_1"])), int(float(r["id_2"]))): float(r["Separation"])
                for r in csv.DictReader(f)}
    c = compare_pair_sets(lsdb_pairs, mine, RADIUS)
    print("LSDB %d pairs, celeris %d pairs (%d left partitions); only LSDB %d, only celeris %d "
          "(%d at the radius), max separation difference %.3g arcsec"
          % (len(lsdb_pairs), len(mine), parts, len(c.only_ref), len(c.only_mine),
             len(c.boundary), c.maxdiff))
    if c.real:
        die("pair sets differ: e.g. only LSDB %s, only celeris %s"
            % (sorted(c.only_ref)[:5], sorted(c.only_mine)[:5]))
    if c.maxdiff > 1e-6:
        die("separations differ by %.3g arcsec" % c.maxdiff)

    mpirun = shutil.which("mpirun")
    if mpirun:
        mpi = [mpirun, "--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]
        one = run([celeris, "xmatch", "-q", paths["left"], paths["right"], "-r", "5arcsec",
                   "--count"])
        two = run(mpi + ["-n", "2", celeris, "xmatch", "-q", paths["left"], paths["right"], "-r",
                         "5arcsec", "--count"])
        if one != two:
            die("mpirun -n 2 --count differs from one process")
        # LSDB's margin caches (10 arcsec) read by the ranks: no fallback notice, the same files.
        self_one = os.path.join(work, "self_one.csv")
        run([celeris, "xmatch", "-q", "--self", paths["left"], "-r", "10arcsec", "-o", self_one])
        for k in (1, 2, 4):
            for args, ref in (([paths["left"], paths["right"], "-r", "%garcsec" % RADIUS], out),
                              (["--self", paths["left"], "-r", "10arcsec"], self_one)):
                got = os.path.join(work, "mpi%d.csv" % k)
                env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none")
                done = subprocess.run(mpi + ["-n", str(k), celeris, "xmatch", "-q"] + args
                                      + ["-o", got], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env)
                if done.returncode != 0 or "exchange rows" in done.stderr:
                    die("mpirun -n %d %s: rc %d %s" % (k, " ".join(args), done.returncode,
                                                       done.stderr))
                with open(ref) as a, open(got) as b:
                    if a.read() != b.read():
                        die("mpirun -n %d %s: output differs from one process"
                            % (k, " ".join(args)))
        print("mpirun -n 2 --count on the LSDB catalogs: identical; mpirun -n 1, 2, 4 reading "
              "LSDB's margin caches: identical outputs")
    print("PASS")


if __name__ == "__main__":
    main()
