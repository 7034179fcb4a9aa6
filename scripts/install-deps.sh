#!/usr/bin/env bash
# Installs every Debian package celeris needs to build and test (CPU build; nvcc is optional).
# Idempotent: packages already present are skipped by apt-get.
set -euo pipefail
pkgs=(
  build-essential cmake pkg-config
  libcfitsio-dev wcslib-dev libcli11-dev libgtest-dev zlib1g-dev
  source-extractor libhealpix-cxx-dev libmatio-dev stilts libstb-dev
  libopenmpi-dev openmpi-bin libexpat1-dev
  python3 python3-venv
  clang libclang-rt-14-dev clang-format
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
