#!/usr/bin/env python3
"""Benchmark: celeris extract against Debian's source-extractor on the same images, in the same
run. Times are wall-clock medians of --repeat runs of the whole command (FITS in, catalog out).
celeris runs with 1 thread, 2 threads and all cores (OMP_NUM_THREADS); source-extractor with its
default threading (2.25 parallelises nothing in this pipeline). Writes a Markdown table with the
machine, date and command to --out (and prints it).

usage: bench_extract.py CELERIS_BIN [--images DIR] [--sim] [--repeat N] [--out FILE]
"""
import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PARAMS = "NUMBER\nX_IMAGE\nY_IMAGE\nFLUX_ISO\nFLUXERR_ISO\nFLUX_AUTO\nFLUXERR_AUTO\nFLUX_APER(1)\n" \
         "A_IMAGE\nB_IMAGE\nTHETA_IMAGE\nFLUX_RADIUS\nFWHM_IMAGE\nFLAGS\n"
SIMS = [("sim sparse 2048", ["--size", "2048", "--seed", "21"]),
        ("sim crowded 2048", ["--size", "2048", "--seed", "22", "--density", "crowded"]),
        ("sim crowded 4096", ["--size", "4096", "--seed", "23", "--density", "crowded"])]


def timed_interleaved(runs, repeat=3):
    """Median wall time of each command in `runs` ({key: (cmd, env)}), taken round-robin (one run
    of each per round) so that a change of load on a shared machine hits all of them alike."""
    times = {k: [] for k in runs}
    for _ in range(repeat):
        for k, (cmd, env) in runs.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=env)
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def count(cat):
    with open(cat) as f:
        return sum(1 for line in f if not line.startswith("#"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("celeris")
    ap.add_argument("--images", default=os.path.join(os.path.dirname(__file__), "../../../shared/data/images"))
    ap.add_argument("--sim", action="store_true", help="also simulated 2048^2 and 4096^2 fields")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    if a.out:  # the runs happen in a scratch directory
        a.out = os.path.abspath(a.out)
    celeris = os.path.abspath(a.celeris)
    sex = shutil.which("source-extractor") or shutil.which("sex")
    work = tempfile.mkdtemp(prefix="celeris_bench_")
    with open(os.path.join(work, "b.param"), "w") as f:
        f.write(PARAMS)
    with open(os.path.join(work, "default.conv"), "w") as f:
        f.write("CONV NORM\n1 2 1\n2 4 2\n1 2 1\n")
    cases = []
    if os.path.isdir(a.images):
        cases += [(n, os.path.abspath(os.path.join(a.images, n))) for n in sorted(os.listdir(a.images)) if n.endswith(".fits")]
    if a.sim:
        for name, args in SIMS:
            path = os.path.join(work, name.replace(" ", "_") + ".fits")
            subprocess.run([celeris, "simulate", "image", "-o", path] + args, check=True, stdout=subprocess.DEVNULL)
            cases.append((name, path))
    ncores = os.cpu_count() or 1
    common = ["-PARAMETERS_NAME", "b.param", "-FILTER_NAME", "default.conv", "-VERBOSE_TYPE", "QUIET"]
    rows = []
    os.chdir(work)
    for name, path in cases:
        row = {"image": name}
        runs = {}
        if sex:
            runs["sex"] = ([sex, path, "-CATALOG_NAME", "s.cat"] + common, None)
        for threads in sorted({1, 2, ncores}):
            env = dict(os.environ, OMP_NUM_THREADS=str(threads))
            runs[f"cel{threads}"] = ([celeris, "extract", path, "-CATALOG_NAME", "c.cat"] + common, env)
        row.update(timed_interleaved(runs, repeat=a.repeat))
        if sex:
            row["n_sex"] = count("s.cat")
        row["n_cel"] = count("c.cat")
        rows.append(row)
        print(row, file=sys.stderr)
    threads = sorted({1, 2, ncores})
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    lines = [f"# celeris extract vs source-extractor",
             "",
             f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
             f"- machine: {platform.node()}, {cpu}, {ncores} cores",
             f"- command: `{' '.join(sys.argv)}`",
             f"- times: wall-clock median of {a.repeat} runs, taken round-robin across the tools, whole command (read FITS, extract, write ASCII_HEAD catalog)",
             "",
             "| image | objects (sex / celeris) | source-extractor s | " +
             " | ".join(f"celeris {t} thr s" for t in threads) + " | speed-up 1 thr | speed-up all |",
             "|---|---|---|" + "---|" * len(threads) + "---|---|"]
    for r in rows:
        sx = r.get("sex")
        cells = [f"{r[f'cel{t}']:.3f}" for t in threads]
        su1 = f"{sx / r['cel1']:.2f}x" if sx else "-"
        sua = f"{sx / r[f'cel{ncores}']:.2f}x" if sx else "-"
        lines.append(f"| {r['image']} | {r.get('n_sex', '-')} / {r['n_cel']} | "
                     f"{sx:.3f} | " if sx else f"| {r['image']} | - / {r['n_cel']} | - | ")
        lines[-1] += " | ".join(cells) + f" | {su1} | {sua} |"
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
