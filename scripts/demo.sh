#!/usr/bin/env bash
# The main job on a generated sample: install, build, simulate a 2048x2048 field with known
# truth, extract it with SExtractor's defaults and print the summary and the first objects.
#
#   bash scripts/demo.sh                       everything (what the README says)
#   bash scripts/demo.sh --run-only BIN OUTDIR  only the run part, with the celeris binary BIN,
#                                              files in OUTDIR (the demo ctest)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/bin/celeris
out=out
if [ "${1:-}" = "--run-only" ]; then
  bin=$2
  out=$3
else
  bash scripts/install-deps.sh
  bash scripts/build.sh
fi
mkdir -p "$out"
"$bin" simulate image --size 2048 --seed 7 --saturated 3 -o "$out/sample.fits"
"$bin" extract "$out/sample.fits" -CATALOG_NAME "$out/sample.cat"
echo "first objects of $out/sample.cat:"
# awk reads the whole catalog: `grep | head` would end grep with SIGPIPE once the catalog is
# longer than a pipe buffer, and under pipefail the demo would exit 141.
awk '!/^#/ && n < 5 { print; n++ }' "$out/sample.cat"
