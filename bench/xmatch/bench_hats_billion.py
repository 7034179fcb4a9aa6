#!/usr/bin/env python3
"""The issue's 1.23 B-row self-match from a HATS catalog: simulate it partition by partition, then
count its pairs at 0.0056 deg under `mpirun -n K` (and, optionally, in one streamed process).

usage: bench_hats_billion.py BIN_DIR WORKDIR [--rows 1230000000] [--order 5] [--ranks 4,8]
                             [--device cuda|cpu] [--gpu-memory 12G] [--single-memory SIZE]
                             [--keep]

BIN_DIR holds `celeris` and `bench_simulate_hats` (a build with CELERIS_PARQUET and CELERIS_MPI).
1. `bench_simulate_hats --rows N --order K --matches-per-row 15.8 --match-radius 20.16
   -o WORKDIR/hatsN` unless that catalog exists: 12 * 4^K partitions of N / npix rows each
   (order 5: 12,288 partitions of 100k rows for 1.23 B), written by every core of the host, each
   holding one partition at a time; 24.5 B a row on disk (30 GB for 1.23 B rows; refused when
   WORKDIR's file system has less free).
2. For each K in --ranks: `mpirun -n K --bind-to none celeris xmatch --self WORKDIR/hatsN
   --radius 0.0056deg --count --timings --device D [--gpu-memory G]`: each rank reads the
   partitions holding its 1/K of the rows (RA/Dec columns only), the rows go to their HEALPix
   partitions and margins (MPI_Alltoallv), each rank joins its partition on its GPU share or its
   cores, the counts are summed. With several ranks on one GPU give --gpu-memory so that
   K x G fits the device (each rank otherwise plans for 80% of the free memory).
3. With --single-memory SIZE: also one process, `celeris xmatch --self ... --count --memory SIZE
   --device D` (HEALPix chunks within SIZE; every chunk scans the catalog's RA/Dec once).

Host memory under mpirun: about 72 B per row summed over the ranks at the row exchange (a rank's
slice, its pixels, the send and receive buffers: 89 GB for 1.23 B rows, whatever K), then the
partition's rows and their margins; the host must hold that (the H100 host: 128 GiB).
Prints machine, date, every command and a table: wall s (mpirun to exit), rows/s (rows / wall),
join pairs/s (pairs / slowest rank's join), per rank, and the phases the ranks report (slowest
rank per phase). Delete WORKDIR afterwards unless --keep.
"""
import datetime
import os
import platform
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_mpi import parse  # noqa: E402

RADIUS = "0.0056deg"
BYTES_PER_ROW_ON_DISK = 24.5


def parse_args(argv):
    o = {"rows": 1230000000, "order": 5, "ranks": [4, 8], "device": "cuda", "gpu_memory": "",
         "single_memory": "", "keep": False}
    args = argv[3:]
    while args:
        key = args.pop(0)
        if key == "--keep":
            o["keep"] = True
            continue
        if not args:
            sys.exit("missing value for " + key)
        val = args.pop(0)
        if key == "--rows":
            o["rows"] = int(val)
        elif key == "--order":
            o["order"] = int(val)
        elif key == "--ranks":
            o["ranks"] = [int(k) for k in val.split(",") if k]
        elif key == "--device":
            o["device"] = val
        elif key == "--gpu-memory":
            o["gpu_memory"] = val
        elif key == "--single-memory":
            o["single_memory"] = val
        else:
            sys.exit("unknown option " + key)
    return o


def timed(cmd):
    print("$ " + " ".join(cmd), flush=True)
    t = time.perf_counter()
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    wall = time.perf_counter() - t
    if done.returncode != 0:
        sys.exit("failed (%.1f s): %s\n%s\n%s" % (wall, " ".join(cmd), done.stdout, done.stderr))
    return wall, done.stdout


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    bindir, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    o = parse_args(sys.argv)
    celeris = os.path.join(bindir, "celeris")
    simulate = os.path.join(bindir, "bench_simulate_hats")
    for exe in (celeris, simulate):
        if not os.access(exe, os.X_OK):
            sys.exit(exe + " not found (build with CELERIS_PARQUET and CELERIS_BENCH)")
    mpirun = shutil.which("mpirun")
    if mpirun is None and o["ranks"]:
        sys.exit("mpirun not found (Debian: openmpi-bin)")
    os.makedirs(work, exist_ok=True)
    print("# celeris xmatch, HATS self-match at %s, --count, %s UTC"
          % (RADIUS, datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")))
    print("# machine: %s, %d cores, %s" % (platform.node(), os.cpu_count(), platform.platform()))
    print("# command: " + " ".join(sys.argv))
    cat = os.path.join(work, "hats%d" % o["rows"])
    if not os.path.isdir(cat):
        need = o["rows"] * BYTES_PER_ROW_ON_DISK
        free = shutil.disk_usage(work).free
        if free < need * 1.05:
            sys.exit("%s: %.1f GB free, the catalog needs %.1f GB" % (work, free / 1e9, need / 1e9))
        wall, out = timed([simulate, "--rows", str(o["rows"]), "--order", str(o["order"]),
                           "--matches-per-row", "15.8", "--match-radius", "20.16", "-o", cat])
        print(out.strip())
        print("# simulated in %.1f s (%.3g rows/s)" % (wall, o["rows"] / wall))
    head = ("| run | rows | pairs | wall s | rows/s | join pairs/s | per rank | read | partition "
            "| gather | join | exchange |")
    rows_out = []
    base = [celeris, "xmatch", "--self", cat, "--radius", RADIUS, "--count", "--device",
            o["device"]]
    if o["gpu_memory"]:
        base += ["--gpu-memory", o["gpu_memory"]]
    for k in o["ranks"]:
        wall, out = timed([mpirun, "--oversubscribe", "--allow-run-as-root", "--bind-to", "none",
                           "-n", str(k)] + base + ["--timings"])
        pairs, t = parse(out)
        join = t.get("join", 0.0)
        pps = pairs / join if join > 0 else float("nan")
        rows_out.append("| mpirun -n %d | %d | %d | %.1f | %.3g | %.3g | %.3g | %.1f | %.1f | "
                        "%.1f | %.1f | %.1f |"
                        % (k, o["rows"], pairs, wall, o["rows"] / wall, pps, pps / k,
                           t.get("read", 0), t.get("partition", 0), t.get("gather", 0), join,
                           t.get("exchange", 0)))
        print(out.strip().splitlines()[-2], flush=True)
    if o["single_memory"]:
        wall, out = timed(base + ["--memory", o["single_memory"]])
        pairs, _ = parse(out)
        rows_out.append("| 1 process, --memory %s | %d | %d | %.1f | %.3g | | | | | | | |"
                        % (o["single_memory"], o["rows"], pairs, wall, o["rows"] / wall))
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for line in rows_out:
        print(line)
    m = re.search(r"(\d+) pairs counted", out) if rows_out else None
    if m:
        print("# matches per row (row included): %.3f" % (1 + 2 * int(m.group(1)) / o["rows"]))
    if not o["keep"]:
        shutil.rmtree(cat, ignore_errors=True)


if __name__ == "__main__":
    main()
