#include "dist/process_exchange.h"

#include <cstring>

#include "util/error.h"

namespace devplace {

namespace {

constexpr int kMaxDims = 8;
constexpr std::size_t kHeaderWords = 3 + kMaxDims;  // dtype, dims, bytes, then the dims

int header_tag(int tensor) { return 16 + 2 * tensor; }
int payload_tag(int tensor) { return 17 + 2 * tensor; }

}  // namespace

void ProcessExchange::send(int rank, int tensor, TensorMessage m) {
  if (m.shape.size() > static_cast<std::size_t>(kMaxDims))
    throw Error("", "", "tensor #" + std::to_string(tensor) + " has more than 8 dims; it cannot cross processes");
  std::int64_t header[kHeaderWords] = {m.dtype, static_cast<std::int64_t>(m.shape.size()),
                                       static_cast<std::int64_t>(m.bytes.size())};
  for (std::size_t k = 0; k < m.shape.size(); ++k) header[3 + k] = m.shape[k];
  std::vector<std::uint8_t> h(sizeof header);
  std::memcpy(h.data(), header, sizeof header);
  group_.send_async(rank, header_tag(tensor), std::move(h));
  if (!m.bytes.empty()) group_.send_async(rank, payload_tag(tensor), std::move(m.bytes));
}

TensorMessage ProcessExchange::recv(int rank, int tensor) {
  const auto h = group_.recv_tagged(rank, header_tag(tensor), kHeaderWords * sizeof(std::int64_t));
  std::int64_t header[kHeaderWords];
  std::memcpy(header, h.data(), sizeof header);
  if (header[1] < 0 || header[1] > kMaxDims || header[2] < 0)
    throw Error("rank " + std::to_string(rank), "", "malformed tensor header for tensor #" + std::to_string(tensor));
  TensorMessage m;
  m.dtype = header[0];
  m.shape.assign(header + 3, header + 3 + header[1]);
  if (header[2] > 0) m.bytes = group_.recv_tagged(rank, payload_tag(tensor), static_cast<std::size_t>(header[2]));
  return m;
}

}  // namespace devplace
