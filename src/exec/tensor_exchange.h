// How a placed run that spans processes moves tensors between them (Executor::run_share): a
// transport-neutral interface, implemented over c10d/Gloo by dist/process_exchange.h. Torch-free.
#pragma once

#include <cstdint>
#include <vector>

namespace devplace {

// A tensor on the wire: its ATen scalar type (the same LibTorch on both ends), dims and bytes.
struct TensorMessage {
  std::int64_t dtype = 0;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;
};

class TensorExchange {
 public:
  virtual ~TensorExchange() = default;
  // Sends graph tensor `tensor` to process `rank` without waiting for it to be received.
  virtual void send(int rank, int tensor, TensorMessage message) = 0;
  // Receives graph tensor `tensor` from process `rank` (bounded wait; throws Error naming the rank).
  virtual TensorMessage recv(int rank, int tensor) = 0;
  // Waits until every send has been received.
  virtual void flush() = 0;
};

}  // namespace devplace
