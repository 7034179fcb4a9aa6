#!/usr/bin/env bash
# On the GPU machine, with the binaries of scripts/device-bundle.sh (carry .devbin): every
# kernel's device time in one GPU-path extraction of the crowded 4096^2 frame (Nsight Compute,
# gpu__time_duration; the kernels run one at a time under it, so these are times of each alone),
# summed by kernel name, largest first. Where the front end's and the back stages' GPU time goes.
#   bash bench/extract/run_kernel_times.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/extract/devbin_env.sh
work=/tmp/kt
mkdir -p $work
[ -f $work/crowded4k.fits ] ||
  $bin/celeris simulate image --size 4096 --seed 21 --density crowded -o $work/crowded4k.fits >/dev/null
# The second of two extractions (the first warms the buffers), kernels of launch 1 on only.
ncu --metrics gpu__time_duration.sum --csv --print-units base --target-processes all \
  $bin/bench_extract_stages $work/crowded4k.fits --repeat 1 --devices cuda-pinned \
  >"$out/ncu.csv" 2>"$out/ncu.err"
echo "ncu exit $?"
python3 - "$out/ncu.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]
ki, vi, ii = head.index("Kernel Name"), head.index("Metric Value"), head.index("ID")
runs = [(int(r[ii]), r[ki], float(r[vi].replace(",", ""))) for r in rows[1:] if r[vi]]
half = sorted(runs)[len(runs) // 2:]  # the second extraction's kernels (same launches twice)
tot = collections.defaultdict(lambda: [0.0, 0])
for _, k, v in half:
    tot[k.split("(")[0][:70]][0] += v
    tot[k.split("(")[0][:70]][1] += 1
print(f"{len(runs)} kernel launches, second extraction {len(half)}: {sum(v for _,_,v in half)/1e6:.3f} ms")
for k, (v, c) in sorted(tot.items(), key=lambda x: -x[1][0])[:30]:
    print(f"{v/1e6:9.3f} ms {c:5d}x  {k}")
PY
