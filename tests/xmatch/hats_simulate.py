#!/usr/bin/env python3
"""bench_simulate_hats (the partition-wise generator of the 1.23 B-row benchmark) on a small sky.

usage: hats_simulate.py SIMULATE_BIN CELERIS_BIN WORKDIR

200,000 rows in the 192 order-2 partitions at the paper's 15.8 matches per row: the catalog is a
HATS catalog celeris reads (hats.properties, partition_info.csv, every partition file); ids are
0..N-1 in the catalog's row order; every row lies in its partition's pixel (checked with the
HEALPix projection of hats_identical.py, allowing nothing outside); the files do not depend on
the thread count (OMP_NUM_THREADS 1 and 2 give identical bytes); the pair count is the same
from one process, from one process streamed (--memory) and from mpirun -n 2; an existing output
is refused without touching it. Prints the matches per row the count gives (the simulator's
model aims at 15.8; not a pass criterion, as it is a random quantity).

Exit 77 (ctest SKIP) when pyarrow is not importable.
"""
import filecmp
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hats_identical import ang2pix_nest  # noqa: E402

ROWS, ORDER = 200000, 2


def die(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, threads=None, ok=True):
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if ok and done.returncode != 0:
        die(" ".join(cmd) + ": " + done.stderr.strip())
    return done


def main():
    simulate, celeris, work = sys.argv[1:4]
    try:
        import pyarrow.parquet as pq
    except ImportError:
        print("pyarrow not importable: skipped")
        sys.exit(77)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cats = []
    for threads in (1, 2):
        cat = os.path.join(work, "sim%d" % threads)
        run([simulate, "--rows", str(ROWS), "--order", str(ORDER), "--matches-per-row", "15.8",
             "-o", cat], threads)
        cats.append(cat)
    npix = 12 * 4 ** ORDER
    files = []
    for pix in range(npix):
        rel = os.path.join("dataset", "Norder=%d" % ORDER, "Dir=0", "Npix=%d.parquet" % pix)
        files.append(rel)
        if not filecmp.cmp(os.path.join(cats[0], rel), os.path.join(cats[1], rel), shallow=False):
            die(rel + " differs between 1 and 2 threads")
    ids, outside = [], 0
    for pix, rel in enumerate(files):
        t = pq.read_table(os.path.join(cats[0], rel)).to_pydict()
        ids += t["id"]
        outside += sum(1 for a, d in zip(t["ra"], t["dec"]) if ang2pix_nest(ORDER, a, d) != pix)
    if ids != list(range(ROWS)):
        die("ids are not 0..N-1 in the catalog's row order")
    if outside:
        die("%d rows outside their partition's pixel" % outside)
    counts = []
    for cmd in ([celeris, "xmatch", "--self", cats[0], "-r", "0.0056deg", "--count"],
                [celeris, "xmatch", "--self", cats[0], "-r", "0.0056deg", "--count", "--memory",
                 "8M"]):
        counts.append(run(cmd).stdout)
    mpirun = shutil.which("mpirun")
    if mpirun:
        counts.append(run([mpirun, "--oversubscribe", "--allow-run-as-root", "--bind-to", "none",
                           "-n", "2", celeris, "xmatch", "--self", cats[0], "-r", "0.0056deg",
                           "--count"]).stdout)
    hists = [c[: c.index("xmatch:")] for c in counts]
    if any(h != hists[0] for h in hists):
        die("pair counts differ between one process, --memory and mpirun -n 2")
    pairs = int(re.search(r"^pairs (\d+)", counts[0], re.M).group(1))
    done = run([simulate, "--rows", "10", "-o", cats[0]], ok=False)
    if done.returncode == 0 or "exists" not in done.stderr or not os.path.isdir(cats[0]):
        die("an existing output should be refused and kept: " + done.stderr)
    print("%d rows in %d partitions, identical for 1 and 2 threads, every row in its pixel; "
          "%d pairs (%.2f matches per row), the same from %d ways of counting"
          % (ROWS, npix, pairs, 1 + 2 * pairs / ROWS, len(counts)))
    print("PASS")


if __name__ == "__main__":
    main()
