#!/usr/bin/env bash
# Configures and builds celeris in ./build (Release; CUDA backend when nvcc is found), and makes
# a Python venv in ./build/venv with what the integration tests need.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCELERIS_CUDA="${CELERIS_CUDA:-AUTO}" \
  -DCELERIS_PYTHON="$PWD/build/venv/bin/python" >/dev/null
cmake --build build -j "$jobs"
if [ ! -x build/venv/bin/python ]; then
  python3 -m venv build/venv
fi
build/venv/bin/python -c "import numpy, astropy, scipy" 2>/dev/null ||
  build/venv/bin/pip install -q numpy astropy scipy
