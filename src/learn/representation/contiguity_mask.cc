#include "learn/representation/contiguity_mask.h"

#include "util/error.h"

namespace devplace {

ContiguityMask::ContiguityMask(const Problem& p, const Coarsening& c)
    : preds_(c.preds), host_(p.host()), devices_(p.num_devices()) {
  if (devices_ > 64) throw Error(p.graph().source(), "", "feasibility mask: more than 64 devices");
  if (host_ < 0) throw Error(p.graph().source(), "", "feasibility mask: the cluster has no cpu (host) device", ErrorKind::unsupported);
  const int U = c.num_groups();
  unit_bytes_.assign(U, 0);
  runnable_.assign(U, devices_ == 64 ? ~0ULL : (1ULL << devices_) - 1);
  for (int u = 0; u < U; ++u)
    for (int op : c.members[u]) {
      unit_bytes_[u] += p.weight_bytes(op);
      for (int d = 0; d < devices_; ++d)
        if (!(p.op_time(op, d) < kInfeasibleTime)) runnable_[u] &= ~(1ULL << d);
    }
  for (int d = 0; d < devices_; ++d) capacity_.push_back(d == host_ ? 0 : p.cluster().devices[d].memory_bytes);
  reset();
}

void ContiguityMask::reset() {
  up_.assign(preds_.size(), 0);
  device_.assign(preds_.size(), -1);
  used_.assign(devices_, 0);
  reach_.assign(devices_, 0);
}

namespace {

std::uint64_t bit(int d) { return 1ULL << d; }

}  // namespace

std::uint64_t ContiguityMask::allowed(int u) const {
  std::uint64_t up = 0, on = 0;  // accelerators reaching a predecessor; predecessors' accelerators
  for (int v : preds_[u]) {
    up |= up_[v];
    if (device_[v] != host_) on |= bit(device_[v]);
  }
  std::uint64_t ok = runnable_[u];
  for (int d = 0; d < devices_; ++d) {
    if (d == host_) continue;
    const bool cycle = (up & bit(d)) || (reach_[d] & (up | on));
    const bool full = capacity_[d] > 0 && used_[d] + unit_bytes_[u] > capacity_[d];
    if (cycle || full) ok &= ~bit(d);
  }
  if (ok == 0) ok = devices_ == 64 ? ~0ULL : (1ULL << devices_) - 1;
  return ok;
}

void ContiguityMask::choose(int u, int d) {
  device_[u] = d;
  used_[d] += unit_bytes_[u];
  std::uint64_t in = 0;
  for (int v : preds_[u]) {
    in |= up_[v];
    if (device_[v] != host_) in |= bit(device_[v]);
  }
  if (d == host_) {
    up_[u] = in;
    return;
  }
  in &= ~bit(d);
  up_[u] = in;
  // Everything that reaches u (directly or through a set that reaches it) now reaches d's set
  // and all it reaches.
  const std::uint64_t gain = bit(d) | reach_[d];
  for (int b = 0; b < devices_; ++b)
    if (b != host_ && b != d && ((in & bit(b)) || (reach_[b] & in))) reach_[b] |= gain;
}

}  // namespace devplace
