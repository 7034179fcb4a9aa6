#!/usr/bin/env bash
# Source on the GPU machine (no apt, no OpenMPI) after device-env.sh: OpenMPI 4.1 from the Debian
# packages carried in .debs/mpi/ (scripts/fetch-device-debs.sh), unpacked into a prefix of its own
# and relocated there (OPAL_PREFIX), set up for one host: root allowed, oversubscription allowed,
# shared memory only (no ssh needed), no network or InfiniBand components.
# Kept apart from device-env.sh so that device.sh's build (CELERIS_MPI=AUTO) is unchanged.
mpi_prefix=${CELERIS_MPI_PREFIX:-/tmp/celeris-mpi}
mpi_lib="$mpi_prefix/usr/lib/x86_64-linux-gnu"
if ! ls .debs/mpi/libopenmpi3_*.deb >/dev/null 2>&1; then
  echo "device-mpi-env.sh: no .debs/mpi/*.deb: run scripts/fetch-device-debs.sh here and carry .debs" >&2
  return 1 2>/dev/null || exit 1
fi
if [ ! -x "$mpi_prefix/usr/bin/orterun" ]; then
  mkdir -p "$mpi_prefix"
  for deb in .debs/mpi/*.deb; do dpkg -x "$deb" "$mpi_prefix"; done
  # The names Debian's alternatives (not unpacked by dpkg -x) would give.
  for n in mpirun mpiexec mpicc mpicxx mpic++; do ln -sf "$n.openmpi" "$mpi_prefix/usr/bin/$n"; done
  # General libraries the machine has itself (libudev, libnuma, ...) are taken from the machine:
  # a carried copy would shadow a newer system one for every program (LD_LIBRARY_PATH). OpenMPI's
  # own libraries (and PMIx, hwloc, libevent of the versions it was built with) are always ours.
  for so in "$mpi_lib"/lib*.so.*; do
    name=$(basename "$so")
    case "$name" in
      libmpi* | libopen-* | libmca_* | liboshmem* | libompitrace* | libpmix* | libhwloc* | libevent*) continue ;;
    esac
    soname=$(echo "$name" | sed -E 's/(\.so\.[0-9]+).*/\1/')
    if ldconfig -p | grep -q "^[[:space:]]*$soname "; then rm -f "$so"; fi
  done
fi
export OPAL_PREFIX="$mpi_prefix/usr"
# PMIx does not follow OPAL_PREFIX: its plugins named where they are.
export PMIX_MCA_mca_base_component_path="$mpi_lib/pmix2/lib/pmix"
export PATH="$mpi_prefix/usr/bin:$PATH"
export LD_LIBRARY_PATH="$mpi_lib:$mpi_lib/openmpi/lib:$mpi_lib/pmix2/lib:${LD_LIBRARY_PATH:-}"
# Debian's /etc/openmpi/openmpi-mca-params.conf is not under the prefix (its sysconfdir is
# absolute); its settings, and those of a root, one-host, oversubscribed run, as variables:
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_plm=isolated               # local ranks only: no ssh/rsh agent wanted
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_mtl='^ofi,psm,psm2' OMPI_MCA_osc='^ucx,pt2pt'
export OMPI_MCA_btl_base_warn_component_unused=0
export OMPI_MCA_btl_vader_single_copy_mechanism=none  # no CMA/ptrace in the micro-VM
export OMPI_MCA_hwloc_base_binding_policy=none        # ranks share the cores (OpenMP threads)
export OMPI_MCA_mca_base_component_show_load_errors=0
