#!/usr/bin/env bash
# The main job on a generated sample: install, build, simulate a 2048x2048 field with known
# truth, extract it with SExtractor's defaults and print the summary and the first objects.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
mkdir -p out
build/bin/celeris simulate image --size 2048 --seed 7 --saturated 3 -o out/sample.fits
build/bin/celeris extract out/sample.fits -CATALOG_NAME out/sample.cat
echo "first objects of out/sample.cat:"
grep -v '^#' out/sample.cat | head -5
