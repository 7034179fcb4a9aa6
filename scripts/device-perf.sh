# Sourced on the GPU machine (after scripts/device-libs.sh) when .devbin/perf.tar.xz was carried
# (scripts/perf-bundle.sh): unpacks perf and defines perf_run, perf with its libraries. E.g.
#   perf_run record -F 1999 -o /tmp/s.data .devbin/bench_stream FRAMES... --device cuda
#   perf_run report -i /tmp/s.data --stdio --sort dso,sym | head -60
#   perf_run record -e page-faults -c 40 --call-graph dwarf,8192 ...   (who touches fresh memory)
#   perf_run stat -e 'syscalls:sys_enter_munmap,tlb:tlb_flush' ...
tar xJf .devbin/perf.tar.xz -C /tmp
perf_run() { LD_LIBRARY_PATH=/tmp/perfbundle:${LD_LIBRARY_PATH:-} /tmp/perfbundle/perf "$@"; }
