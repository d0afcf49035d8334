#include "cost/cost_model.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "cost/fusion.h"
#include "graph/op_costs.h"
#include "util/error.h"

namespace devplace {

namespace {

double efficiency(const Device& d, const std::string& type, OpClass cls) {
  // An exact op type beats its class, so a file can tune one kernel without touching others.
  if (auto it = d.efficiency.find(type); it != d.efficiency.end()) return it->second;
  if (auto ic = d.efficiency.find(op_class_name(cls)); ic != d.efficiency.end()) return ic->second;
  return d.default_efficiency;
}

}  // namespace

double roofline_time(const Op& op, const Device& d) {
  if (!d.supports(op.type)) return kInfeasibleTime;
  const OpClass cls = classify(op.type);
  if (cls == OpClass::free) return 0;
  const double compute = op.flops / (d.peak_flops * efficiency(d, op.type, cls));
  const double memory = static_cast<double>(op.bytes_accessed) / d.mem_bandwidth;
  return d.launch_overhead + std::max(compute, memory);
}

double fused_roofline_time(const Op& op, const Device& d, std::int64_t chain_input_bytes, std::int64_t output_bytes) {
  if (!d.supports(op.type)) return kInfeasibleTime;
  const OpClass cls = classify(op.type);
  const double compute = op.flops / (d.peak_flops * efficiency(d, op.type, cls));
  const auto moved = std::max<std::int64_t>(0, op.bytes_accessed - chain_input_bytes - output_bytes);
  return std::max(compute, static_cast<double>(moved) / d.mem_bandwidth);
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
  folded_.resize(n);
  for (int i = 0; i < n; ++i) {
    const Op& op = graph.op(i);
    weight_bytes_[i] = op.weight_bytes;
    const std::map<std::string, double>* row = nullptr;
    if (overrides) {
      auto it = overrides->op_time.find(op.name);
      if (it != overrides->op_time.end()) row = &it->second;
    }
    const bool folded = is_folded(graph, op);
    folded_[i] = folded;
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
  apply_fusion(overrides);
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
  measured_link_.assign(static_cast<std::size_t>(D) * D, 0);
  if (overrides)
    for (const MeasuredLink& m : overrides->links) {
      const int s = cluster_.find_device(m.from), d = cluster_.find_device(m.to);
      if (s < 0 || d < 0 || s == d)
        throw Error(overrides->file, "link " + m.from + " -> " + m.to,
                    "names no pair of devices of cluster '" + cluster_.name + "'", ErrorKind::not_found);
      link_latency_[s * D + d] = m.latency;
      link_inv_bw_[s * D + d] = 1.0 / m.bandwidth;
      measured_link_[s * D + d] = 1;
    }
  kernel_time_.assign(static_cast<std::size_t>(n) * D, 0.0);
  for (int i = 0; i < n; ++i) {
    const Op& op = graph.op(i);
    if (is_folded(graph, op) || classify(op.type) == OpClass::free) continue;
    for (int d = 0; d < D; ++d) {
      const double t = roofline_time(op, cluster_.devices[d]);
      kernel_time_[static_cast<std::size_t>(i) * D + d] =
          std::isfinite(t) ? std::max(0.0, t - cluster_.devices[d].launch_overhead) : 0.0;
    }
  }
  if (overrides && overrides->execution) set_execution(*overrides->execution, overrides->file);
}

void Problem::set_execution(const ExecutionModel& model, const std::string& file) {
  const int D = num_devices_;
  Execution e;
  e.copies = model.copies;
  e.staging_bandwidth = model.staging_bandwidth;
  e.fit_error = model.fit_error;
  const ExecutionModel defaults = default_execution_model(cluster_, model.copies);
  for (const DeviceExecution& d : model.devices)
    if (cluster_.find_device(d.device) < 0)
      throw Error(file, "execution device " + d.device, "cluster '" + cluster_.name + "' has no such device", ErrorKind::not_found);
  for (const CrossingExecution& c : model.crossings)
    if (cluster_.find_device(c.from) < 0 || cluster_.find_device(c.to) < 0)
      throw Error(file, "execution crossing " + c.from + " -> " + c.to,
                  "names no pair of devices of cluster '" + cluster_.name + "'", ErrorKind::not_found);
  for (int d = 0; d < D; ++d) {
    const std::string& name = cluster_.devices[d].name;
    const DeviceExecution* x = model.device(name);
    if (!x) x = defaults.device(name);
    e.async.push_back(x->async ? 1 : 0);
    e.dispatch.push_back(x->dispatch);
    e.wake.push_back(x->wake);
    e.op_scale.push_back(x->op_scale);
    e.kernel_min.push_back(x->kernel_min);
    e.device_scale.push_back(x->device_scale);
  }
  e.fixed.assign(static_cast<std::size_t>(D) * D, 0.0);
  e.inv_bandwidth.assign(static_cast<std::size_t>(D) * D, 0.0);
  for (int s = 0; s < D; ++s)
    for (int t = 0; t < D; ++t) {
      if (s == t) continue;
      const std::string &a = cluster_.devices[s].name, &b = cluster_.devices[t].name;
      const CrossingExecution* c = model.crossing(a, b);
      if (!c) c = defaults.crossing(a, b);
      e.fixed[s * D + t] = c->fixed;
      e.inv_bandwidth[s * D + t] = 1.0 / c->bandwidth;
    }
  e.crossing_fixed.assign(static_cast<std::size_t>(D) * D, 0.0);
  e.crossing_inv_bw.assign(static_cast<std::size_t>(D) * D, 0.0);
  for (int s = 0; s < D; ++s)
    for (int t = 0; t < D; ++t) {
      if (s == t) continue;
      // The thread that runs the copy: the producer's for a copy off an asynchronous device
      // under async copies (enqueued behind its kernel), the destination's otherwise.
      const bool inline_copy = e.copies == ExecutionModel::Copies::async && e.async[s];
      const bool staged = e.copies == ExecutionModel::Copies::async && !e.async[s] && e.async[t];
      e.crossing_fixed[s * D + t] = e.fixed[s * D + t] + e.dispatch[inline_copy ? s : t];
      e.crossing_inv_bw[s * D + t] = e.inv_bandwidth[s * D + t] + (staged ? 1.0 / e.staging_bandwidth : 0.0);
    }
  execution_ = std::move(e);
}

}  // namespace devplace

namespace devplace {

void Problem::apply_fusion(const CostTable* overrides) {
  const Graph& g = *graph_;
  const int n = num_ops_, D = num_devices_;
  std::vector<char> fusible(n);
  for (int i = 0; i < n; ++i) {
    const Op& op = g.op(i);
    fusible[i] = !is_folded(g, op) && !(overrides && overrides->op_time.count(op.name));
  }
  // Devices with the same rules share one pass.
  std::map<std::vector<std::string>, std::vector<int>> parents_by_rules;
  for (int d = 0; d < D; ++d) {
    const auto& names = cluster_.devices[d].fusion;
    if (names.empty() || parents_by_rules.count(names)) continue;
    parents_by_rules[names] =
        fusion_parents(g, parse_fusion_rules(names, cluster_.name, cluster_.devices[d].name), fusible);
  }
  if (parents_by_rules.empty()) return;
  fusion_parent_.assign(static_cast<std::size_t>(n) * D, -1);
  standalone_time_ = op_time_;
  for (int d = 0; d < D; ++d) {
    const Device& dev = cluster_.devices[d];
    if (dev.fusion.empty()) continue;
    const auto& parent = parents_by_rules.at(dev.fusion);
    for (int i = 0; i < n; ++i) {
      const int p = parent[i];
      const std::size_t k = static_cast<std::size_t>(i) * D + d;
      if (p < 0 || std::isinf(op_time_[k])) continue;
      const Op& op = g.op(i);
      std::int64_t chain = 0, out = 0;
      for (int t : op.inputs)
        if (g.tensor(t).producer == p) chain = g.tensor(t).bytes();
      for (int t : op.outputs) out += g.tensor(t).bytes();
      fusion_parent_[k] = p;
      op_time_[k] = std::min(op_time_[k], fused_roofline_time(op, dev, chain, out));
      ++fused_pairs_;
    }
  }
}

}  // namespace devplace
