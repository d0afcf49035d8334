#include "learn/learned/live_memory.h"

#include <algorithm>
#include <bit>

namespace devplace {

// Static relations, shared by every copy of a bound. Bit u of a tensor's row: the relation holds
// at op u; bit t of an op's row: it holds for tensor t.
struct LiveMemoryBound::Relations {
  int words = 0, tensor_words = 0;
  std::vector<std::uint64_t> alive_at_op;  // tensor rows: made by op u's start and read after it
  std::vector<std::uint64_t> made_by;      // op rows: tensor t made by the op's start (its producer no descendant)
  std::vector<std::uint64_t> read_after;   // op rows: tensor t read by an op that is no ancestor of it
  std::vector<std::int64_t> bytes;         // per tensor; 0 when resident
};

namespace {

std::uint64_t* row(std::vector<std::uint64_t>& bits, int i, int words) {
  return bits.data() + static_cast<std::size_t>(i) * words;
}
const std::uint64_t* row(const std::vector<std::uint64_t>& bits, int i, int words) {
  return bits.data() + static_cast<std::size_t>(i) * words;
}
bool test(const std::uint64_t* r, int i) { return (r[i / 64] >> (i % 64)) & 1; }
void set(std::uint64_t* r, int i) { r[i / 64] |= 1ULL << (i % 64); }

}  // namespace

LiveMemoryBound::LiveMemoryBound(const Problem& p) : problem_(p), D_(p.num_devices()) {
  const Graph& g = p.graph();
  const int n = p.num_ops(), T = g.num_tensors();
  auto rel = std::make_shared<Relations>();
  const int W = (n + 63) / 64, TW = (T + 63) / 64;
  rel->words = W, rel->tensor_words = TW;
  // Strict descendants and ancestors of every op (indices are a topological order).
  std::vector<std::uint64_t> desc(static_cast<std::size_t>(n) * W, 0), anc(static_cast<std::size_t>(n) * W, 0);
  for (int u = n - 1; u >= 0; --u)
    for (int w : g.succs(u)) {
      set(row(desc, u, W), w);
      for (int k = 0; k < W; ++k) row(desc, u, W)[k] |= row(desc, w, W)[k];
    }
  for (int v = 0; v < n; ++v)
    for (int u : g.preds(v)) {
      set(row(anc, v, W), u);
      for (int k = 0; k < W; ++k) row(anc, v, W)[k] |= row(anc, u, W)[k];
    }
  rel->bytes.assign(T, 0);
  rel->alive_at_op.assign(static_cast<std::size_t>(T) * W, 0);
  rel->made_by.assign(static_cast<std::size_t>(n) * TW, 0);
  rel->read_after.assign(static_cast<std::size_t>(n) * TW, 0);
  std::vector<std::uint64_t> made(W), read(W);
  for (int t = 0; t < T; ++t) {
    const Tensor& x = g.tensor(t);
    rel->bytes[t] = p.tensor_resident(t) ? 0 : p.tensor_bytes(t);
    if (rel->bytes[t] == 0) continue;
    // Made by the time op u starts unless u is an ancestor of its producer (a copy of it
    // arrives later still, so the same test holds for copies).
    for (int k = 0; k < W; ++k) made[k] = x.producer >= 0 ? ~row(anc, x.producer, W)[k] : ~0ULL;
    // Released by the time op u starts if every reader is an ancestor of u.
    std::fill(read.begin(), read.end(), ~0ULL);
    if (!x.is_graph_output && !x.consumers.empty()) {
      std::vector<std::uint64_t> dead(W, ~0ULL);
      for (int c : x.consumers)
        for (int k = 0; k < W; ++k) dead[k] &= row(desc, c, W)[k];
      for (int k = 0; k < W; ++k) read[k] = ~dead[k];
    }
    for (int u = 0; u < n; ++u) {
      const bool m = test(made.data(), u), r = test(read.data(), u);
      if (m) set(row(rel->made_by, u, TW), t);
      if (r) set(row(rel->read_after, u, TW), t);
      if (m && r) set(row(rel->alive_at_op, t, W), u);
    }
  }
  rel_ = std::move(rel);
  weights_.assign(D_, 0);
  max_load_.assign(D_, 0);
  ops_on_.assign(D_, std::vector<std::uint64_t>(W, 0));
  held_.assign(D_, std::vector<std::uint64_t>(TW, 0));
  copies_.assign(D_, {});
  op_load_.assign(n, 0);
}

bool LiveMemoryBound::alive(int t, int consumer, int producer) const {
  const int TW = rel_->tensor_words;
  return test(row(rel_->made_by, consumer, TW), t) && test(row(rel_->read_after, producer, TW), t);
}

std::int64_t LiveMemoryBound::alive_bytes(int d, int consumer, int producer, const std::vector<int>& extra) const {
  const int TW = rel_->tensor_words;
  const std::uint64_t *made = row(rel_->made_by, consumer, TW), *read = row(rel_->read_after, producer, TW);
  const std::uint64_t* held = held_[d].data();
  std::int64_t b = 0;
  for (int k = 0; k < TW; ++k)
    for (std::uint64_t m = made[k] & read[k] & held[k]; m; m &= m - 1) b += rel_->bytes[k * 64 + std::countr_zero(m)];
  for (int t : extra)
    if (alive(t, consumer, producer)) b += rel_->bytes[t];
  return b;
}

void LiveMemoryBound::additions(int v, int d, const std::vector<int>& device, std::vector<int>& tensors) const {
  const Graph& g = problem_.graph();
  tensors.clear();
  auto held = [&](int t) { return test(held_[d].data(), t); };
  for (int t : g.op(v).outputs)
    if (rel_->bytes[t] > 0 && !held(t)) tensors.push_back(t);
  for (int t : g.op(v).inputs) {
    const int u = g.tensor(t).producer;
    if (u < 0 || rel_->bytes[t] == 0 || device[u] == d || held(t)) continue;
    if (std::find(tensors.begin(), tensors.end(), t) == tensors.end()) tensors.push_back(t);
  }
}

bool LiveMemoryBound::fits(int v, int d, const std::vector<int>& device) const {
  const std::int64_t cap = problem_.cluster().devices[d].memory_bytes;
  if (cap <= 0) return true;
  const std::int64_t room = cap - weights_[d] - problem_.weight_bytes(v);
  if (room < 0) return false;
  additions(v, d, device, scratch_);
  const int W = rel_->words;
  // The earlier allocations, with what v adds that could be alive at them.
  std::int64_t added = 0;
  for (int t : scratch_) added += rel_->bytes[t];
  if (max_load_[d] + added > room) {
    // Each op of d at which one of v's tensors could be alive, with all of them that could.
    const std::uint64_t* on = ops_on_[d].data();
    for (int k = 0; k < W; ++k) {
      std::uint64_t any = 0;
      for (int t : scratch_) any |= row(rel_->alive_at_op, t, W)[k];
      for (std::uint64_t m = any & on[k]; m; m &= m - 1) {
        const int bit = std::countr_zero(m), u = k * 64 + bit;
        std::int64_t b = op_load_[u];
        for (int t : scratch_)
          if ((row(rel_->alive_at_op, t, W)[k] >> bit) & 1) b += rel_->bytes[t];
        if (b > room) return false;
      }
    }
    for (const Copy& c : copies_[d]) {
      std::int64_t b = c.load;
      for (int t : scratch_)
        if (alive(t, c.consumer, c.producer)) b += rel_->bytes[t];
      if (b > room) return false;
    }
  }
  // v's own allocations: its start, and each copy it needs.
  if (alive_bytes(d, v, v, scratch_) > room) return false;
  const Graph& g = problem_.graph();
  for (int t : scratch_) {
    const int u = g.tensor(t).producer;
    if (u != v && alive_bytes(d, v, u, scratch_) > room) return false;
  }
  return true;
}

void LiveMemoryBound::commit(int v, int d, const std::vector<int>& device) {
  std::vector<int> tensors;
  additions(v, d, device, tensors);
  weights_[d] += problem_.weight_bytes(v);
  const int W = rel_->words;
  for (int t : tensors) {
    const std::uint64_t *a = row(rel_->alive_at_op, t, W), *on = ops_on_[d].data();
    for (int k = 0; k < W; ++k)
      for (std::uint64_t m = a[k] & on[k]; m; m &= m - 1) {
        const int u = k * 64 + std::countr_zero(m);
        op_load_[u] += rel_->bytes[t];
        max_load_[d] = std::max(max_load_[d], op_load_[u]);
      }
    for (Copy& c : copies_[d])
      if (alive(t, c.consumer, c.producer)) {
        c.load += rel_->bytes[t];
        max_load_[d] = std::max(max_load_[d], c.load);
      }
  }
  for (int t : tensors) set(held_[d].data(), t);
  set(ops_on_[d].data(), v);
  const std::vector<int> none;
  op_load_[v] = alive_bytes(d, v, v, none);
  max_load_[d] = std::max(max_load_[d], op_load_[v]);
  const Graph& g = problem_.graph();
  for (int t : tensors) {
    const int u = g.tensor(t).producer;
    if (u == v) continue;
    copies_[d].push_back({v, u, alive_bytes(d, v, u, none)});
    max_load_[d] = std::max(max_load_[d], copies_[d].back().load);
  }
}

std::int64_t LiveMemoryBound::peak(int d) const { return weights_[d] + max_load_[d]; }

}  // namespace devplace
