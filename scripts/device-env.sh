#!/usr/bin/env bash
# Source on the GPU machine: unpacks the carried Debian packages (.debs/, made here by
# scripts/fetch-device-debs.sh) into a prefix and points the build and the loader at them.
prefix=/tmp/celeris-deps
mkdir -p "$prefix"
for deb in .debs/*.deb; do dpkg -x "$deb" "$prefix"; done
lib="$prefix/usr/lib/x86_64-linux-gnu"
for pc in "$lib"/pkgconfig/*.pc; do sed -i "s#^prefix=.*#prefix=$prefix/usr#" "$pc"; done
# Debian's absolute symlinks (libfoo.so -> /usr/lib/...) must point into the prefix.
for l in "$lib"/*.so; do
  t=$(readlink "$l" || true)
  case "$t" in /*) ln -sf "$prefix$t" "$l" ;; esac
done
export PKG_CONFIG_PATH="$lib/pkgconfig:$prefix/usr/share/pkgconfig"
export LD_LIBRARY_PATH="$lib:$lib/atlas:$lib/blas:$lib/lapack:${LD_LIBRARY_PATH:-}"
export CMAKE_PREFIX_PATH="$prefix/usr"
export PATH="$prefix/usr/bin:$PATH"
export CPATH="$prefix/usr/include:${CPATH:-}"
