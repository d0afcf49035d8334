#include "exec/local_gpus.h"

#include <torch/cuda.h>
#if defined(DEVPLACE_WITH_CUDA) && __has_include(<cuda_runtime_api.h>)
#define DEVPLACE_CUDA_RUNTIME 1
#include <cuda_runtime_api.h>
#endif

#include <string>

namespace devplace {

std::vector<GpuDescription> cuda_devices() {
  std::vector<GpuDescription> out;
  if (!torch::cuda::is_available()) return out;
  const int n = static_cast<int>(torch::cuda::device_count());
  for (int i = 0; i < n; ++i) {
    GpuDescription g;
    g.name = "cuda:" + std::to_string(i);
#ifdef DEVPLACE_CUDA_RUNTIME
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) == cudaSuccess) {
      g.name = p.name;
      g.memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
      int clock_khz = 0, memory_khz = 0, bus_bits = 0;
      if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, i) == cudaSuccess)
        g.peak_flops = static_cast<double>(p.multiProcessorCount) * 128 * 2 * clock_khz * 1e3;
      if (cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, i) == cudaSuccess &&
          cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, i) == cudaSuccess)
        g.mem_bandwidth = 2.0 * memory_khz * 1e3 * bus_bits / 8;
    }
#endif
    out.push_back(g);
  }
  return out;
}

Cluster local_cluster() { return machine_cluster({describe_cpu(), cuda_devices()}); }

LocalCluster local_cluster_for(const std::string& cluster_spec, bool local_by_default) {
  LocalCluster local;
  local.by_default = local_by_default;
  if (cluster_spec == "local" || (cluster_spec.empty() && local_by_default)) local.cluster = local_cluster();
  return local;
}

}  // namespace devplace
