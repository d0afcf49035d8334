// Executor::run_share's TensorExchange over a process group: a tensor travels as a fixed
// header (dtype, rank, byte count, up to 8 dims) and its bytes, both tagged with the graph
// tensor's id, so messages match however the two processes interleave them. Torch-free.
#pragma once

#include "dist/process_group.h"
#include "exec/tensor_exchange.h"

namespace devplace {

class ProcessExchange : public TensorExchange {
 public:
  explicit ProcessExchange(ProcessGroup& group) : group_(group) {}
  void send(int rank, int tensor, TensorMessage message) override;
  TensorMessage recv(int rank, int tensor) override;
  void flush() override { group_.flush(); }

 private:
  ProcessGroup& group_;
};

}  // namespace devplace
