# Sourced by the scripts that run scripts/device-bundle.sh's binaries on the GPU machine: unpacks
# the Debian packages carried in .devbin/debs (the shared libraries a bare device lacks) and
# points LD_LIBRARY_PATH at them and at the machine's CUDA runtime (the binaries' runpath is
# this machine's CUDA, which may lie elsewhere there), and PATH at its CUDA tools (ncu).
prefix=/tmp/celeris-deps
mkdir -p "$prefix"
for deb in .devbin/debs/*.deb; do dpkg -x "$deb" "$prefix"; done
export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
export PATH="$PATH:/usr/local/cuda/bin"
