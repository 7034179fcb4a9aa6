#!/usr/bin/env python3
"""`celeris xmatch` on HATS catalogs against the same rows as CSV: identical outputs.

usage: hats_identical.py CELERIS_BIN WORKDIR [--ranks 1,2]

The catalogs of mpi_identical.py (uniform rows, dense spots across RA 0/360, both polar caps, the
right side holding perturbed copies of left rows) are written as HATS catalogs with pyarrow,
following the HATS layout: hats.properties naming the position columns (ra_obj / dec_obj, names
celeris would not guess), partition_info.csv, dataset/Norder=K/Dir=D/Npix=N.parquet with adaptive
orders (a pixel holding more than 400 rows is split, up to order 6: the polar caps and the RA 0
spot end in order 4-6 partitions beside order 0-1 ones), one partition stored as a directory of
two files (Npix=N/, read together in name order), an int column with nulls and a string column. The reference is
the same rows as CSV in the HATS row order (partitions in sky order, rows in file order):
outputs byte-identical for --find all|best|best1|best2, joins, a self-match, --count (also with
--memory), a collection directory, and mpirun -n 1 and 2 (byte-identical to one process); the
pair sets identical, by id, to a run on the rows shuffled; --count --memory (partitions skipped
per chunk) equal to the in-memory count when a row was moved into a far partition. Bad catalogs (a missing partition, a
bad partition_info.csv line, overlapping partitions, a margin cache given as the catalog,
--memory with a table output) exit non-zero with one line and leave no output.

MPI with margin caches (mpi_margins): 10 arcsec margin caches written beside both catalogs
(write_margin: each partition's margin holds the other partitions' rows within 10 arcsec, plus at
most 1.25 max_pixrad of 10 orders deeper), so mpirun ranks read their own partitions and the
margins instead of exchanging rows: outputs byte-identical at 1, 2 and 4 ranks with no fallback
notice on stderr; a radius above the threshold falls back, saying so; empty margin files lose
pairs (the margins are really used); a collection's default_margin; a right catalog leaving a
hole in a left partition (hole_catalogs); an absent margin file and a partition with a bad row
fail the job naming the rank and its partitions, leaving no output.

Exit 77 (ctest SKIP) when pyarrow is not importable; when celeris was built without Parquet, the
refusal is checked (one line naming CELERIS_PARQUET, non-zero exit, no output) and 77 returned.
"""
import csv
import filecmp
import glob
import math
import os
import random
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_identical import pole_cap, spot, uniform  # noqa: E402

MAX_ROWS = 400  # rows per partition before it is split (hats-import's pixel_threshold)
MAX_ORDER = 6
# The CSV copies need their position columns named; the HATS catalogs name them in properties.
COLS1 = ["--ra1", "ra_obj", "--dec1", "dec_obj"]
COLS2 = ["--ra2", "ra_obj", "--dec2", "dec_obj"]


