#include "cost/cost_model.h"

#include <algorithm>

#include "graph/op_costs.h"
#include "util/error.h"

namespace devplace {

double roofline_time(const Op& op, const Device& d) {
  if (!d.supports(op.type)) return kInfeasibleTime;
  const OpClass cls = classify(op.type);
  if (cls == OpClass::free) return 0;
  double eff = d.default_efficiency;
  // An exact op type beats its class, so a file can tune one kernel without touching others.
  if (auto it = d.efficiency.find(op.type); it != d.efficiency.end())
    eff = it->second;
  else if (auto ic = d.efficiency.find(op_class_name(cls)); ic != d.efficiency.end())
    eff = ic->second;
  const double compute = op.flops / (d.peak_flops * eff);
  const double memory = static_cast<double>(op.bytes_accessed) / d.mem_bandwidth;
  return d.launch_overhead + std::max(compute, memory);
}

Problem::Problem(const Graph& graph, Cluster cluster, const CostTable* overrides)
    : graph_(&graph),
      cluster_(std::move(cluster)),
      num_ops_(graph.num_ops()),
      num_devices_(cluster_.num_devices()),
      host_(cluster_.first_of_kind("cpu")) {
  if (!graph.finalized()) throw Error(graph.source(), "", "graph must be finalized before costing");
  const int n = num_ops_, D = num_devices_;
  op_time_.resize(static_cast<std::size_t>(n) * D);
  weight_bytes_.resize(n);
  for (int i = 0; i < n; ++i) {
    const Op& op = graph.op(i);
    weight_bytes_[i] = op.weight_bytes;
    const std::map<std::string, double>* row = nullptr;
    if (overrides) {
      auto it = overrides->op_time.find(op.name);
      if (it != overrides->op_time.end()) row = &it->second;
    }
    const bool folded = is_folded(graph, op);
    for (int d = 0; d < D; ++d) {
      double t;
      if (folded) {
        t = 0;  // computed once at load time, not per inference
      } else if (row) {
        // A table row is complete: a device it leaves out cannot run the op.
        auto it = row->find(cluster_.devices[d].name);
        t = it == row->end() ? kInfeasibleTime : it->second;
      } else {
        t = roofline_time(op, cluster_.devices[d]);
      }
      op_time_[static_cast<std::size_t>(i) * D + d] = t;
    }
  }
  const int T = graph.num_tensors();
  tensor_bytes_.resize(T);
  fixed_transfer_.assign(T, -1.0);
  resident_.assign(T, 0);
  for (int t = 0; t < T; ++t) {
    const Tensor& ts = graph.tensor(t);
    tensor_bytes_[t] = ts.bytes();
    if (ts.producer >= 0 && is_folded(graph, graph.op(ts.producer))) resident_[t] = 1;
    // The weights a folded op holds go where a kernel reads them (see tensor_resident). With
    // several readers on different devices the runtime keeps a copy on each; only the first
    // reader is charged, which undercounts shared weights (tied embeddings) slightly.
    if (resident_[t] && weight_bytes_[ts.producer] > 0)
      for (int c : ts.consumers)
        if (!is_folded(graph, graph.op(c))) {
          weight_bytes_[c] += weight_bytes_[ts.producer];
          weight_bytes_[ts.producer] = 0;
          break;
        }
    if (overrides) {
      auto it = overrides->transfer_time.find(ts.name);
      if (it != overrides->transfer_time.end()) fixed_transfer_[t] = it->second;
    }
  }
  link_latency_.assign(static_cast<std::size_t>(D) * D, 0);
  link_inv_bw_.assign(static_cast<std::size_t>(D) * D, 0);
  hops_.assign(static_cast<std::size_t>(D) * D, 0);
  for (int s = 0; s < D; ++s)
    for (int d = 0; d < D; ++d) {
      if (s == d) continue;
      const Link& l = cluster_.link(s, d);
      link_latency_[s * D + d] = l.latency;
      link_inv_bw_[s * D + d] = 1.0 / l.bandwidth;
      // Table transfer costs are per host crossing; device-to-device goes through the host.
      hops_[s * D + d] = (s == host_ || d == host_) ? 1.0 : 2.0;
    }
}

}  // namespace devplace
