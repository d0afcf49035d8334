// A process group of devplace processes on one or more hosts, over c10d's Gloo backend (the
// distributed engine inside Debian's LibTorch): rendezvous through a TCPStore that rank 0 hosts,
// point-to-point byte messages between ranks, and a bound on every wait so that a dead or hung
// peer becomes an Error naming its rank instead of a hang. Torch-free header (pimpl), so the CLI
// and tests include it without LibTorch.
//
// Rendezvous follows torchrun's conventions: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE in the
// environment, each overridable by a flag (Rendezvous::from_env then the caller's overrides).
// Not thread-safe: one thread drives a group.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "util/error.h"

namespace devplace {

// A peer that died, hung or lost its connection (an Error naming its rank).
class PeerLost : public Error {
 public:
  PeerLost(int peer, const std::string& why) : Error("rank " + std::to_string(peer), "", why), peer_(peer) {}
  int peer() const { return peer_; }

 private:
  int peer_;
};

struct Rendezvous {
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  int rank = 0;
  int world_size = 1;
  double timeout_s = 30;  // rendezvous and every send/recv; a peer silent this long is an Error

  // The fields the environment sets (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE); the others
  // keep their defaults. Throws Error naming the variable for a malformed value.
  static Rendezvous from_env();
  // Throws Error when rank is outside [0, world_size), the port outside [1, 65535] or the
  // timeout not positive.
  void check() const;
};

class ProcessGroup {
 public:
  // Joins the group (rank 0 hosts the store; everyone waits for all world_size ranks). Throws
  // Error naming the address and port when the group does not form within timeout_s.
  explicit ProcessGroup(const Rendezvous& rendezvous);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const;
  int size() const;

  // Sends `bytes` to rank `peer` and waits until the transfer is done. Throws Error naming the
  // peer's rank when it fails or does not complete within the timeout.
  void send(int peer, const std::vector<std::uint8_t>& bytes);
  // Receives exactly `count` bytes from rank `peer` (sent by one send of that size).
  std::vector<std::uint8_t> recv(int peer, std::size_t count);
  // Tagged messages (tags >= 2; 0 and 1 are the untagged calls' own): a send that returns at
  // once (flush() waits for all of them), and the matching receive of exactly `count` bytes.
  void send_async(int peer, int tag, std::vector<std::uint8_t> bytes);
  std::vector<std::uint8_t> recv_tagged(int peer, int tag, std::size_t count);
  // Waits until every send_async has completed; throws Error naming the peer of one that failed.
  void flush();
  // Control words (a fixed 3 x int64 message).
  void send_words(int peer, std::int64_t a, std::int64_t b, std::int64_t c);
  std::vector<std::int64_t> recv_words(int peer);
  // Waiting on several peers at once (rank 0 of a replica pool): post_words starts receiving
  // one control-word message from `peer` (at most one posted per peer); wait_any_words returns
  // the first posted message to arrive, as {peer, words}. A posted receive that fails, or that
  // waits longer than the timeout after it was posted, throws PeerLost naming the peer (the post
  // is dropped; the others stay posted). Throws Error when nothing is posted. These two may
  // be called while other calls are idle only (one thread drives the group).
  void post_words(int peer);
  std::pair<int, std::vector<std::int64_t>> wait_any_words();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace devplace
