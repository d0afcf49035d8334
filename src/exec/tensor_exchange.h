// How a placed run that spans processes moves tensors between them (Executor::run_share): a
// transport-neutral interface, implemented over c10d/Gloo by dist/process_exchange.h. Torch-free.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace devplace {

// A tensor on the wire: its ATen scalar type (the same LibTorch on both ends), dims and bytes.
struct TensorMessage {
  std::int64_t dtype = 0;
  std::vector<std::int64_t> shape;
  // The bytes are in channels-last order (a 4-D tensor the sender held that way): the receiver
  // keeps the layout, so that its ops compute the same bits as in one process.
  bool channels_last = false;
  std::vector<std::uint8_t> bytes;
};

class TensorExchange {
 public:
  virtual ~TensorExchange() = default;
  // Sends graph tensor `tensor` to process `rank` without waiting for it to be received. The
  // tensors sent to one process arrive there in the order they were sent.
  virtual void send(int rank, int tensor, TensorMessage message) = 0;
  // Receives the next tensor `rank` sent here: {graph tensor id, message} (bounded wait; throws
  // Error naming the rank). Receiving in the sender's order means a tensor that is ready is
  // never held up behind one that is not, and two processes never wait on each other in a
  // cycle. Calls for different ranks may run on different threads at once.
  virtual std::pair<int, TensorMessage> recv_next(int rank) = 0;
  // Waits until every send has been received.
  virtual void flush() = 0;
};

}  // namespace devplace
