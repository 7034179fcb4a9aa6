#!/usr/bin/env bash
# Downloads (here, where apt works) the Debian packages the GPU machine lacks, into .debs/
# (git-ignored), to be carried to it: see scripts/device.sh. libcurl is deliberately not carried.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .debs
cd .debs
pkgs=(libcfitsio10 libcfitsio-dev libwcs7 wcslib-dev libcli11-dev libgtest-dev
      source-extractor libatlas3-base libfftw3-single3 libgfortran5 libquadmath0 libblas3 liblapack3
      pkgconf pkgconf-bin libpkgconf3 pkg-config
      libhealpix-cxx-dev libhealpix-cxx3 libsharp0 libmatio-dev libmatio11 libhdf5-103-1 libsz2 libaec0
      libexpat1 libexpat1-dev)
apt-get download "${pkgs[@]}" >/dev/null
ls -1 | wc -l