def die(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ang2pix_nest29(ra_deg, dec_deg):
    return ang2pix_nest(29, ra_deg, dec_deg)


def ang2pix_nest(order, ra_deg, dec_deg):
    """NESTED HEALPix pixel (the HEALPix paper's z/phi projection; near a pixel edge float
    rounding may pick the neighbour, which only moves a row to the adjacent partition)."""
    nside = 1 << order
    z = math.sin(math.radians(dec_deg))
    za = abs(z)
    tt = (ra_deg % 360.0) / 90.0
    if za <= 2.0 / 3.0:
        t1 = nside * (0.5 + tt)
        t2 = nside * z * 0.75
        jp, jm = int(t1 - t2), int(t1 + t2)
        ifp, ifm = jp >> order, jm >> order
        face = (ifp | 4) if ifp == ifm else (ifp if ifp < ifm else ifm + 8)
        ix = jm & (nside - 1)
        iy = nside - (jp & (nside - 1)) - 1
    else:
        ntt = min(3, int(tt))
        tp = tt - ntt
        tmp = nside * math.sqrt(3 * (1 - za))
        jp = min(int(tp * tmp), nside - 1)
        jm = min(int((1 - tp) * tmp), nside - 1)
        if z >= 0:
            face, ix, iy = ntt, nside - jm - 1, nside - jp - 1
        else:
            face, ix, iy = ntt + 8, jp, jm
    inter = 0
    for b in range(order):
        inter |= ((ix >> b) & 1) << (2 * b) | ((iy >> b) & 1) << (2 * b + 1)
    return face * nside * nside + inter


def partitions(pix29):
    """Adaptive partitions {(order, pix): [row indices]} as hats-import makes them."""
    out = {}
    todo = [(0, p, [k for k in range(len(pix29)) if pix29[k] >> 58 == p]) for p in range(12)]
    while todo:
        order, pix, rows = todo.pop()
        if not rows:
            continue
        if len(rows) <= MAX_ROWS or order == MAX_ORDER:
            out[(order, pix)] = rows
            continue
        shift = 2 * (29 - order - 1)
        for c in range(4):
            child = 4 * pix + c
            todo.append((order + 1, child, [k for k in rows if pix29[k] >> shift == child]))
    return out


def sky_key(part):
    order, pix = part
    return pix << (2 * (29 - order))


def table_rows(points, seed):
    """Rows: id, ra_obj, dec_obj, mag (double), flag (int with nulls), name (text)."""
    rng = random.Random(seed)
    rows = []
    for k, (a, d) in enumerate(points):
        flag = None if k % 11 == 0 else rng.randrange(0, 1000)
        rows.append({"id": k, "ra_obj": a, "dec_obj": d, "mag": 15 + (k % 97) / 10,
                     "flag": flag, "name": "obj%d" % k})
    return rows


def write_hats(pa, pq, root, rows, dir_partition=True):
    """A HATS catalog of `rows`; returns the rows in the catalog's row order."""
    pix29 = [ang2pix_nest29(r["ra_obj"], r["dec_obj"]) for r in rows]
    parts = partitions(pix29)
    os.makedirs(os.path.join(root, "dataset"))
    ordered = []
    split_done = not dir_partition
    for part in sorted(parts, key=sky_key):
        order, pix = part
        idx = sorted(parts[part], key=lambda k: pix29[k])  # hats sorts by _healpix_29
        d = os.path.join(root, "dataset", "Norder=%d" % order, "Dir=%d" % (pix // 10000 * 10000))
        os.makedirs(d, exist_ok=True)
        chunks = [idx]
        if not split_done and len(idx) >= 20:
            # One partition as a directory of two files, read together in name order.
            chunks, split_done = [idx[: len(idx) // 2], idx[len(idx) // 2:]], True
        for c, sub in enumerate(chunks):
            table = pa.table({
                "_healpix_29": pa.array([pix29[k] for k in sub], pa.int64()),
                "id": pa.array([rows[k]["id"] for k in sub], pa.int64()),
                "ra_obj": pa.array([rows[k]["ra_obj"] for k in sub], pa.float64()),
                "dec_obj": pa.array([rows[k]["dec_obj"] for k in sub], pa.float64()),
                "mag": pa.array([rows[k]["mag"] for k in sub], pa.float64()),
                "flag": pa.array([rows[k]["flag"] for k in sub], pa.int32()),
                "name": pa.array([rows[k]["name"] for k in sub], pa.string()),
            })
            if len(chunks) == 1:
                pq.write_table(table, os.path.join(d, "Npix=%d.parquet" % pix))
            else:
                os.makedirs(os.path.join(d, "Npix=%d" % pix), exist_ok=True)
                pq.write_table(table, os.path.join(d, "Npix=%d" % pix, "part%d.parquet" % c))
        ordered += [rows[k] for k in idx]
    with open(os.path.join(root, "partition_info.csv"), "w") as f:
        f.write("Norder,Npix\n")
        for order, pix in sorted(parts):  # hats writes them by (order, pix), not in sky order
            f.write("%d,%d\n" % (order, pix))
    with open(os.path.join(root, "hats.properties"), "w") as f:
        f.write("#HATS catalog\nobs_collection=%s\ndataproduct_type=object\nhats_nrows=%d\n"
                "hats_col_ra=ra_obj\nhats_col_dec=dec_obj\nhats_col_healpix=_healpix_29\n"
                "hats_col_healpix_order=29\nhats_npix_suffix=.parquet\n"
                % (os.path.basename(root), len(rows)))
    return ordered, parts


# ---- margin caches (what hats-import / LSDB write beside a catalog) ------------------------------

JRLL = [2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4]
JPLL = [1, 3, 5, 7, 0, 2, 4, 6, 1, 3, 5, 7]


def pix2vec_nest(np, order, pix):
    """Unit vectors of the centres of NESTED pixels (numpy int64 array), the HEALPix paper's
    ring/face geometry."""
    nside = 1 << order
    npface = nside * nside
    face = pix // npface
    ipf = pix % npface
    ix = np.zeros_like(pix)
    iy = np.zeros_like(pix)
    for b in range(order):
        ix |= ((ipf >> (2 * b)) & 1) << b
        iy |= ((ipf >> (2 * b + 1)) & 1) << b
    jr = np.array(JRLL)[face] * nside - ix - iy - 1
    north, south = jr < nside, jr > 3 * nside
    nr = np.where(north, jr, np.where(south, 4 * nside - jr, nside))
    z = np.where(north, 1 - nr * nr / (3.0 * npface),
                 np.where(south, -1 + nr * nr / (3.0 * npface),
                          (2 * nside - jr) * 2.0 / (3.0 * nside)))
    kshift = np.where(north | south, 0, (jr - nside) & 1)
    jp = (np.array(JPLL)[face] * nr + ix - iy + 1 + kshift) // 2
    jp = np.where(jp > 4 * nside, jp - 4 * nside, jp)
    jp = np.where(jp < 1, jp + 4 * nside, jp)
    phi = (jp - (kshift + 1) * 0.5) * (math.pi / 2 / nr)
    st = np.sqrt(np.maximum(0.0, (1 - z) * (1 + z)))
    return np.stack([st * np.cos(phi), st * np.sin(phi), z], axis=1)


def max_pixrad(order):
    """Largest centre-to-corner angle of the pixels of an order (healpix_cxx's max_pixrad)."""
    ns = 1 << order
    za, pa = 2.0 / 3.0, math.pi / (4 * ns)
    zb = 1 - (1 - 1.0 / ns) ** 2 / 3
    sa, sb = math.sqrt((1 - za) * (1 + za)), math.sqrt((1 - zb) * (1 + zb))
    a, b = (sa * math.cos(pa), sa * math.sin(pa), za), (sb, 0.0, zb)
    return math.acos(max(-1.0, min(1.0, sum(x * y for x, y in zip(a, b)))))


def unit_vectors(np, rows):
    ra = np.radians(np.array([r["ra_obj"] for r in rows]))
    dec = np.radians(np.array([r["dec_obj"] for r in rows]))
    return np.stack([np.cos(dec) * np.cos(ra), np.cos(dec) * np.sin(ra), np.sin(dec)], axis=1)


def near_pixel(np, vec, rows, order, pix, t):
    """The rows (indices into vec) within angle t of NESTED pixel `pix`, and a few more: a row is
    kept while some sub-pixel's centre is within t + 1.25 max_pixrad of it (1.25: pixel edges
    curve beyond the corners), descending 10 orders below the pixel, so no row within t is lost
    and none beyond t + 1.25 max_pixrad(order + 10) is kept."""
    cand_rows, cand_pix = rows, np.full(len(rows), pix, dtype=np.int64)
    for depth in range(order, order + 11):
        if depth > order:
            cand_rows = np.repeat(cand_rows, 4)
            cand_pix = (np.repeat(cand_pix, 4) << 2) + np.tile(np.arange(4), len(cand_pix))
        centres = pix2vec_nest(np, depth, cand_pix)
        near = np.einsum("ij,ij->i", centres, vec[cand_rows]) >= math.cos(
            min(math.pi, 1.25 * max_pixrad(depth) + t))
        cand_rows, cand_pix = cand_rows[near], cand_pix[near]
    return sorted(set(int(k) for k in cand_rows))


def write_margin(pa, pq, np, catalog, root, rows, parts, threshold_arcsec):
    """The margin cache of a catalog written by write_hats: for each partition, the rows of the
    other partitions within threshold of its pixel (near_pixel: at most 1.25 max_pixrad of order
    + 10 beyond it, a few arcsec here). Partitions whose margin is empty get no file, as hats
    writes them."""
    vec = unit_vectors(np, rows)
    pix29 = [ang2pix_nest29(r["ra_obj"], r["dec_obj"]) for r in rows]
    owner = {}
    for part, idx in parts.items():
        for k in idx:
            owner[k] = part
    t = math.radians(threshold_arcsec / 3600.0)
    written = []
    os.makedirs(os.path.join(root, "dataset"))
    for part in sorted(parts, key=sky_key):
        order, pix = part
        others = np.array([k for k in range(len(rows)) if owner[k] != part], dtype=np.int64)
        keep = near_pixel(np, vec, others, order, pix, t)
        if not keep:
            continue
        keep.sort(key=lambda k: pix29[k])
        d = os.path.join(root, "dataset", "Norder=%d" % order, "Dir=%d" % (pix // 10000 * 10000))
        os.makedirs(d, exist_ok=True)
        pq.write_table(pa.table({
            "_healpix_29": pa.array([pix29[k] for k in keep], pa.int64()),
            "id": pa.array([rows[k]["id"] for k in keep], pa.int64()),
            "ra_obj": pa.array([rows[k]["ra_obj"] for k in keep], pa.float64()),
            "dec_obj": pa.array([rows[k]["dec_obj"] for k in keep], pa.float64()),
            "mag": pa.array([rows[k]["mag"] for k in keep], pa.float64()),
            "flag": pa.array([rows[k]["flag"] for k in keep], pa.int32()),
            "name": pa.array([rows[k]["name"] for k in keep], pa.string()),
        }), os.path.join(d, "Npix=%d.parquet" % pix))
        written.append((part, len(keep)))
    with open(os.path.join(root, "partition_info.csv"), "w") as f:
        f.write("Norder,Npix\n")
        for (order, pix), _ in written:
            f.write("%d,%d\n" % (order, pix))
    with open(os.path.join(root, "hats.properties"), "w") as f:
        f.write("#HATS catalog\nobs_collection=%s\ndataproduct_type=margin\nhats_nrows=%d\n"
                "hats_col_ra=ra_obj\nhats_col_dec=dec_obj\nhats_primary_table_url=../%s\n"
                "hats_margin_threshold=%r\nhats_npix_suffix=.parquet\n"
                % (os.path.basename(root), sum(n for _, n in written), catalog,
                   float(threshold_arcsec)))
    return written


def holes(left_parts, right_parts):
    """Left partitions not wholly covered by right partitions (order-29 intervals)."""
    spans = sorted((pix << (2 * (29 - o)), (pix + 1) << (2 * (29 - o))) for o, pix in right_parts)
    out = 0
    for o, pix in left_parts:
        a, b = pix << (2 * (29 - o)), (pix + 1) << (2 * (29 - o))
        covered = sum(max(0, min(b, e) - max(a, s)) for s, e in spans)
        out += covered < b - a
    return out


def write_csv(path, rows):
    """The same rows as CSV: integer and float cells as celeris reads them, nulls blank, the
    text column dropped (celeris skips non-numeric columns of every format)."""
    with open(path, "w") as f:
        f.write("_healpix_29,id,ra_obj,dec_obj,mag,flag\n")
        for r in rows:
            f.write("%d,%d,%r,%r,%r,%s\n" % (ang2pix_nest29(r["ra_obj"], r["dec_obj"]), r["id"],
                                             r["ra_obj"], r["dec_obj"], r["mag"],
                                             "" if r["flag"] is None else str(r["flag"])))


def run(cmd):
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def xmatch(celeris, args, mpi=None):
    done = run((mpi or []) + [celeris, "xmatch", "-q"] + args)
    if done.returncode != 0:
        die("celeris xmatch %s: %s" % (" ".join(args), done.stderr.strip()))
    return done.stdout


def same_files(a, b, what):
    if not filecmp.cmp(a, b, shallow=False):
        die(what + ": %s and %s differ" % (a, b))


def pairs_by_id(path):
    with open(path) as f:
        return {(r["id_1"], r["id_2"]): r["Separation"] for r in csv.DictReader(f)}


def expect_error(celeris, args, needle, out):
    done = run([celeris, "xmatch", "-q"] + args)
    lines = done.stderr.strip().splitlines()
    if done.returncode == 0 or len(lines) != 1 or needle not in lines[0]:
        die("%s: expected one error line with %r, got rc %d: %r"
            % (" ".join(args), needle, done.returncode, done.stderr))
    if out and os.path.exists(out):
        die("%s: output %s left behind" % (" ".join(args), out))


def bad_catalogs(celeris, good, work, rcsv):
    out = os.path.join(work, "bad.csv")
    # A partition listed but absent.
    d = os.path.join(work, "bad_missing")
    shutil.copytree(good, d)
    with open(os.path.join(d, "partition_info.csv")) as f:
        order, pix = (int(x) for x in f.read().splitlines()[-1].split(","))
    gone = os.path.join(d, "dataset", "Norder=%d" % order, "Dir=%d" % (pix // 10000 * 10000),
                        "Npix=%d.parquet" % pix)
    os.remove(gone)
    expect_error(celeris, [d, rcsv, "-r", "5arcsec", "-o", out] + COLS2, gone, out)
    # A bad line, and overlapping partitions.
    d = os.path.join(work, "bad_line")
    shutil.copytree(good, d)
    with open(os.path.join(d, "partition_info.csv"), "a") as f:
        f.write("1,x7\n")
    expect_error(celeris, [d, rcsv, "-r", "5arcsec", "-o", out] + COLS2, "not an integer",
                 out)
    d = os.path.join(work, "bad_overlap")
    shutil.copytree(good, d)
    with open(os.path.join(d, "partition_info.csv")) as f:
        first = f.read().splitlines()[1].split(",")
    order, pix = int(first[0]), int(first[1])
    with open(os.path.join(d, "partition_info.csv"), "a") as f:
        f.write("%d,%d\n" % (order + 1, 4 * pix))  # a child of a listed partition
    expect_error(celeris, [d, rcsv, "-r", "5arcsec", "-o", out] + COLS2, "overlap", out)
    # A partition file that is not Parquet (truncated), and a properties column the files lack.
    d = os.path.join(work, "bad_truncated")
    shutil.copytree(good, d)
    victim = sorted(glob.glob(os.path.join(d, "dataset", "*", "*", "*.parquet")))[0]
    with open(victim, "r+b") as f:
        f.truncate(100)
    expect_error(celeris, [d, rcsv, "-r", "5arcsec", "-o", out] + COLS2, "not a Parquet file",
                 out)
    d = os.path.join(work, "bad_property")
    shutil.copytree(good, d)
    with open(os.path.join(d, "hats.properties")) as f:
        text = f.read().replace("hats_col_ra=ra_obj", "hats_col_ra=ra_missing")
    with open(os.path.join(d, "hats.properties"), "w") as f:
        f.write(text)
    expect_error(celeris, [d, rcsv, "-r", "5arcsec", "-o", out] + COLS2, "ra_missing", out)
    # A margin cache is not a catalog.
    d = os.path.join(work, "bad_margin")
    shutil.copytree(good, d)
    with open(os.path.join(d, "hats.properties"), "a") as f:
        f.write("dataproduct_type=margin\n")
    expect_error(celeris, [d, rcsv, "-r", "5arcsec", "-o", out] + COLS2, "margin", out)
    # A position column the files lack.
    expect_error(celeris, [good, rcsv, "--ra1", "nosuch", "--dec1", "dec_obj", "-r", "5arcsec",
                           "-o", out] + COLS2, "nosuch", out)
    # --memory writes its table from FITS blocks: HATS refused there (counting is fine).
    expect_error(celeris, [good, rcsv, "-r", "5arcsec", "--memory", "64M", "-o", out] + COLS2,
                 "--memory", out)


FALLBACK = "MPI ranks exchange rows instead of reading the margin cache"


def mpi_margins(celeris, work, ranks, cases, want, lhats, rhats, mpirun):
    """mpirun -n K: each rank reads its own partitions and the right catalog's margin cache
    (no fallback notice on stderr); outputs byte-identical to one process on the CSV rows."""
    mpi = [mpirun, "--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]

    def run_mpi(k, args, margin=True):
        done = run(mpi + ["-n", str(k), celeris, "xmatch", "-q"] + args)
        if done.returncode != 0:
            die("mpirun -n %d celeris xmatch %s: %s" % (k, " ".join(args), done.stderr.strip()))
        if margin and FALLBACK in done.stderr:
            die("mpirun -n %d %s did not read the margin cache: %s"
                % (k, " ".join(args), done.stderr.strip()))
        return done

    for k in ranks:
        for c, opts in enumerate(cases[:3]):
            got = os.path.join(work, "mpi%d_%d.csv" % (k, c))
            run_mpi(k, [lhats, rhats, "-o", got] + opts)
            same_files(os.path.join(work, "c%d_csv.csv" % c), got, "mpirun -n %d" % k)
        got = os.path.join(work, "mpi%d_self.csv" % k)
        run_mpi(k, ["--self", lhats, "-r", "10arcsec", "-o", got])
        same_files(os.path.join(work, "self_csv.csv"), got, "mpirun -n %d --self" % k)
        counted = run_mpi(k, [lhats, rhats, "-r", "5arcsec", "--count"]).stdout
        if counted != want:
            die("mpirun -n %d --count: %r != %r" % (k, counted, want))
    got = os.path.join(work, "mpi_fits.fits")
    run_mpi(ranks[-1], [lhats, rhats, "-o", got] + cases[0])
    same_files(os.path.join(work, "c0_csv.fits"), got, "mpirun -n %d -> .fits" % ranks[-1])
    print("mpirun -n %s with margin caches: outputs identical to one process"
          % ",".join(map(str, ranks)))

    # A radius beyond the margin's threshold: the row exchange, said on stderr, same output.
    got = os.path.join(work, "mpi_wide.csv")
    done = run_mpi(2, [lhats, rhats, "-o", got] + cases[4], margin=False)
    if FALLBACK not in done.stderr or "less than the radius" not in done.stderr:
        die("a margin below the radius should be named on stderr: %r" % done.stderr)
    same_files(os.path.join(work, "c4_csv.csv"), got, "mpirun -n 2, radius above the margin")

    # The margin rows are needed: with empty margin files the ranks lose the pairs across their
    # borders (so the runs above did read them).
    empty = os.path.join(work, "empty")
    shutil.copytree(lhats, empty)
    shutil.copytree(lhats + "_margin", empty + "_margin")
    import pyarrow.parquet as pq
    for f in glob.glob(os.path.join(empty + "_margin", "dataset", "*", "*", "*.parquet")):
        pq.write_table(pq.read_table(f).slice(0, 0), f)
    got = os.path.join(work, "mpi_empty_margin.csv")
    run_mpi(4, ["--self", empty, "-r", "10arcsec", "-o", got])
    if filecmp.cmp(os.path.join(work, "self_csv.csv"), got, shallow=False):
        die("empty margin files gave the full output: the margin rows are not what is tested")

    # A collection names its margin (default_margin).
    coll = os.path.join(work, "mcollection")
    os.makedirs(coll)
    shutil.copytree(lhats, os.path.join(coll, "primary"))
    shutil.copytree(lhats + "_margin", os.path.join(coll, "primary_10arcs"))
    with open(os.path.join(coll, "collection.properties"), "w") as f:
        f.write("#HATS Collection\nobs_collection=c\nhats_primary_table_url=primary\n"
                "all_margins=primary_10arcs\ndefault_margin=primary_10arcs\n")
    got = os.path.join(work, "mpi_coll.csv")
    run_mpi(2, ["--self", coll, "-r", "10arcsec", "-o", got])
    same_files(os.path.join(work, "self_csv.csv"), got, "mpirun -n 2, collection with a margin")
    print("margin below the radius: row exchange, said on stderr; empty margins lose pairs; "
          "a collection's default_margin read")

    # A failing rank: a margin file listed but absent, a partition file with a bad row. The job
    # exits non-zero naming the rank and its partitions, and leaves no output.
    def expect_rank_failure(args, needle, out):
        done = run(mpi + ["-n", "2", celeris, "xmatch", "-q"] + args)
        named = re.search(r"rank \d \(partition \d/2: HATS partitions Norder=", done.stderr)
        if done.returncode == 0 or not named or needle not in done.stderr:
            die("%s: expected a failure naming the rank, its partitions and %r, got rc %d: %r"
                % (" ".join(args), needle, done.returncode, done.stderr))
        if out and os.path.exists(out):
            die("%s: output %s left behind" % (" ".join(args), out))

    broken = os.path.join(work, "broken")
    shutil.copytree(lhats, broken)
    shutil.copytree(lhats + "_margin", broken + "_margin")
    gone = sorted(glob.glob(os.path.join(broken + "_margin", "dataset", "*", "*", "*.parquet")))[-1]
    os.remove(gone)
    out = os.path.join(work, "broken.csv")
    expect_rank_failure(["--self", broken, "-r", "10arcsec", "-o", out], gone, out)
    bad = os.path.join(work, "badrow")
    shutil.copytree(lhats, bad)
    shutil.copytree(lhats + "_margin", bad + "_margin")
    victim = sorted(glob.glob(os.path.join(bad, "dataset", "*", "*", "*.parquet")))[-1]
    t = pq.read_table(victim)
    dec = t.column("dec_obj").to_pylist()
    dec[0] = 95.0
    pq.write_table(t.set_column(t.schema.get_field_index("dec_obj"), "dec_obj",
                                pa_array(dec)), victim)
    expect_rank_failure(["--self", bad, "-r", "10arcsec", "--count"], victim, None)
    print("a failing rank (absent margin file, bad row) fails the job, naming it")

    # A hole in the right catalog's coverage at the edge of a left partition.
    import numpy as np
    import pyarrow as pa
    hl, hr = hole_catalogs(pa, pq, np, work, random.Random(7))
    ref = os.path.join(work, "hole_one.csv")
    xmatch(celeris, [hl, hr, "-r", "5arcsec", "-o", ref])
    with open(ref) as f:
        if sum(1 for _ in f) < 2:
            die("hole catalogs: the pair across the hole's edge is missing in one process")
    for k in (1, 2):
        got = os.path.join(work, "hole_mpi%d.csv" % k)
        run_mpi(k, [hl, hr, "-r", "5arcsec", "-o", got])
        same_files(ref, got, "mpirun -n %d, a hole in the right partitions" % k)
    print("a hole in the right catalog's partitions: identical")


def hole_catalogs(pa, pq, np, work, rng):
    """A left catalog of one order-0 partition (face 4) and a right one whose rows in face 4 all
    lie in its order-1 sub-pixel 16 (so its partitions leave 17-19 uncovered: a hole), with a
    left row x in sub-pixel 19 one arcsec from face 0 and a right row y one arcsec across, in
    face 0's partition, far from every margin of the partitions meeting face 4. Only reading the
    partitions around the hole finds the pair (x, y)."""
    def face(ra, dec):
        return ang2pix_nest(0, ra, dec)

    def towards(a, b, f):
        return (a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]))

    a, b = (5.0, 25.0), (45.0, 30.0)  # face 4 (sub-pixel 19) to face 0
    if face(*a) != 4 or ang2pix_nest(1, *a) != 19 or face(*b) != 0:
        die("hole catalogs: unexpected HEALPix faces")
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if face(*towards(a, b, mid)) == 4 else (lo, mid)
    step = 1.0 / 3600 / math.hypot(b[0] - a[0], b[1] - a[1])  # about one arcsec
    x, y = towards(a, b, lo - step), towards(a, b, hi + step)
    if face(*x) != 4 or ang2pix_nest(1, *x) != 19 or face(*y) != 0:
        die("hole catalogs: the edge points are not where they should be")
    left = [x] + [p for p in uniform(rng, 400) if face(*p) == 4][:40]
    right = [y] + [p for p in uniform(rng, 400) if face(*p) == 0][:20]
    while sum(1 for p in right if face(*p) == 4) <= MAX_ROWS:
        p = uniform(rng, 1)[0]
        if face(*p) == 4 and ang2pix_nest(1, *p) == 16:
            right.append(p)
    paths = []
    for name, pts in (("hole_left", left), ("hole_right", right)):
        root = os.path.join(work, name)
        rows = table_rows(pts, 3)
        ordered, parts = write_hats(pa, pq, root, rows, dir_partition=False)
        write_margin(pa, pq, np, name, root + "_margin", rows, parts, 10)
        paths.append(root)
    rparts = [tuple(map(int, line.split(","))) for line in
              open(os.path.join(paths[1], "partition_info.csv")).read().split()[1:]]
    if holes([(0, 4)], rparts) != 1 or any(o == 0 and p == 4 for o, p in rparts):
        die("hole catalogs: the right catalog should leave a hole in face 4")
    return paths


def pa_array(values):
    import pyarrow as pa
    return pa.array(values, pa.float64())


def main():
    celeris, work = sys.argv[1], sys.argv[2]
    ranks = [1, 2, 4]
    if len(sys.argv) > 4 and sys.argv[3] == "--ranks":
        ranks = [int(x) for x in sys.argv[4].split(",")]
    try:
        import numpy as np
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        print("pyarrow not importable: skipped")
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
    lrows, rrows = table_rows(left, 1), table_rows(right, 2)
    lhats, rhats = os.path.join(work, "left_hats"), os.path.join(work, "right_hats")
    lordered, lparts = write_hats(pa, pq, lhats, lrows)
    rordered, rparts = write_hats(pa, pq, rhats, rrows, dir_partition=False)
    # Margin caches of 10 arcsec beside both (read by MPI ranks only).
    lmargin = write_margin(pa, pq, np, "left_hats", lhats + "_margin", lrows, lparts, 10)
    rmargin = write_margin(pa, pq, np, "right_hats", rhats + "_margin", rrows, rparts, 10)
    print("margin caches: %d left partitions with margin rows (%d rows), %d right (%d rows); "
          "%d left partitions not covered by right partitions"
          % (len(lmargin), sum(n for _, n in lmargin), len(rmargin), sum(n for _, n in rmargin),
             holes(lparts, rparts)))
    if holes(lparts, rparts) == 0:
        die("the right catalog should leave holes under some left partitions")
    orders = sorted({o for o, _ in lparts})
    poles = [p for p, idx in lparts.items() if any(abs(lrows[k]["dec_obj"]) > 89.98 for k in idx)]
    wrap = [p for p, idx in lparts.items()
            if any(lrows[k]["ra_obj"] < 0.01 or lrows[k]["ra_obj"] > 359.99 for k in idx)]
    print("left: %d partitions at orders %s; at the poles: orders %s; at RA 0/360: orders %s"
          % (len(lparts), orders, sorted(o for o, _ in poles), sorted(o for o, _ in wrap)))
    if len(orders) < 3 or len(poles) < 8 or not wrap:
        die("the test catalog should have partitions at several orders, at the poles, at RA 0")
    lcsv, rcsv = os.path.join(work, "left.csv"), os.path.join(work, "right.csv")
    write_csv(lcsv, lordered)
    write_csv(rcsv, rordered)

    # Built without Parquet: the refusal, then skip.
    probe = run([celeris, "xmatch", "-q", "--self", lhats, "-r", "1arcsec", "--count"])
    if probe.returncode != 0 and "CELERIS_PARQUET" in probe.stderr:
        if len(probe.stderr.strip().splitlines()) != 1:
            die("the refusal should be one line: " + probe.stderr)
        print("celeris built without Parquet: refusal checked, skipped")
        sys.exit(77)

    cases = [
        ["-r", "5arcsec"],
        ["-r", "5arcsec", "--find", "best"],
        ["-r", "5arcsec", "--find", "best1", "--join", "all1"],
        ["-r", "5arcsec", "--find", "best2", "--join", "1or2"],
        ["-r", "20arcsec", "--find", "greedy"],
    ]
    n = 0
    for k, opts in enumerate(cases):
        for ext in ("csv", "fits") if k == 0 else ("csv",):
            ref, got = (os.path.join(work, "c%d_%s.%s" % (k, w, ext)) for w in ("csv", "hats"))
            xmatch(celeris, [lcsv, rcsv, "-o", ref] + opts + COLS1 + COLS2)
            xmatch(celeris, [lhats, rhats, "-o", got] + opts)
            same_files(ref, got, "HATS vs CSV, %s -> .%s" % (" ".join(opts), ext))
            n += 1
    # Self-match, and a HATS catalog against a CSV one.
    for args, name in ((["--self", lhats], "self"), ([lhats, rcsv] + COLS2, "mixed")):
        ref, got = os.path.join(work, name + "_csv.csv"), os.path.join(work, name + "_hats.csv")
        ref_args = [a if a != lhats else lcsv for a in args] + COLS1
        xmatch(celeris, ref_args + ["-r", "10arcsec", "-o", ref])
        xmatch(celeris, args + ["-r", "10arcsec", "-o", got])
        same_files(ref, got, name)
        n += 1
    # --count (HATS: RA/Dec columns only), in memory and streamed by partitions.
    want = xmatch(celeris, [lcsv, rcsv, "-r", "5arcsec", "--count"] + COLS1 + COLS2)
    for extra in ([], ["--memory", "1M"]):
        got = xmatch(celeris, [lhats, rhats, "-r", "5arcsec", "--count"] + extra)
        if got != want:
            die("--count %s: %r != %r" % (" ".join(extra), got, want))
        n += 1
    # --count --memory skips the partitions outside each chunk's pixels, once a full read found
    # every row of a file inside its partition's pixel. A row moved from the densest partition
    # into a far one (now holding a row outside its pixel) must still meet its neighbours: the
    # far partition is never skipped, and the count equals the in-memory one.
    moved = os.path.join(work, "left_moved")
    shutil.copytree(lhats, moved)
    files = sorted(glob.glob(os.path.join(moved, "dataset", "*", "*", "*.parquet")),
                   key=lambda f: -pq.ParquetFile(f).metadata.num_rows)
    dense, far = files[0], [f for f in files if "Norder=0" in f][0]
    dense_t, far_t = pq.read_table(dense), pq.read_table(far)
    pq.write_table(pa.concat_tables([far_t, dense_t.slice(0, 1)]), far)
    pq.write_table(dense_t.slice(1), dense)
    for extra in (["--memory", "1M"], ["--memory", "512k"]):
        full = xmatch(celeris, [moved, rhats, "-r", "5arcsec", "--count"])
        got = xmatch(celeris, [moved, rhats, "-r", "5arcsec", "--count"] + extra)
        if got.split("xmatch:")[0] != full.split("xmatch:")[0]:
            die("--count %s with a row outside its partition: %r != %r" % (extra, got, full))
        got = xmatch(celeris, ["--self", moved, "-r", "5arcsec", "--count"] + extra)
        full = xmatch(celeris, ["--self", moved, "-r", "5arcsec", "--count"])
        if got.split("xmatch:")[0] != full.split("xmatch:")[0]:
            die("--self --count %s with a row outside its partition differs" % extra)
        n += 2
    # A collection directory stands for its primary catalog.
    coll = os.path.join(work, "collection")
    os.makedirs(coll)
    shutil.copytree(lhats, os.path.join(coll, "primary"))
    with open(os.path.join(coll, "collection.properties"), "w") as f:
        f.write("#HATS Collection\nobs_collection=c\nhats_primary_table_url=primary\n")
    got = os.path.join(work, "coll.csv")
    xmatch(celeris, [coll, rhats, "-r", "5arcsec", "-o", got])
    same_files(os.path.join(work, "c0_csv.csv"), got, "collection")
    n += 1
    # The same pairs (by id) from the rows in their original, shuffled order.
    scsv = os.path.join(work, "left_shuffled.csv")
    write_csv(scsv, lrows)
    shuf = os.path.join(work, "shuffled.csv")
    xmatch(celeris, [scsv, rhats, "-r", "5arcsec", "-o", shuf] + COLS1)
    if pairs_by_id(shuf) != pairs_by_id(os.path.join(work, "c0_hats.csv")):
        die("pairs by id differ between HATS input and the shuffled CSV rows")
    print("single process: %d outputs identical to the CSV runs, %d pairs"
          % (n, len(pairs_by_id(shuf))))

    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("mpirun not installed: MPI part skipped")
    else:
        mpi_margins(celeris, work, ranks, cases, want, lhats, rhats, mpirun)

    bad_catalogs(celeris, lhats, work, rcsv)
    print("bad catalogs refused")
    print("PASS")


if __name__ == "__main__":
    main()
