#!/usr/bin/env bash
# HERE (not on the device): packs this machine's `perf` (Debian's linux-perf, installed if
# missing) with the shared libraries it loads, less the C and C++ runtimes every machine has,
# into .devbin/perf.tar.xz (about 7 MB; carry .devbin). On the GPU machine, after sourcing
# scripts/device-libs.sh, `source scripts/device-perf.sh` unpacks it and defines perf_run.
# Run it after scripts/device-bundle.sh, which empties .devbin. Stop 41 profiled the stream of
# frames this way (`perf record` works on the H200's host: perf_event_paranoid 2, own processes).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v perf >/dev/null; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get install -y -qq --no-install-recommends linux-perf >/dev/null
fi
perf_bin=$(command -v perf)
# Debian diverts /usr/bin/perf to a wrapper choosing perf_<kernel>; take the ELF itself.
if ! file -L "$perf_bin" | grep -q ELF; then perf_bin=$(ls /usr/bin/perf_* 2>/dev/null | sort | tail -1); fi
stage=$(mktemp -d)
mkdir -p "$stage/perfbundle" .devbin
cp -L "$perf_bin" "$stage/perfbundle/perf"
for lib in $(ldd "$perf_bin" | awk '$3 ~ /^\// {print $3}'); do
  case $(basename "$lib") in
    libc.so.* | libm.so.* | libstdc++.so.* | libgcc_s.so.* | libz.so.* | ld-linux*) ;;
    *) cp -L "$lib" "$stage/perfbundle/" ;;
  esac
done
tar cJf .devbin/perf.tar.xz -C "$stage" perfbundle
rm -rf "$stage"
du -h .devbin/perf.tar.xz
