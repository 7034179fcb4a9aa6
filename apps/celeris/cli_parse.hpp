// Parsing a sub-command's arguments with CLI11, shared by the cmd_*.cpp files.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>

#include "commands.hpp"

namespace celeris::cli {

// Parses `args` (the words after the sub-command's name). Returns the exit code when parsing
// ended the command (--help printed: 0; a usage error printed: non-zero), nullopt to go on.
inline std::optional<int> parse_args(CLI::App& app, const Args& args) {
  std::vector<std::string> argv(args.rbegin(), args.rend());  // CLI11 takes them reversed
  try {
    app.parse(argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return std::nullopt;
}

}  // namespace celeris::cli
