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
ls -1 ./*.deb | wc -l
# OpenMPI 4.1 for `mpirun -n N celeris xmatch` (scripts/device-mpi-env.sh unpacks these into a
# prefix of their own; device-env.sh does not see the subfolder, so device.sh's build is
# unchanged). The runtime closure of libmpi, orterun and the MCA components (ldd of every ELF file
# of libopenmpi3, openmpi-bin, libpmix2, libhwloc15), without the packages every Debian/Ubuntu base
# has (libc6, libstdc++6, libgcc-s1, zlib1g); libopenmpi-dev for mpi.h and the mpicxx wrapper data
# (not its Depends: the Fortran compilers, libevent-dev, ...). The InfiniBand/OFI/UCX libraries
# are here so that their components load quietly; the runs use shared memory only (self, vader).
# General libraries the GPU machine has itself (libudev1, libnuma1, ...) are dropped there.
# 21 packages, 6.9 MB (2026-11-24, Debian 12).
mkdir -p mpi
cd mpi
mpi_pkgs=(openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2 libmunge2 libhwloc15
          libevent-core-2.1-7 libevent-pthreads-2.1-7 libfabric1 libucx0 libpsm-infinipath1
          libpsm2-2 libibverbs1 librdmacm1 libnl-3-200 libnl-route-3-200 libnuma1 libudev1
          libuuid1 libatomic1)
apt-get download "${mpi_pkgs[@]}" >/dev/null
echo "mpi: $(ls -1 ./*.deb | wc -l) packages, $(du -ch ./*.deb | tail -1 | cut -f1)"
cd ..
# Arrow C++ 26 for CELERIS_PARQUET (HATS inputs): the GPU machine's pyarrow is not the 26.x whose
# C++ API celeris uses, and a pyarrow wheel (45 MB) would not fit the 64 MiB a device call
# carries beside the tree. Its two libraries and headers (what cmake/parquet.cmake links; they
# need only libstdc++, libm, libgcc_s and glibc 2.28) from the test venv scripts/build.sh makes,
# xz-compressed: about 16 MB. scripts/device-xmatch-mpi.sh unpacks them.
py=${CELERIS_PYTHON:-../build/venv/bin/python}  # (run from .debs/)
if ! pa=$("$py" -c "import pyarrow; assert pyarrow.__version__.startswith('26.'); print(pyarrow.get_library_dirs()[0])" 2>/dev/null); then
  # A fresh checkout has no venv yet: the packages above are what the extraction's device calls
  # need; the HATS runs (device-xmatch-mpi.sh hats) need this too.
  echo "arrow: skipped (no $py with pyarrow 26; run scripts/build.sh, then this script again)"
  exit 0
fi
tar -C "$pa" -cf - libarrow.so.2600 libparquet.so.2600 include | xz -T0 -6 >arrow-26.tar.xz
echo "arrow: $(du -h arrow-26.tar.xz | cut -f1)"
