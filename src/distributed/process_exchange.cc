#include "distributed/process_exchange.h"

#include <cstring>

#include "util/error.h"

namespace devplace {

namespace {

constexpr int kMaxDims = 8;
// tensor id, dtype, dims, bytes, channels-last flag, then the dims
constexpr std::size_t kHeaderWords = 5 + kMaxDims;
constexpr int kHeaderTag = 16, kPayloadTag = 17;

}  // namespace

void ProcessExchange::send(int rank, int tensor, TensorMessage m) {
  if (m.shape.size() > static_cast<std::size_t>(kMaxDims))
    throw Error("", "", "tensor #" + std::to_string(tensor) + " has more than 8 dims; it cannot cross processes");
  std::int64_t header[kHeaderWords] = {tensor, m.dtype, static_cast<std::int64_t>(m.shape.size()),
                                       static_cast<std::int64_t>(m.bytes.size()), m.channels_last ? 1 : 0};
  for (std::size_t k = 0; k < m.shape.size(); ++k) header[5 + k] = m.shape[k];
  std::vector<std::uint8_t> h(sizeof header);
  std::memcpy(h.data(), header, sizeof header);
  group_.send_async(rank, kHeaderTag, std::move(h));
  if (!m.bytes.empty()) group_.send_async(rank, kPayloadTag, std::move(m.bytes));
}

std::pair<int, TensorMessage> ProcessExchange::recv_next(int rank) {
  const auto h = group_.recv_tagged(rank, kHeaderTag, kHeaderWords * sizeof(std::int64_t));
  std::int64_t header[kHeaderWords];
  std::memcpy(header, h.data(), sizeof header);
  if (header[0] < 0 || header[2] < 0 || header[2] > kMaxDims || header[3] < 0)
    throw Error("rank " + std::to_string(rank), "", "malformed tensor header", ErrorKind::corrupt);
  TensorMessage m;
  m.dtype = header[1];
  m.channels_last = header[4] == 1;
  m.shape.assign(header + 5, header + 5 + header[2]);
  if (header[3] > 0) m.bytes = group_.recv_tagged(rank, kPayloadTag, static_cast<std::size_t>(header[3]));
  return {static_cast<int>(header[0]), std::move(m)};
}

}  // namespace devplace
