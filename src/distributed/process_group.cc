// The one LibTorch translation unit of dist/: c10d's TCPStore and ProcessGroupGloo.
#include "distributed/process_group.h"

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "util/error.h"

namespace devplace {

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0') throw Error("", name, std::string("not an integer: '") + v + "'");
  return static_cast<int>(x);
}

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

// c10d's messages can span lines (a stack of contexts); one line is what the user reads.
std::string first_line(const char* what) {
  std::string msg = what;
  if (const auto nl = msg.find('\n'); nl != std::string::npos) msg.resize(nl);
  return msg;
}

// c10d sends tensors: the bytes as one, copied so the caller's buffer may go.
at::Tensor byte_tensor(const std::vector<std::uint8_t>& bytes) {
  at::Tensor t = torch::empty({static_cast<std::int64_t>(bytes.size())}, torch::kUInt8);
  if (!bytes.empty()) std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
  return t;
}

}  // namespace

Rendezvous Rendezvous::from_env() {
  Rendezvous r;
  if (const char* a = std::getenv("MASTER_ADDR"); a && *a) r.master_addr = a;
  r.master_port = env_int("MASTER_PORT", r.master_port);
  r.rank = env_int("RANK", r.rank);
  r.world_size = env_int("WORLD_SIZE", r.world_size);
  return r;
}

void Rendezvous::check() const {
  if (world_size < 1) throw Error("", "", "world size must be at least 1, got " + std::to_string(world_size));
  if (rank < 0 || rank >= world_size)
    throw Error("", "", "rank " + std::to_string(rank) + " is outside [0, " + std::to_string(world_size) + ")");
  if (master_port < 1 || master_port > 65535) throw Error("", "", "bad master port " + std::to_string(master_port));
  if (!(timeout_s > 0)) throw Error("", "", "the timeout must be positive");
}

struct ProcessGroup::Impl {
  Rendezvous rv;
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  struct Pending {
    int peer;
    at::Tensor data;  // kept alive until the send completes
    c10::intrusive_ptr<c10d::Work> work;
  };
  std::vector<Pending> pending;

  std::string where() const { return rv.master_addr + ":" + std::to_string(rv.master_port); }

  // Receives exactly `count` bytes from `peer` under `tag`.
  std::vector<std::uint8_t> receive(int peer, int tag, std::size_t count) {
    std::vector<at::Tensor> t = {torch::empty({static_cast<std::int64_t>(count)}, torch::kUInt8)};
    finish(group->recv(t, peer, tag), peer, "receive");
    const auto* p = t[0].data_ptr<std::uint8_t>();
    return std::vector<std::uint8_t>(p, p + count);
  }

  // Waits for `work`; a failure or a timeout becomes an Error naming the peer.
  void finish(const c10::intrusive_ptr<c10d::Work>& work, int peer, const char* what) {
    try {
      if (!work->wait(millis(rv.timeout_s))) throw PeerLost(peer, std::string(what) + " did not complete");
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw lost(peer, what, e);
    }
  }

  PeerLost lost(int peer, const char* what, const std::exception& e) const {
    return PeerLost(peer, std::string(what) + " failed within " + std::to_string(static_cast<int>(rv.timeout_s)) +
                              " s (the process died, hung or lost its connection): " + first_line(e.what()));
  }

  // post_words / wait_any_words: Gloo has no wait-for-any (and a receive's completion shows only
  // in wait()), so each posted receive is waited for by a thread of its own, bounded by the
  // timeout, which queues the answer or the failure.
  struct Answer {
    int peer;
    std::vector<std::int64_t> words;
    std::string failure;  // empty when the words arrived
  };
  std::mutex mutex;
  std::condition_variable arrived;
  std::deque<Answer> answers;
  std::map<int, std::thread> waiters;  // by peer, until its answer is taken

  ~Impl() {
    for (auto& [peer, t] : waiters) t.join();  // each ends within the timeout
  }
};

