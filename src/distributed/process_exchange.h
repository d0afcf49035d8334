// Executor::run_share's TensorExchange over a process group: a tensor travels as a fixed
// header (its graph tensor id, dtype, rank, byte count, up to 8 dims) and its bytes, on one
// stream per pair of processes (two tags, in order). Torch-free.
#pragma once

#include "distributed/process_group.h"
#include "exec/tensor_exchange.h"

namespace devplace {

class ProcessExchange : public TensorExchange {
 public:
  explicit ProcessExchange(ProcessGroup& group) : group_(group) {}
  void send(int rank, int tensor, TensorMessage message) override;
  std::pair<int, TensorMessage> recv_next(int rank) override;
  void flush() override { group_.flush(); }

 private:
  ProcessGroup& group_;
};

}  // namespace devplace
