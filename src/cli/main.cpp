// devplace command-line entry point; the commands live in cli/commands.cc.
#include "cli/commands.h"

int main(int argc, char** argv) { return devplace::cli::run(argc, argv); }
