#!/usr/bin/env python3
"""`mpirun -n K celeris xmatch` against the single-process run: byte-identical outputs.

usage: mpi_identical.py CELERIS_BIN WORKDIR [--backend cpu|cuda] [--ranks 1,2,4]

Catalogs (standard library only): random rows over the sphere plus dense spots across RA 0/360,
at both poles and elsewhere, the left side 5x denser in the RA 0 spot so that its crowded
HEALPix pixel is split over several chunks and ranks; the right side holds perturbed copies of
left rows, so that every find mode has choices to make. Checked for K ranks: FITS and CSV
outputs identical to the single-process files for --find all|best|best1|best2 (joins 1and2,
1or2, all2), self-matches, a CSV input, --count, --count --memory (each rank's chunks within
the bound) and the refusals of --memory where it cannot hold; a rank that fails (test hook
CELERIS_XMATCH_MPI_FAULT) or bad input makes the job exit non-zero with a message naming the
rank and its partition, and leaves no output file.

Exit 77 (ctest SKIP) when mpirun is absent, or with --backend cuda when no GPU can be used.
"""
import filecmp
import math
import os
import random
import shutil
import subprocess
import sys


def die(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def spot(rng, n, ra0, dec0, radius_arcsec):
    """n positions uniform in a small disc (radians of offset in a local tangent frame)."""
    out = []
    r = radius_arcsec / 3600.0
    for _ in range(n):
        rho = r * math.sqrt(rng.random())
        phi = 2 * math.pi * rng.random()
        dec = dec0 + rho * math.sin(phi)
        if dec > 90:
            dec = 180 - dec
            ra0 += 180
        if dec < -90:
            dec = -180 - dec
            ra0 += 180
        cosd = max(math.cos(math.radians(dec)), 1e-6)
        ra = (ra0 + rho * math.cos(phi) / cosd) % 360.0
        out.append((ra, dec))
    return out


def pole_cap(rng, n, north, width_deg):
    out = []
    for _ in range(n):
        d = 90 - width_deg * rng.random()
        out.append((360 * rng.random(), d if north else -d))
    return out


def uniform(rng, n):
    return [(360 * rng.random(), math.degrees(math.asin(2 * rng.random() - 1))) for _ in range(n)]


def write_csv(path, rows):
    with open(path, "w") as f:
        f.write("id,ra,dec,mag\n")
        for k, (a, d) in enumerate(rows):
            f.write(f"{k},{a:.10f},{d:.10f},{15 + (k % 97) / 10:.2f}\n")


def catalogs(work):
    rng = random.Random(20)
    left = (uniform(rng, 1500) + spot(rng, 2500, 0.0, 0.3, 40) + pole_cap(rng, 700, True, 0.02)
            + pole_cap(rng, 700, False, 0.02) + spot(rng, 400, 123.4, -45.6, 20))
    rng.shuffle(left)
    right = uniform(rng, 800) + spot(rng, 500, 359.999, 0.3, 40) + pole_cap(rng, 300, True, 0.02)
    # Perturbed copies of a third of the left rows (1.5 arcsec scatter): real matches.
    for a, d in left[::3]:
        right += spot(rng, 1, a, d, 1.5)
    rng.shuffle(right)
    lcsv, rcsv = os.path.join(work, "left.csv"), os.path.join(work, "right.csv")
    write_csv(lcsv, left)
    write_csv(rcsv, right)
    return lcsv, rcsv


def run(cmd, env=None):
    # Containers often forbid the cross-memory attach of OpenMPI's shared-memory transport,
    # which then warns on every message; plain copies work everywhere.
    env = dict(env if env is not None else os.environ)
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def main():
    celeris, work = sys.argv[1], sys.argv[2]
    backend, ranks = "cpu", [1, 2, 4]
    args = sys.argv[3:]
    while args:
        if args[0] == "--backend":
            backend, args = args[1], args[2:]
        elif args[0] == "--ranks":
            ranks, args = [int(x) for x in args[1].split(",")], args[2:]
        else:
            die("unknown argument " + args[0])
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("mpirun not installed: skipped")
        sys.exit(77)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    lcsv, rcsv = catalogs(work)
    # FITS copies of the catalogs (celeris converts: xmatch writes FITS; use a 1not2 join of
    # each catalog with an empty-ish far away one is awkward, so convert through a self-match
    # `all1` join: every row once, its columns first).
    lfits, rfits = os.path.join(work, "left.fits"), os.path.join(work, "right.fits")
    for src, dst in ((lcsv, lfits), (rcsv, rfits)):
        done = run([celeris, "xmatch", "--self", src, "-r", "0.001arcsec", "--join", "1not2",
                    "-o", dst, "-q"])
        if done.returncode != 0:
            die("making FITS inputs: " + done.stderr)
    mpi = [mpirun, "--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]
    common = ["--backend", backend, "-q"]
    if backend == "cuda":
        probe = run([celeris, "xmatch", "--self", lcsv, "-r", "5arcsec", "--count"] + common)
        if probe.returncode != 0:
            print("no usable GPU: skipped (" + probe.stderr.strip() + ")")
            sys.exit(77)

    cases = []  # (name, inputs + options, output suffix)
    for find in ["all", "best", "best1", "best2"]:
        for join, suffix in [("1and2", ".fits"), ("1or2", ".csv")]:
            cases.append((f"{find}_{join}", [lfits, rfits, "--find", find, "--join", join],
                          suffix))
    cases.append(("best2_all2_csvin", [lcsv, rcsv, "--find", "best2", "--join", "all2"], ".fits"))
    for find in ["all", "best", "best1"]:
        cases.append((f"self_{find}", ["--self", lfits, "--find", find], ".fits"))
    cases.append(("self_all1_csv", ["--self", lcsv, "--find", "best1", "--join", "all1"], ".csv"))

    # Every case on the most ranks; the first four on each rank count too (CI time: each mpirun
    # costs about a second on the 2-core machine).
    checked = 0
    for c, (name, opts, suffix) in enumerate(cases):
        ref = os.path.join(work, name + ".single" + suffix)
        done = run([celeris, "xmatch"] + opts + ["-r", "5arcsec", "-o", ref] + common)
        if done.returncode != 0:
            die(f"{name}: single process failed: {done.stderr}")
        for k in (ranks if c < 4 else ranks[-1:]):
            out = os.path.join(work, f"{name}.mpi{k}{suffix}")
            done = run(mpi + ["-n", str(k), celeris, "xmatch"] + opts +
                       ["-r", "5arcsec", "-o", out] + common)
            if done.returncode != 0:
                die(f"{name}: {k} ranks failed: {done.stderr}")
            if not filecmp.cmp(ref, out, shallow=False):
                die(f"{name}: {k} ranks wrote a different file than one process ({out} vs {ref})")
            checked += 1
    print(f"{checked} MPI outputs byte-identical to the single-process ones")

    # The plan has more chunks than ranks (the crowded pixel of the RA 0 spot is split: the
    # split itself is checked by test_xmatch's ChunkPlan tests).
    done = run(mpi + ["-n", str(max(ranks)), celeris, "xmatch", lfits, rfits, "-r", "5arcsec",
                      "--count", "--backend", backend])
    summary = done.stdout.splitlines()[-1]
    chunks = int(summary.split(" chunks")[0].split()[-1])
    if done.returncode != 0 or chunks <= max(ranks):
        die("expected more chunks than ranks: " + summary + done.stderr)

    # --count: the same text (pairs and histogram) as one process on the CPU, reduced or
    # gathered (GPU ranks count --find all on the device, pairs never written: equal bin for bin).
    def on_cpu(opts):
        return [("cpu" if k > 0 and opts[k - 1] == "--backend" else a) for k, a in enumerate(opts)]

    for find in ["all", "best1", "best"]:
        opts = [lfits, rfits, "-r", "5arcsec", "--find", find, "--count", "--bins", "7"] + common
        ref = run([celeris, "xmatch"] + on_cpu(opts))
        if ref.returncode != 0 or not ref.stdout.startswith("pairs "):
            die(f"count {find}: single process: {ref.stderr}")
        for k in ranks[-2:]:
            got = run(mpi + ["-n", str(k), celeris, "xmatch"] + opts)
            if got.returncode != 0 or got.stdout != ref.stdout:
                die(f"count {find}, {k} ranks: {got.stdout!r} {got.stderr} vs {ref.stdout!r}")
    print("--count identical: " + ref.stdout.splitlines()[0])

    # --count --memory: each rank's chunks within half the bound, one chunk's pairs at a time;
    # the same text as one process. On 20,000 x 10,000 rows spread over the sky (no dense spot sets the
    # least bound), 24k gives several times the default plan's chunks.
    def chunks_of(done):
        return int(done.stdout.splitlines()[-1].split(" chunks")[0].split()[-1])

    spread, spread2 = os.path.join(work, "spread.csv"), os.path.join(work, "spread2.csv")
    write_csv(spread, uniform(random.Random(5), 20000))
    write_csv(spread2, uniform(random.Random(6), 10000))
    for name, opts in [("all", [spread, spread2, "--find", "all"]),
                       ("best1", [spread, spread2, "--find", "best1"]),
                       ("self all", ["--self", spread])]:
        opts = opts + ["-r", "0.3deg", "--count", "--bins", "7", "--backend", backend]
        ref = run([celeris, "xmatch"] + on_cpu(opts) + ["-q"])
        for k in (ranks[-2:] if name == "all" else ranks[-1:]):
            plain = run(mpi + ["-n", str(k), celeris, "xmatch"] + opts)
            got = run(mpi + ["-n", str(k), celeris, "xmatch"] + opts + ["--memory", "24k"])
            if got.returncode != 0 or plain.returncode != 0:
                die(f"count --memory {name}, {k} ranks: {got.stderr} {plain.stderr}")
            if got.stdout.splitlines()[:-1] != ref.stdout.splitlines():
                die(f"count --memory {name}, {k} ranks: {got.stdout!r} vs {ref.stdout!r}")
            if chunks_of(got) < 2 * chunks_of(plain):
                die(f"count --memory {name}, {k} ranks: {chunks_of(got)} chunks, "
                    f"{chunks_of(plain)} without --memory: the bound was not used")
    print(f"--count --memory 24k identical ({chunks_of(got)} chunks against "
          f"{chunks_of(plain)}): " + ref.stdout.splitlines()[0])
    if backend == "cuda":
        # The paper's d1 set (1M rows) self-matched at 0.0056 deg, counted on the GPU in one
        # process and by each rank (whole partitions, and runs of chunks under --gpu-memory 64M),
        # against the CPU's count. GPU only: about 10 s of CPU on the 2-core CI machine.
        d1 = os.path.join(work, "d1.fits")
        if run([celeris, "simulate", "catalog", "--table3", "d1", "-o", d1]).returncode != 0:
            die("simulate catalog --table3 d1 failed")
        opts = ["--self", d1, "-r", "0.0056deg", "--count", "--bins", "20", "-q"]
        ref = run([celeris, "xmatch"] + opts + ["--backend", "cpu"])
        if ref.returncode != 0:
            die(f"d1 count on the CPU: {ref.stderr}")
        gpu = ["--backend", "cuda"]
        for cmd in ([[celeris, "xmatch"] + opts + gpu,
                     [celeris, "xmatch"] + opts + gpu + ["--gpu-memory", "64M"]] +
                    [mpi + ["-n", str(k), celeris, "xmatch"] + opts + gpu + extra
                     for k in ranks for extra in ([], ["--gpu-memory", "64M"])]):
            got = run(cmd)
            if got.returncode != 0 or got.stdout != ref.stdout:
                die(f"d1 count: {' '.join(cmd)}: {got.stdout!r} {got.stderr} vs {ref.stdout!r}")
        print("d1 --count on the GPU (1 process, ranks " + ",".join(map(str, ranks)) +
              ", whole and --gpu-memory 64M) identical to the CPU's: " + ref.stdout.splitlines()[0])
    # What the bound would not honour is refused: a table output (rank 0 holds every pair and the
    # input tables), a find that gathers every pair on rank 0, a bound below one pixel's rows.
    for opts, words in [(["--memory", "2M", "-o", os.path.join(work, "mem.fits")], "--count only"),
                        (["--memory", "2M", "--count", "--find", "best"], "rank 0"),
                        (["--memory", "64k", "--count"], "too small")]:
        done = run(mpi + ["-n", "2", celeris, "xmatch", lfits, rfits, "-r", "5arcsec"] + opts
                   + common)
        if done.returncode == 0 or words not in done.stderr:
            die(f"--memory {opts} under mpirun: expected a refusal naming {words!r}: "
                + done.stderr)
    if os.path.exists(os.path.join(work, "mem.fits")):
        die("a refused --memory run left its output")

    # A failing rank: non-zero exit, a message naming it and its partition, no output left.
    k = max(ranks)
    if k >= 2:
        out = os.path.join(work, "failed.fits")
        env = dict(os.environ, CELERIS_XMATCH_MPI_FAULT="1:throw")
        done = run(mpi + ["-n", str(k), celeris, "xmatch", lfits, rfits, "-r", "5arcsec", "-o",
                          out] + common, env=env)
        if done.returncode == 0:
            die("a failing rank did not fail the job")
        if "rank 1 (partition 2/" not in done.stderr or "injected failure" not in done.stderr:
            die("the failure message does not name rank 1 and its partition: " + done.stderr)
        env["CELERIS_XMATCH_MPI_FAULT"] = "1:abort"
        done = run(mpi + ["-n", str(k), celeris, "xmatch", lfits, rfits, "-r", "5arcsec", "-o",
                          out] + common, env=env)
        if done.returncode == 0:
            die("an aborting rank did not fail the job")
        if "rank 1 (partition 2/" not in done.stderr or "died on signal 6" not in done.stderr:
            die("the abort message does not name rank 1 and its partition: " + done.stderr)
        left_over = [f for f in os.listdir(work) if f.startswith("failed")]
        if left_over:
            die(f"a failed job left {left_over}")
        print("failing ranks: job failed, rank and partition named, no output")

    # Bad input (a row's Dec out of range) fails every rank before any output.
    bad = os.path.join(work, "bad.csv")
    with open(lcsv) as f, open(bad, "w") as g:
        lines = f.read().splitlines()
        lines[50] = "49,10.0,95.0,15.0"
        g.write("\n".join(lines) + "\n")
    out = os.path.join(work, "bad_out.fits")
    done = run(mpi + ["-n", "2", celeris, "xmatch", bad, rfits, "-r", "5arcsec", "-o", out]
               + common)
    if done.returncode == 0 or "rank 0 (reading the inputs)" not in done.stderr \
            or "row 50" not in done.stderr or os.path.exists(out):
        die("bad input: " + done.stderr)
    print("bad input: job failed, rank and row named, no output")


if __name__ == "__main__":
    main()
