#!/usr/bin/env python3
"""Runs two celeris extraction set-ups on the same frames and compares every output byte for byte:
the ASCII catalog with every parameter celeris computes, and every check image. Used to show that a
refactor changes nothing (an old binary against a new one) and that the GPU path gives the CPU's
catalogs (`--b-args "--device cuda"`).

usage: compare-builds.py A_BIN B_BIN WORKDIR [--images DIR] [--a-args "..."] [--b-args "..."]
                         [--quick] [--keep]
Exit 0 when every output is identical, 1 otherwise (each difference is named). The check images
of identical runs are removed as the run goes (a full run writes about 6 GB of them), unless
--keep.
"""
import argparse
import filecmp
import glob
import os
import shlex
import subprocess
import sys

# The parity simulations (tests/extract/parity.py's, one definition) and a crowded 4096^2 field.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../tests/extract"))
from parity import SIMS as PARITY_SIMS  # noqa: E402

SIMS = dict(PARITY_SIMS, crowded4k=["--size", "4096", "--seed", "21", "--density", "crowded"])
# Configurations run on every frame (beyond the defaults).
VARIANTS = {
    "default": [],
    "local": ["-BACKPHOTO_TYPE", "LOCAL", "-BACKPHOTO_THICK", "12"],
    "autoapers": ["-PHOT_AUTOAPERS", "12,20", "-MEMORY_BUFSIZE", "300"],
    "nofilter_abs": ["-FILTER", "N", "-THRESH_TYPE", "ABSOLUTE", "-DETECT_THRESH", "30",
                     "-ANALYSIS_THRESH", "30", "-MASK_TYPE", "NONE"],
    "noclean_correct": ["-CLEAN", "N", "-MASK_TYPE", "CORRECT", "-DEBLEND_MINCONT", "0.0001"],
}
CHECKS = ["BACKGROUND", "BACKGROUND_RMS", "MINIBACKGROUND", "MINIBACK_RMS", "-BACKGROUND",
          "FILTERED", "SEGMENTATION", "OBJECTS", "-OBJECTS", "APERTURES"]


def run(cmd, log):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(log, "w") as f:
        f.write(" ".join(shlex.quote(c) for c in cmd) + "\n" + r.stdout)
    return r.returncode


