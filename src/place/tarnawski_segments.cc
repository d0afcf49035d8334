#include "place/tarnawski_segments.h"

#include <algorithm>

#include "place/tarnawski_placers.h"

namespace devplace {

SegmentScan::SegmentScan(const Problem& p, std::vector<std::vector<int>> unit_ops)
    : p_(p), unit_ops_(std::move(unit_ops)), acc_(tarnawski_accelerators(p)) {
  const Graph& g = p.graph();
  const int U = size(), T = g.num_tensors();
  unit_of_.assign(p.num_ops(), -1);
  for (int u = 0; u < U; ++u)
    for (int v : unit_ops_[u]) unit_of_[v] = u;
  last_unit_.assign(T, -1);
  closes_.assign(U, {});
  for (int t = 0; t < T; ++t) {
    const Tensor& tt = g.tensor(t);
    if (tt.producer < 0 || p.tensor_resident(t) || tt.is_constant) continue;
    for (int c : tt.consumers) last_unit_[t] = std::max(last_unit_[t], unit_of_[c]);
    if (last_unit_[t] >= 0) closes_[last_unit_[t]].push_back(t);
  }
  const std::size_t K = acc_.size();
  work_.resize(K);
  recv_.resize(K);
  send_.resize(K);
  lp_.assign(p.num_ops(), 0);
  stamp_.assign(T, -1);
  start(0);
}

void SegmentScan::start(int i) {
  begin_ = end_ = i;
  ++epoch_;
  bytes_ = 0;
  cpu_ = 0;
  std::fill(work_.begin(), work_.end(), 0.0);
  std::fill(recv_.begin(), recv_.end(), 0.0);
  std::fill(send_.begin(), send_.end(), 0.0);
}

void SegmentScan::extend() {
  const Graph& g = p_.graph();
  const int host = p_.host(), l = end_++, i = begin_;
  const int K = static_cast<int>(acc_.size());
  auto is_input = [&](int t) { return !p_.tensor_resident(t) && !g.tensor(t).is_constant; };
  for (int v : unit_ops_[l]) {
    bytes_ += p_.weight_bytes(v);
    for (int a = 0; a < K; ++a) work_[a] += p_.op_time(v, acc_[a]);
    double start = 0;
    for (int q : g.preds(v))
      if (unit_of_[q] >= i) start = std::max(start, lp_[q]);
    lp_[v] = start + p_.op_time(v, host);
    cpu_ = std::max(cpu_, lp_[v]);
    for (int t : g.op(v).inputs) {
      if (!is_input(t) || stamp_[t] == epoch_) continue;
      const int pr = g.tensor(t).producer;
      if (pr >= 0 && unit_of_[pr] >= i) continue;
      stamp_[t] = epoch_;
      for (int a = 0; a < K; ++a) recv_[a] += p_.transfer_time(t, host, acc_[a]);
    }
    for (int t : g.op(v).outputs)
      if (is_input(t) && last_unit_[t] > l)
        for (int a = 0; a < K; ++a) send_[a] += p_.transfer_time(t, acc_[a], host);
  }
  for (int t : closes_[l]) {  // produced earlier in the run, now read only inside it
    const int pu = unit_of_[g.tensor(t).producer];
    if (pu >= i && pu < l)
      for (int a = 0; a < K; ++a) send_[a] -= p_.transfer_time(t, acc_[a], host);
  }
}

namespace {
bool can_hold(const Problem& p, int d, std::int64_t bytes) {
  const std::int64_t cap = p.cluster().devices[d].memory_bytes;
  return cap <= 0 || bytes <= cap;
}
}  // namespace

double SegmentScan::accel_after(double base, int k) const {
  if (!can_hold(p_, acc_[k], bytes_) || !(work_[k] < kInfeasibleTime)) return kInfeasibleTime;
  return base + recv_[k] + work_[k] + std::max(0.0, send_[k]);
}

bool SegmentScan::fits(int k) const { return can_hold(p_, acc_[k], bytes_); }

std::vector<double> SegmentScan::host_suffix() const {
  const Graph& g = p_.graph();
  const int U = size(), host = p_.host();
  std::vector<double> tail(p_.num_ops(), 0), out(U + 1, 0);
  for (int i = U - 1; i >= 0; --i) {
    double longest = out[i + 1];
    // A unit's successors lie in it or after it; within it, later in op (topological) order.
    for (auto it = unit_ops_[i].rbegin(); it != unit_ops_[i].rend(); ++it) {
      const int v = *it;
      double after = 0;
      for (int s : g.succs(v))
        if (unit_of_[s] >= i) after = std::max(after, tail[s]);
      tail[v] = p_.op_time(v, host) + after;
      longest = std::max(longest, tail[v]);
    }
    out[i] = longest;
  }
  return out;
}

SegmentCostToGo segment_cost_to_go(SegmentScan& scan) {
  const int U = scan.size(), K = static_cast<int>(scan.acc().size());
  SegmentCostToGo out;
  out.units = U, out.accelerators = K;
  const double inf = kInfeasibleTime;
  out.rest.assign(static_cast<std::size_t>(U + 1) * (K + 1), inf);
  out.host_first.assign(static_cast<std::size_t>(U) * (K + 1), inf);
  const bool per_accel = static_cast<std::size_t>(U) * K * K <= SegmentCostToGo::kMaxAccelFirst;
  out.per_accel = per_accel;
  if (per_accel) out.accel_first.assign(static_cast<std::size_t>(U) * K * K, inf);
  auto G = [&](int i, int k) -> double& { return out.rest[static_cast<std::size_t>(i) * (K + 1) + k]; };
  auto H = [&](int i, int k) -> double& { return out.host_first[static_cast<std::size_t>(i) * (K + 1) + k]; };
  auto A = [&](int i, int k, int a) -> double& {
    return out.accel_first[(static_cast<std::size_t>(i) * K + k) * K + a];
  };
  for (int k = 0; k <= K; ++k) G(U, k) = 0;
  // With every accelerator used, the rest is one host run (closed form; scanning for it would
  // keep every scan going to the end).
  const std::vector<double> host_rest = scan.host_suffix();
  for (int i = 0; i < U; ++i) G(i, K) = H(i, K) = host_rest[i];
  std::vector<double> accel_worst(K), run(K);
  for (int i = U - 1; i >= 0 && K > 0; --i) {
    scan.start(i);
    while (scan.end() < U) {
      scan.extend();
      const int next = scan.end();
      const double cpu = scan.cpu();
      for (int a = 0; a < K; ++a) run[a] = scan.accel(a);
      double host_worst = 0;
      std::fill(accel_worst.begin(), accel_worst.end(), 0.0);
      for (int k = 0; k < K; ++k) {
        if (cpu < inf && G(next, k) < inf) H(i, k) = std::min(H(i, k), cpu + G(next, k));
        host_worst = std::max(host_worst, H(i, k));
        if (per_accel) {
          const double after = G(next, k + 1);
          for (int a = 0; a < K; ++a) {
            if (run[a] < inf && after < inf) A(i, k, a) = std::min(A(i, k, a), run[a] + after);
            accel_worst[a] = std::max(accel_worst[a], A(i, k, a));
          }
        } else {  // the next accelerator in cluster order
          if (run[k] < inf && G(next, k + 1) < inf) G(i, k) = std::min(G(i, k), run[k] + G(next, k + 1));
          for (int a = 0; a < K; ++a) accel_worst[a] = std::max(accel_worst[a], G(i, k));
        }
      }
      // Every entry is at least its run's cost so far, which only grows (cpu(), accel_floor()):
      // once no run from i can lower any entry of row i, longer runs cannot either.
      bool live = cpu < host_worst;
      for (int a = 0; a < K && !live; ++a) live = scan.fits(a) && scan.accel_floor(a) < accel_worst[a];
      if (!live) break;
    }
    for (int k = 0; k < K; ++k) {
      G(i, k) = std::min(G(i, k), H(i, k));
      if (per_accel) G(i, k) = std::min(G(i, k), A(i, k, k));
    }
  }
  return out;
}

}  // namespace devplace
