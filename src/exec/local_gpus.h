// The CUDA devices the executor can use, for the cluster "local" (cost/local_machine.h).
#pragma once

#include <string>
#include <vector>

#include "cost/local_machine.h"
#include "io/model.h"

namespace devplace {

// Every CUDA device LibTorch sees (none where it has no CUDA), with its name, memory and, where
// the CUDA runtime's headers were reachable at build time, its FP32 peak (multiprocessors x 128
// lanes x 2 x clock) and memory bandwidth (memory clock x bus width x 2).
std::vector<GpuDescription> cuda_devices();

// This machine as a cluster: machine_cluster({describe_cpu(), cuda_devices()}).
Cluster local_cluster();

// What load_problem needs to resolve `cluster_spec` (io/model.h): this machine described when
// the spec is "local", or when it is empty and "local" is the default (`local_by_default`).
LocalCluster local_cluster_for(const std::string& cluster_spec, bool local_by_default = false);

}  // namespace devplace