def frame_params(binary, frame, names, path, extra=()):
    """Writes the parameter list for `frame`: every name, less those the frame refuses (e.g. the
    J2000 angles on a galactic WCS: "error: THETA_J2000: only equatorial ..."), so that a refused
    column does not leave the whole frame uncompared. Returns the file's path."""
    names = list(names)
    while True:
        with open(path, "w") as f:
            f.write("\n".join(names) + "\n")
        r = subprocess.run([binary, "extract", frame, "-PARAMETERS_NAME", path, "-CATALOG_TYPE",
                            "NONE", *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        refused = [n for n in names if r.returncode != 0 and f"error: {n.split('(')[0]}:" in r.stdout]
        if not refused:
            return path
        print(f"{os.path.basename(frame)}: without {', '.join(refused)} (refused by A)", flush=True)
        names = [n for n in names if n not in refused]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("work")
    ap.add_argument("--images", default=os.path.join(os.path.dirname(__file__), "../../shared/data/images"))
    ap.add_argument("--a-args", default="")
    ap.add_argument("--b-args", default="")
    ap.add_argument("--quick", action="store_true", help="default variant and check images only")
    ap.add_argument("--sims", default=",".join(SIMS))
    ap.add_argument("--keep", action="store_true",
                    help="keep the check images of identical runs (a full run writes about 6 GB)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    out = subprocess.run([args.a, "extract", "-dp"], stdout=subprocess.PIPE, text=True, check=True).stdout
    # Every parameter but the flag-map and ASSOC columns (they need FLAG_IMAGE files and an
    # ASSOC list, not given here) and DURATION_ANALYSIS (a clock reading, different every run).
    # Vectors of three; the VIGNET columns are two-dimensional.
    # VIGNET, VIGNET_DGEOX/Y: 5x5; VIGNET_SHIFT: 7x5.
    def sized(name):
        if name == "VIGNET_SHIFT(n)":
            return "VIGNET_SHIFT(7,5)"
        if name.startswith("VIGNET") and name.endswith("(n)"):
            return name.replace("(n)", "(5,5)")
        return name.replace("(n)", "(3)")
    all_names = [sized(line[1:].split()[0]) for line in out.splitlines()]
    all_names = [n for n in all_names if not n.startswith(("IMAFLAGS_ISO", "NIMAFLAGS_ISO",
                                                            "VECTOR_ASSOC", "NUMBER_ASSOC",
                                                            "DURATION_ANALYSIS"))]
    # CLASS_STAR's network: Debian's, or the one the device's carried packages unpack
    # (scripts/device-env.sh); without one the column is left out, as said here.
    nnw = next((p for p in ["/usr/share/source-extractor/default.nnw",
                            "/tmp/celeris-deps/usr/share/source-extractor/default.nnw"]
                if os.path.exists(p)), None)
    if nnw:
        args.a_args += " -STARNNW_NAME " + shlex.quote(nnw)
        args.b_args += " -STARNNW_NAME " + shlex.quote(nnw)
    else:
        print("no default.nnw found: CLASS_STAR left out", flush=True)
        all_names = [n for n in all_names if n != "CLASS_STAR"]
    frames = []
    for name in [s for s in args.sims.split(",") if s]:
        path = os.path.join(args.work, f"sim_{name}.fits")
        if not os.path.exists(path):
            subprocess.run([args.a, "simulate", "image", "-o", path] + SIMS[name], check=True,
                           stdout=subprocess.DEVNULL)
        frames.append(path)
    frames += sorted(glob.glob(os.path.join(args.images, "*.fits")))
    variants = {"default": []} if args.quick else VARIANTS
    bad = 0
    total = 0
    for frame in frames:
        stem = os.path.splitext(os.path.basename(frame))[0]
        # With A's arguments (CLASS_STAR's network among them): a run failing for another reason
        # would strip nothing.
        params = frame_params(args.a, frame, all_names, os.path.join(args.work, f"{stem}.param"),
                              shlex.split(args.a_args))
        for vname, vargs in variants.items():
            outs = {}
            for side, binary, extra in (("a", args.a, args.a_args), ("b", args.b, args.b_args)):
                d = os.path.join(args.work, side, stem, vname)
                os.makedirs(d, exist_ok=True)
                cat = os.path.join(d, "cat.txt")
                cmd = [binary, "extract", frame, "-PARAMETERS_NAME", params, "-CATALOG_TYPE",
                       "ASCII_HEAD", "-CATALOG_NAME", cat, "-PHOT_APERTURES", "5,10,20",
                       "-PHOT_FLUXFRAC", "0.2,0.5,0.9"] + vargs + shlex.split(extra)
                files = [cat]
                if vname == "default":
                    names = [os.path.join(d, c.replace("-", "minus_").lower() + ".fits") for c in CHECKS]
                    cmd += ["-CHECKIMAGE_TYPE", ",".join(CHECKS), "-CHECKIMAGE_NAME", ",".join(names)]
                    files += names
                rc = run(cmd, os.path.join(d, "log.txt"))
                outs[side] = (rc, files)
            total += 1
            (ra, fa), (rb, fb) = outs["a"], outs["b"]
            diffs = [] if ra == rb else [f"exit {ra} vs {rb}"]
            if ra != 0 and ra == rb:  # both failing is no comparison
                diffs.append(f"both exit {ra}")
            if ra == 0 and rb == 0:
                for x, y in zip(fa, fb):
                    if not filecmp.cmp(x, y, shallow=False):
                        diffs.append(os.path.basename(x))
            if not diffs and not args.keep:  # the check images; the catalogs and logs stay
                for f in fa[1:] + fb[1:]:
                    if os.path.exists(f):
                        os.remove(f)
            status = "identical" if not diffs else "DIFFER: " + ", ".join(diffs)
            print(f"{stem:24s} {vname:16s} {status}", flush=True)
            bad += bool(diffs)
    print(f"{total - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
