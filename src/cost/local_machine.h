// The machine devplace runs on as a cluster (`--cluster local`, `devplace cluster --local`): one
// single-thread CPU worker per core devplace may use, one device per CUDA GPU the executor
// sees, roofline figures from what the machine reports. The CPU side is read here (torch-free,
// from /proc/cpuinfo and the process's CPU affinity); the GPUs come from the executor
// (exec/local_gpus.h), which alone knows which CUDA devices LibTorch can use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost/cluster.h"

namespace devplace {

struct CpuDescription {
  std::string model = "unknown CPU";  // /proc/cpuinfo "model name"
  int cores = 1;                      // logical CPUs in this process's affinity mask
  double ghz = 2.0;                   // the highest "cpu MHz" /proc/cpuinfo reports, in GHz
  int flops_per_cycle = 8;            // FP32 per core and cycle: 64 with AVX-512, 32 with AVX2 + FMA, else 8
};

struct GpuDescription {
  std::string name;                  // e.g. "NVIDIA H200"
  std::int64_t memory_bytes = 0;     // 0: unknown (unlimited)
  double peak_flops = 0;             // FP32 FLOP/s (multiprocessors x 128 lanes x 2 x clock)
  double mem_bandwidth = 0;          // bytes/s (memory clock x bus width x 2)
};

struct MachineDescription {
  CpuDescription cpu;
  std::vector<GpuDescription> gpus;
};

// This machine's CPU as /proc/cpuinfo and the affinity mask give it (the defaults above where
// they say nothing).
CpuDescription describe_cpu();

// The cluster "local": devices cpu0..cpuN-1 (one per core, 10 GB/s and 10 us per op each, the
// efficiencies of clusters/local2.toml, no fusion: devplace's executor runs each op as its own
// kernel) and gpu0..gpuM-1 (figures as described, 5 us per launch); links between CPU workers
// 8 GB/s and 20 us (a copy through shared memory and a wake-up), to and from a GPU 25 GB/s and
// 10 us (PCIe 4.0 x16 class). Assumed figures are starting points: `devplace profile` measures.
Cluster machine_cluster(const MachineDescription& machine);

// The cluster as a TOML cluster file that load_cluster reads back (with each device's worker).
std::string cluster_toml(const Cluster& cluster, const std::string& header_comment);

}  // namespace devplace
