#!/usr/bin/env bash
# On the GPU machine, after build-gpu/ is built (scripts/device-build.sh celeris_cli
# bench_stream): a stream of frames through `celeris extract` (run_frames.cpp) with the GPU
# front end and with the CPU path, against the same frames extracted one process each, all in
# one call; every stream catalog compared with its one-frame catalog (cmp). Each stream's
# threads' steps (-VERBOSE_TYPE FULL: read, reader waits, front, back, write) are printed; then,
# on the sparse frames, bench_stream times the stream's shapes (readers / frames read ahead /
# back workers; SHAPES, default below) with the GPU front end. Prints everything.
#   bash bench/extract/run_stream_bench.sh [N_CROWDED] [N_SPARSE]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=build-gpu/bin/celeris
work=/tmp/streambench
rm -rf "$work" && mkdir -p "$work/crowded" "$work/sparse"
ncrowded=${1:-6}
nsparse=${2:-16}
for i in $(seq 1 "$ncrowded"); do
  $bin simulate image --size 4096 --density crowded --seed $((100 + i)) -o "$work/crowded/c$i.fits" >/dev/null &
done
for i in $(seq 1 "$nsparse"); do
  $bin simulate image --size 4096 --seed $((200 + i)) -o "$work/sparse/s$i.fits" >/dev/null &
done
wait
rm -f "$work"/*/*.truth.fits
# The frames written back to disk before the timed runs (a writeback under them takes cores).
sync
for set in sparse crowded; do
  n=$(ls "$work/$set"/*.fits 2>/dev/null | wc -l)
  [ "$n" -gt 0 ] || continue  # N_CROWDED or N_SPARSE 0: that set skipped
  for dev in cuda cpu; do
    mkdir -p "$work/$set/$dev" "$work/$set/one_$dev"
    # Page cache warm for every run.
    cat "$work/$set"/*.fits >/dev/null
    s=$(date +%s.%N)
    $bin extract "$work/$set"/*.fits -CATALOG_NAME "$work/$set/$dev/{stem}.cat" --device $dev \
      --progress none -VERBOSE_TYPE FULL 2>"$work/$set/$dev.log"
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" -v n="$n" -v what="$set 4096^2 x $n, stream, --device $dev" \
      'BEGIN { printf "%s: %.2f s (%.2f frames/s)\n", what, e - s, n / (e - s) }'
    # The summary and the threads' steps (up to the stages' list).
    sed -n '/^celeris extract:/,/^  stages/p' "$work/$set/$dev.log" | grep -v '^  stages'
    s=$(date +%s.%N)
    for f in "$work/$set"/*.fits; do
      b=$(basename "$f" .fits)
      $bin extract "$f" -CATALOG_NAME "$work/$set/one_$dev/$b.cat" --device $dev -VERBOSE_TYPE QUIET
    done
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" -v n="$n" -v what="$set 4096^2 x $n, one process per frame, --device $dev" \
      'BEGIN { printf "%s: %.2f s (%.2f frames/s)\n", what, e - s, n / (e - s) }'
    same=0
    for f in "$work/$set/one_$dev"/*.cat; do
      cmp -s "$f" "$work/$set/$dev/$(basename "$f")" && same=$((same + 1))
    done
    echo "  stream catalogs identical to one-frame catalogs: $same of $n"
  done
  same=0
  for f in "$work/$set/cpu"/*.cat; do cmp -s "$f" "$work/$set/cuda/$(basename "$f")" && same=$((same + 1)); done
  echo "  cuda stream catalogs identical to cpu stream catalogs: $same of $n"
  if [ "$set" = sparse ] && [ -x build-gpu/bin/bench_stream ]; then
    cat "$work/$set"/*.fits >/dev/null
    build-gpu/bin/bench_stream "$work/$set"/*.fits --device cuda --repeat 2 \
      --shapes "${SHAPES:-0/0/0,1/3/0,2/4/0,4/6/0,8/10/0,8/10/2}"
  fi
  if command -v source-extractor >/dev/null; then
    # The files celeris builds in: the same catalog columns and filter (run from $work/se).
    mkdir -p "$work/$set/se"
    printf '%s\n' NUMBER X_IMAGE Y_IMAGE ALPHA_J2000 DELTA_J2000 FLUX_ISO FLUXERR_ISO FLUX_AUTO \
      FLUXERR_AUTO MAG_AUTO MAGERR_AUTO 'FLUX_APER(1)' 'FLUXERR_APER(1)' KRON_RADIUS A_IMAGE \
      B_IMAGE THETA_IMAGE FWHM_IMAGE FLUX_RADIUS BACKGROUND FLAGS >"$work/$set/se/default.param"
    printf 'CONV NORM\n1 2 1\n2 4 2\n1 2 1\n' >"$work/$set/se/default.conv"
    s=$(date +%s.%N)
    for f in "$work/$set"/*.fits; do
      (cd "$work/$set/se" && source-extractor "$f" -CATALOG_NAME "$(basename "$f" .fits).cat" \
        -VERBOSE_TYPE QUIET)
    done
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" -v n="$n" -v what="$set 4096^2 x $n, source-extractor one process per frame" \
      'BEGIN { printf "%s: %.2f s (%.2f frames/s)\n", what, e - s, n / (e - s) }'
    same=0
    for f in "$work/$set/se"/*.cat; do cmp -s "$f" "$work/$set/cpu/$(basename "$f")" && same=$((same + 1)); done
    echo "  source-extractor catalogs identical to celeris's: $same of $n"
  else
    echo "  (source-extractor not found)"
  fi
done
