#!/usr/bin/env python3
"""The issue's 1.23 B-row self-match from a HATS catalog: simulate it partition by partition, then
count its pairs at 0.0056 deg in one process streamed in HEALPix chunks (and, optionally, under
`mpirun -n K` for smaller row counts).

usage: bench_hats_billion.py BIN_DIR WORKDIR [--rows 1230000000] [--order 5]
                             [--single-memory 12G] [--ranks K1,K2] [--device cuda|cpu]
                             [--gpu-memory G] [--rank-memory M] [--timeout S] [--keep]

BIN_DIR holds `celeris` and `bench_simulate_hats` (a build with CELERIS_PARQUET; CELERIS_MPI for
--ranks).
1. `bench_simulate_hats --rows N --order K --matches-per-row 15.8 --match-radius 20.16
   -o WORKDIR/hatsN` unless that catalog exists: 12 * 4^K partitions of N / npix rows each
   (order 5: 12,288 partitions of 100k rows for 1.23 B), written by every core of the host, each
   holding one partition at a time; 24.5 B a row on disk (30 GB for 1.23 B rows; refused when
   WORKDIR's file system has less free).
2. One process (unless --single-memory 0): `celeris xmatch --self WORKDIR/hatsN --radius
   0.0056deg --count --memory SIZE --device D`: rows per coarse pixel from one read of every
   partition's RA/Dec, then HEALPix chunks within SIZE, each reading only the partitions of its
   pixels and their neighbours, joined on the GPU (or the cores), counted and dropped. Peak
   host memory is several times SIZE (the chunk's pairs, 24 B each, and the join's scratch come
   on top of it: 5.6x at 64M on the 2M-row dry run), so 12G keeps a 1.23 B-row run near 70 GB;
   the peak resident size is printed when /usr/bin/time exists.
3. For each K in --ranks: `mpirun -n K --bind-to none celeris xmatch --self ... --count
   --timings --device D [--gpu-memory G]`. Each rank matches its partition a chunk at a time
   and counts each chunk's pairs (no rank holds more than one chunk's), but the ranks of a host
   hold about 77-93 B a row together (each rank's slice, what it sends and receives, then its
   partition's rows and their buckets, docs/xmatch.md "MPI ranks"; the lower figure with a
   small --rank-memory, which each rank's chunks are planned within): 95-115 GB for 1.23 B
   rows, at the edge of a 128 GiB host; 600 M rows need about 55 GB. With several ranks on one GPU give
   --gpu-memory so that K x G fits the device.
--timeout S bounds each run (a run past it is killed and reported as such, and the next one
starts), so a run that hangs or crawls leaves the other rows of the table.
Prints machine, date, every command and a table row as soon as each run ends (then the whole
table): wall s, rows/s (rows / wall), and for mpirun the join pairs/s (pairs / slowest rank's
join), per rank, and the phases the ranks report (slowest rank per phase). Deletes the catalog
afterwards unless --keep.
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
    o = {"rows": 1230000000, "order": 5, "ranks": [], "device": "cuda", "gpu_memory": "",
         "single_memory": "12G", "keep": False, "timeout": 0, "rank_memory": ""}
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
        elif key == "--rank-memory":
            o["rank_memory"] = val
        elif key == "--timeout":
            o["timeout"] = float(val)
        elif key == "--single-memory":
            o["single_memory"] = "" if val == "0" else val
        else:
            sys.exit("unknown option " + key)
    return o


def timed(cmd, timeout=0):
    """(wall, output), or (wall, None) when the run took longer than `timeout` s (0: no bound)."""
    print("$ " + " ".join(cmd), flush=True)
    t = time.perf_counter()
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env, timeout=timeout or None)
    except subprocess.TimeoutExpired:
        wall = time.perf_counter() - t
        print("TIMEOUT after %.1f s: %s" % (wall, " ".join(cmd)), flush=True)
        return wall, None
    wall = time.perf_counter() - t
    if done.returncode != 0:
        sys.exit("failed (%.1f s): %s\n%s\n%s" % (wall, " ".join(cmd), done.stdout, done.stderr))
    # /usr/bin/time's line (stderr) goes last.
    peak = [line for line in done.stderr.splitlines() if line.startswith("peak resident")]
    return wall, done.stdout + "".join(line + "\n" for line in peak)


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

    def row(line):
        rows_out.append(line)
        print(line, flush=True)

    base = [celeris, "xmatch", "--self", cat, "--radius", RADIUS, "--count", "--device",
            o["device"]]
    if o["gpu_memory"]:
        base += ["--gpu-memory", o["gpu_memory"]]
    pairs_seen = None
    # The single process first: the baseline of the target (1.23 B rows in 60 s).
    if o["single_memory"]:
        gnu_time = ["/usr/bin/time", "-f", "peak resident %M kB"] if os.access(
            "/usr/bin/time", os.X_OK) else []
        name = "1 process, --memory %s" % o["single_memory"]
        wall, out = timed(gnu_time + base + ["--memory", o["single_memory"]], o["timeout"])
        if out is None:
            row("| %s | %d | timeout | > %.1f | | | | | | | | |" % (name, o["rows"], wall))
        else:
            pairs_seen, _ = parse(out)
            print(out.strip().splitlines()[-1], flush=True)
            row("| %s | %d | %d | %.1f | %.3g | | | | | | | |"
                % (name, o["rows"], pairs_seen, wall, o["rows"] / wall))
    rank_memory = ["--memory", o["rank_memory"]] if o["rank_memory"] else []
    for k in o["ranks"]:
        wall, out = timed([mpirun, "--oversubscribe", "--allow-run-as-root", "--bind-to", "none",
                           "-n", str(k)] + base + ["--timings"] + rank_memory, o["timeout"])
        if out is None:
            row("| mpirun -n %d | %d | timeout | > %.1f | | | | | | | | |" % (k, o["rows"], wall))
            continue
        pairs, t = parse(out)
        if pairs_seen is not None and pairs != pairs_seen:
            print("# MISMATCH: %d pairs from mpirun -n %d, %d from the run before" %
                  (pairs, k, pairs_seen), flush=True)
        pairs_seen = pairs
        join = t.get("join", 0.0)
        pps = pairs / join if join > 0 else float("nan")
        print(out.strip().splitlines()[-2], flush=True)
        row("| mpirun -n %d | %d | %d | %.1f | %.3g | %.3g | %.3g | %.1f | %.1f | %.1f | %.1f | "
            "%.1f |" % (k, o["rows"], pairs, wall, o["rows"] / wall, pps, pps / k,
                        t.get("read", 0), t.get("partition", 0), t.get("gather", 0), join,
                        t.get("exchange", 0)))
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for line in rows_out:
        print(line)
    if pairs_seen is not None:
        print("# matches per row (row included): %.3f" % (1 + 2 * pairs_seen / o["rows"]))
    if not o["keep"]:
        shutil.rmtree(cat, ignore_errors=True)


if __name__ == "__main__":
    main()
