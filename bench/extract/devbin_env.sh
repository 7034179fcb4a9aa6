# Sourced from the repository root by the device scripts that run scripts/device-bundle.sh's
# binaries (carry .devbin): $out (the call's $OUT, else /tmp/out), the carried libraries
# (scripts/device-libs.sh), bin=.devbin, and the machine's GPU and core count at the log's head.
out=${OUT:-/tmp/out}
mkdir -p "$out"
source scripts/device-libs.sh
bin=.devbin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
# The 4096^2 frame of a density (dense: the paper's workload, seed 7; crowded: seed 21) at
# /tmp/ab/<density>4k.fits, made once per machine; prints its path.
frame_4k() {
  local density=$1 seed=21
  [ "$density" = dense ] && seed=7
  local path=/tmp/ab/${density}4k.fits
  mkdir -p /tmp/ab
  [ -f "$path" ] || $bin/celeris simulate image --size 4096 --seed $seed --density "$density" \
    -o "$path" >/dev/null
  echo "$path"
}
