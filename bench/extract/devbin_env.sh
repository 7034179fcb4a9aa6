# Sourced from the repository root by the device scripts that run scripts/device-bundle.sh's
# binaries (carry .devbin): $out (the call's $OUT, else /tmp/out), the carried libraries
# (scripts/device-libs.sh), bin=.devbin, and the machine's GPU and core count at the log's head.
out=${OUT:-/tmp/out}
mkdir -p "$out"
source scripts/device-libs.sh
bin=.devbin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
