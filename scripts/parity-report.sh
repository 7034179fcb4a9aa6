#!/usr/bin/env bash
# The extraction issue's acceptance matrix: every real image in ../shared/data/images and the
# simulated fields, source-extractor vs celeris with SExtractor's defaults (tests/extract/parity.py).
# Prints one line per case (PASS/FAIL with recall, precision, flux and flag agreement).
set -u
cd "$(dirname "$0")/.."
py=build/venv/bin/python
[ -x "$py" ] || py=python3
work=$(mktemp -d)
for img in ../shared/data/images/*.fits sim:sparse sim:crowded sim:nan sim:saturated sim:border sim:strips; do
  "$py" tests/extract/parity.py build/bin/celeris "$img" "$work/$(basename "$img")" 2>/dev/null | grep -E "PASS|FAIL|skipped"
done
rm -rf "$work"
