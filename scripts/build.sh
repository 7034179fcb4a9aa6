#!/usr/bin/env bash
# Makes a Python venv in ./build/venv with what the integration tests need, then configures and
# builds celeris in ./build (Release; CUDA backend when nvcc is found). The venv comes first:
# its pyarrow wheel also provides the Arrow C++ / Parquet libraries that CELERIS_PARQUET (HATS
# catalog input, cmake/parquet.cmake) builds against.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -x build/venv/bin/python ]; then
  mkdir -p build
  python3 -m venv build/venv
fi
build/venv/bin/python -c "import numpy, astropy, scipy" 2>/dev/null ||
  build/venv/bin/pip install -q numpy astropy scipy
# pyarrow pinned: celeris compiles against its C++ headers (the Arrow C++ API changes between
# major versions). About 20 s on a fresh venv (a 45 MB wheel).
build/venv/bin/python -c "import pyarrow; assert pyarrow.__version__ == '26.0.1'" 2>/dev/null ||
  build/venv/bin/pip install -q pyarrow==26.0.1
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCELERIS_CUDA="${CELERIS_CUDA:-AUTO}" \
  -DCELERIS_PYTHON="$PWD/build/venv/bin/python" >/dev/null
cmake --build build -j "$jobs"
