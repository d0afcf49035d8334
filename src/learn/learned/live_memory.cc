#include "learn/learned/live_memory.h"

#include <algorithm>

namespace devplace {

struct LiveMemoryBound::Relations {
  int words = 0;
  std::vector<std::uint64_t> born_by, not_dead;  // tensor * words: bit u set when it holds at op u
  std::vector<std::int64_t> bytes;               // per tensor; 0 when resident
  bool test(const std::vector<std::uint64_t>& bits, int t, int u) const {
    return (bits[static_cast<std::size_t>(t) * words + u / 64] >> (u % 64)) & 1;
  }
};

LiveMemoryBound::LiveMemoryBound(const Problem& p) : problem_(p), D_(p.num_devices()) {
  const Graph& g = p.graph();
  const int n = p.num_ops(), T = g.num_tensors();
  auto rel = std::make_shared<Relations>();
  const int W = (n + 63) / 64;
  rel->words = W;
  // Strict descendants and ancestors of every op (indices are a topological order).
  std::vector<std::uint64_t> desc(static_cast<std::size_t>(n) * W, 0), anc(static_cast<std::size_t>(n) * W, 0);
  auto row = [W](std::vector<std::uint64_t>& bits, int op) { return bits.data() + static_cast<std::size_t>(op) * W; };
  for (int u = n - 1; u >= 0; --u)
    for (int t : g.op(u).outputs)
      for (int w : g.tensor(t).consumers) {
        if (w == u) continue;
        row(desc, u)[w / 64] |= 1ULL << (w % 64);
        for (int k = 0; k < W; ++k) row(desc, u)[k] |= row(desc, w)[k];
      }
  for (int v = 0; v < n; ++v)
    for (int t : g.op(v).inputs) {
      const int u = g.tensor(t).producer;
      if (u < 0 || u == v) continue;
      row(anc, v)[u / 64] |= 1ULL << (u % 64);
      for (int k = 0; k < W; ++k) row(anc, v)[k] |= row(anc, u)[k];
    }
  rel->born_by.assign(static_cast<std::size_t>(T) * W, ~0ULL);
  rel->not_dead.assign(static_cast<std::size_t>(T) * W, ~0ULL);
  rel->bytes.assign(T, 0);
  for (int t = 0; t < T; ++t) {
    const Tensor& x = g.tensor(t);
    rel->bytes[t] = p.tensor_resident(t) ? 0 : p.tensor_bytes(t);
    // Made by the time op u starts unless u is an ancestor of its producer (a copy of it
    // arrives later still, so the same test holds for copies).
    if (x.producer >= 0)
      for (int k = 0; k < W; ++k) rel->born_by[static_cast<std::size_t>(t) * W + k] = ~row(anc, x.producer)[k];
    if (x.is_graph_output || x.consumers.empty()) continue;
    std::vector<std::uint64_t> dead(W, ~0ULL);  // ops that start after every consumer has ended
    for (int c : x.consumers)
      for (int k = 0; k < W; ++k) dead[k] &= row(desc, c)[k];
    for (int k = 0; k < W; ++k) rel->not_dead[static_cast<std::size_t>(t) * W + k] = ~dead[k];
  }
  rel_ = std::move(rel);
  weights_.assign(D_, 0);
  held_.assign(D_, {});
  events_.assign(D_, {});
  load_.assign(D_, {});
  max_load_.assign(D_, 0);
  present_.assign(static_cast<std::size_t>(T) * D_, 0);
}

bool LiveMemoryBound::alive(int t, const Event& e) const {
  return rel_->test(rel_->born_by, t, e.born_by) && rel_->test(rel_->not_dead, t, e.alive_at);
}

void LiveMemoryBound::additions(int v, int d, const std::vector<int>& device, std::vector<int>& tensors,
                                std::vector<Event>& events) const {
  const Graph& g = problem_.graph();
  tensors.clear();
  events.clear();
  events.push_back({v, v});
  for (int t : g.op(v).outputs)
    if (rel_->bytes[t] > 0 && !present_[static_cast<std::size_t>(t) * D_ + d]) tensors.push_back(t);
  for (int t : g.op(v).inputs) {
    const int u = g.tensor(t).producer;
    if (u < 0 || rel_->bytes[t] == 0 || device[u] == d || present_[static_cast<std::size_t>(t) * D_ + d]) continue;
    if (std::find(tensors.begin(), tensors.end(), t) != tensors.end()) continue;
    tensors.push_back(t);
    events.push_back({v, u});
  }
}

bool LiveMemoryBound::fits(int v, int d, const std::vector<int>& device) const {
  const std::int64_t cap = problem_.cluster().devices[d].memory_bytes;
  if (cap <= 0) return true;
  const std::int64_t room = cap - weights_[d] - problem_.weight_bytes(v);
  if (room < 0) return false;
  additions(v, d, device, scratch_tensors_, scratch_events_);
  std::int64_t added = 0;
  for (int t : scratch_tensors_) added += rel_->bytes[t];
  if (max_load_[d] + added > room)  // else no earlier allocation can pass the capacity
  for (std::size_t e = 0; e < events_[d].size(); ++e) {
    std::int64_t b = load_[d][e];
    for (int t : scratch_tensors_)
      if (alive(t, events_[d][e])) b += rel_->bytes[t];
    if (b > room) return false;
  }
  for (const Event& e : scratch_events_) {
    std::int64_t b = 0;
    for (int t : held_[d])
      if (alive(t, e)) b += rel_->bytes[t];
    for (int t : scratch_tensors_)
      if (alive(t, e)) b += rel_->bytes[t];
    if (b > room) return false;
  }
  return true;
}

void LiveMemoryBound::commit(int v, int d, const std::vector<int>& device) {
  std::vector<int> tensors;
  std::vector<Event> events;
  additions(v, d, device, tensors, events);
  weights_[d] += problem_.weight_bytes(v);
  for (std::size_t e = 0; e < events_[d].size(); ++e) {
    for (int t : tensors)
      if (alive(t, events_[d][e])) load_[d][e] += rel_->bytes[t];
    max_load_[d] = std::max(max_load_[d], load_[d][e]);
  }
  for (int t : tensors) {
    held_[d].push_back(t);
    present_[static_cast<std::size_t>(t) * D_ + d] = 1;
  }
  for (const Event& e : events) {
    std::int64_t b = 0;
    for (int t : held_[d])
      if (alive(t, e)) b += rel_->bytes[t];
    events_[d].push_back(e);
    load_[d].push_back(b);
    max_load_[d] = std::max(max_load_[d], b);
  }
}

}  // namespace devplace
