// The CLI's sub-commands. Each takes the arguments after its name and returns the exit code;
// errors escape as exceptions and are printed by main() as one line.
#pragma once

#include <string>
#include <vector>

namespace celeris::cli {

using Args = std::vector<std::string>;

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args& args);
};

int run_extract(const Args& args);
int run_simulate(const Args& args);
int run_xmatch(const Args& args);  // cmd_xmatch.cpp, when present
int run_maxsub(const Args& args);  // cmd_maxsub.cpp, when present
int run_spp(const Args& args);     // cmd_spp.cpp, when present

const std::vector<Command>& commands();

}  // namespace celeris::cli
