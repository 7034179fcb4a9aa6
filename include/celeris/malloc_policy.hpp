// How the process's heap treats freed memory (glibc's malloc; elsewhere nothing changes).
#pragma once

namespace celeris {

// Keeps the heap memory a frame frees for the next frame instead of handing it back to the
// kernel: blocks up to 32 MB (glibc's largest) come from the heap rather than from mmap, and the
// heap is not trimmed. Each frame's working storage (the objects' columns, the clean list, the
// catalog) is then faulted in once per process, not once per frame: on the H200's host, a
// virtual machine where a page fault costs a trap to the hypervisor, a crowded 4096^2 frame took
// 800-6,400 minor faults without it and 500-900 with it (stop 36). Process-wide, so the
// command-line tool and the benchmarks call it; a program embedding the library decides for itself.
// Left alone where the environment already sets malloc's thresholds (GLIBC_TUNABLES or
// MALLOC_*_THRESHOLD_). Returns whether it changed them.
bool keep_freed_heap_memory();

}  // namespace celeris