ProcessGroup::ProcessGroup(const Rendezvous& rv) : impl_(std::make_unique<Impl>()) {
  rv.check();
  impl_->rv = rv;
  try {
    c10d::TCPStoreOptions so;
    so.port = static_cast<std::uint16_t>(rv.master_port);
    so.isServer = rv.rank == 0;
    so.numWorkers = rv.world_size;
    so.waitWorkers = true;
    so.timeout = millis(rv.timeout_s);
    impl_->store = c10::make_intrusive<c10d::TCPStore>(rv.master_addr, so);
    auto options = c10d::ProcessGroupGloo::Options::create(millis(rv.timeout_s));
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(rv.master_addr));
    options->threads = 1;
    impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, rv.rank, rv.world_size, options);
  } catch (const std::exception& e) {
    throw Error("rank " + std::to_string(rv.rank), "",
                "could not join the process group at " + impl_->where() + " (world size " +
                    std::to_string(rv.world_size) + ") within " + std::to_string(static_cast<int>(rv.timeout_s)) +
                    " s: " + first_line(e.what()));
  }
}

ProcessGroup::~ProcessGroup() = default;

int ProcessGroup::rank() const { return impl_->rv.rank; }
int ProcessGroup::size() const { return impl_->rv.world_size; }

void ProcessGroup::send(int peer, const std::vector<std::uint8_t>& bytes) {
  std::vector<at::Tensor> t = {byte_tensor(bytes)};
  impl_->finish(impl_->group->send(t, peer, 0), peer, "send");
}

std::vector<std::uint8_t> ProcessGroup::recv(int peer, std::size_t count) { return impl_->receive(peer, 0, count); }

void ProcessGroup::send_async(int peer, int tag, std::vector<std::uint8_t> bytes) {
  if (tag < 2) throw Error("", "", "message tags 0 and 1 are reserved");
  std::vector<at::Tensor> t = {byte_tensor(bytes)};
  impl_->pending.push_back({peer, t[0], impl_->group->send(t, peer, tag)});
}

std::vector<std::uint8_t> ProcessGroup::recv_tagged(int peer, int tag, std::size_t count) {
  if (tag < 2) throw Error("", "", "message tags 0 and 1 are reserved");
  return impl_->receive(peer, tag, count);
}

void ProcessGroup::flush() {
  std::vector<Impl::Pending> pending;
  pending.swap(impl_->pending);
  for (auto& s : pending) impl_->finish(s.work, s.peer, "send");
}

void ProcessGroup::send_words(int peer, std::int64_t a, std::int64_t b, std::int64_t c) {
  std::vector<at::Tensor> t = {torch::tensor({a, b, c}, torch::kInt64)};
  impl_->finish(impl_->group->send(t, peer, 1), peer, "send");
}

std::vector<std::int64_t> ProcessGroup::recv_words(int peer) {
  std::vector<at::Tensor> t = {torch::zeros({3}, torch::kInt64)};
  impl_->finish(impl_->group->recv(t, peer, 1), peer, "receive");
  const auto* p = t[0].data_ptr<std::int64_t>();
  return {p[0], p[1], p[2]};
}

void ProcessGroup::post_words(int peer) {
  Impl& m = *impl_;
  if (m.waiters.count(peer)) throw Error("rank " + std::to_string(peer), "", "a receive is already posted");
  std::vector<at::Tensor> t = {torch::zeros({3}, torch::kInt64)};
  auto work = m.group->recv(t, peer, 1);
  m.waiters[peer] = std::thread([&m, peer, words = t[0], work] {
    Impl::Answer a{peer, {}, {}};
    try {
      m.finish(work, peer, "receive");
      const auto* w = words.data_ptr<std::int64_t>();
      a.words = {w[0], w[1], w[2]};
    } catch (const Error& e) {
      a.failure = e.reason();
    }
    std::lock_guard<std::mutex> lock(m.mutex);
    m.answers.push_back(std::move(a));
    m.arrived.notify_one();
  });
}

std::pair<int, std::vector<std::int64_t>> ProcessGroup::wait_any_words() {
  Impl& m = *impl_;
  if (m.waiters.empty()) throw Error("", "", "waiting for an answer, but no receive is posted");
  Impl::Answer a;
  {
    std::unique_lock<std::mutex> lock(m.mutex);
    m.arrived.wait(lock, [&] { return !m.answers.empty(); });
    a = std::move(m.answers.front());
    m.answers.pop_front();
  }
  m.waiters.at(a.peer).join();
  m.waiters.erase(a.peer);
  if (!a.failure.empty()) throw PeerLost(a.peer, a.failure);
  return {a.peer, std::move(a.words)};
}

}  // namespace devplace
