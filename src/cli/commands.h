// The devplace command line: subcommands, their options and the one-line error contract
// (bad input prints "devplace: error: <file>: node '<x>': <reason>" and exits with 1).
#pragma once

namespace devplace::cli {

// Parses argv, runs the subcommand, returns the process exit status.
int run(int argc, char** argv);

}  // namespace devplace::cli
