#!/usr/bin/env bash
# The simulators (src/sim/) give the same bytes for the same seeds: outputs pinned by their SHA-256
# as first recorded when the three simulators were gathered into one module (issue 16). A change
# here means every simulated test input changes: update the hashes only on purpose.
# Usage: simulate_bytes.sh CELERIS_BIN
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$bin" simulate image -o i1.fits --size 300 --seed 3 >/dev/null
"$bin" simulate catalog -o c1.fits --rows 20000 --seed 5 >/dev/null
"$bin" simulate catalog -o c2.csv --rows 5000 --seed 9 --dec-min -10 --dec-max 20 \
  --matches-per-row 4 >/dev/null
"$bin" simulate cube -o k1.hdr --lines 40 --samples 30 --bands 50 --seed 4 \
  --truth k1_truth.hdr >/dev/null
sha256sum -c --quiet <<'SUMS'
02b91e36e6959711040eac4d9fed88e52c0ae793159653eb2706e1f9d4820d41  i1.fits
273c7fc89fb6d3ca5b028e77d4518d421fd4cfeeec690effa73db6581b1865a6  i1.truth.fits
194f3c17211dde0653000fd6ee4f5787425e1159ec811d491a82d55a36df801f  c1.fits
cd828c4bd7bedff01666cf38018680f1d68b7b70e677d9ae342ac58d63e36a21  c2.csv
7778588cec0d8ffbe8f0924d8d0d15d8d26e2b2f238032f24b09e934c598eb7a  k1.hdr
892b94985c7e3928474f5ed684e90cb708537256a01c3fa7f2160a55f1f53b67  k1.img
165f2bb91ac6d898d19658e9eb56781d368c2f0f82e4600cbd9dacb78890d7a8  k1_truth.hdr
09af118b7d861c9a993fa3088a39ad2b5e76707cccd99a94f817c405c95cce9c  k1_truth.img
SUMS
echo "simulated outputs byte-identical"
