// LibTorch's process-wide settings, scoped to one library call: the trainers want one
// intra-op thread (fastest here, and deterministic) and a seeded default generator (network
// initialisation, dropout), but a caller's own thread count and random stream must come back
// unchanged. Calls that hold a TorchScope must not run concurrently with other LibTorch work
// that draws from the default generator (documented in include/devplace/devplace.h).
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cstdint>

namespace devplace {

class TorchScope {
 public:
  explicit TorchScope(std::uint64_t seed)
      : threads_(at::get_num_threads()), generator_state_(at::detail::getDefaultCPUGenerator().get_state()) {
    if (threads_ != 1) at::set_num_threads(1);
    torch::manual_seed(seed);
  }
  ~TorchScope() {
    at::Generator generator = at::detail::getDefaultCPUGenerator();  // a handle to the default one
    generator.set_state(generator_state_);
    if (threads_ != 1) at::set_num_threads(threads_);
  }
  TorchScope(const TorchScope&) = delete;
  TorchScope& operator=(const TorchScope&) = delete;

 private:
  int threads_;
  at::Tensor generator_state_;
};

}  // namespace devplace
