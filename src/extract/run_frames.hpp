// The shape of a stream of frames (run_frames.cpp): how many threads read, how many frames wait
// read ahead, how many are in the back stages. extract_files (extract_run.hpp) picks them from
// the host's cores; tests and benchmarks name them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "celeris/extract_run.hpp"

namespace celeris::extract {

struct StreamShape {
  // Frames in the back stages at once; 0: one per 4 cores, 1 to 4, or with --device cuda one
  // per 2 cores, 1 to 8.
  size_t back_workers = 0;
  size_t readers = 0;  // frames read at once; 0: one per 2 cores, 1 to 8
  // Frames read (or being read) and not yet through the front stages; each holds a buffer of the
  // pool (page-locked with --device cuda). 0: readers + 2, so that the readers go on while the
  // front works on one frame and the next waits.
  size_t read_ahead = 0;
  // Frames in the front stages at once. 0: three with --device cuda (two where the host has
  // fewer than 8 cores): two in the GPU front end (one frame's upload and host steps beside
  // another's kernels; gpu/front_end.cpp) and one ready for the first of them given back; one on
  // the CPU (whose front stages take every core).
  size_t fronts = 0;
};

// extract_files with the stream's shape named (0: picked from the host's cores).
FramesSummary extract_frames(const std::vector<std::string>& paths, const Settings& settings,
                             const WarningSink& warn, const FrameSink& done,
                             const StreamShape& shape);

}  // namespace celeris::extract
