// devplace command-line entry point; the commands live in cli/commands.cc.
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "cli/commands.h"
#include "util/blas_kernel.h"

namespace {

// Debian's OpenBLAS can pick an old generic kernel for a CPU it does not know, several times
// slower (util/blas_kernel.h). It reads OPENBLAS_CORETYPE only when it loads, so the process
// restarts itself once with the right one; an OPENBLAS_CORETYPE the user set is kept.
void restart_with_a_better_blas_kernel(char** argv) {
  if (std::getenv("DEVPLACE_BLAS_RESTARTED")) return;
  const std::string core = devplace::better_openblas_core(devplace::loaded_blas_kernel().core, devplace::this_cpu(),
                                                          std::getenv("OPENBLAS_CORETYPE"));
  if (core.empty()) return;
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  setenv("DEVPLACE_BLAS_RESTARTED", "1", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: carry on with the kernel we have
}

}  // namespace

int main(int argc, char** argv) {
  restart_with_a_better_blas_kernel(argv);
  return devplace::cli::run(argc, argv);
}
