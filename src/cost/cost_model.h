// CostModel: turns a Graph and a Cluster into a Problem, the immutable cost tables every placer
// and the simulator read. Op time on a device is a roofline:
//   launch_overhead + max(flops / (peak * efficiency[class]), bytes_accessed / mem_bandwidth)
// with no kernel (0 s) for `free` ops (Reshape, Const, Parameter ...) and +inf where the device
// does not support the op type. A transfer of a tensor over a link takes latency + bytes / bw.
// A CostTable, when given, overrides both for the ops and tensors it names (see cost_table.h).
// Operator fusion (cost/fusion.h): an op that joins its producer's kernel on a device pays no
// launch and does not re-read the producer's output there, as long as both are placed on it.
// Details and calibration: docs/design/cost-model.md.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cost/cluster.h"
#include "cost/cost_table.h"
#include "graph/graph.h"

namespace devplace {

constexpr double kInfeasibleTime = std::numeric_limits<double>::infinity();

class Problem {
 public:
  // REQUIRES: graph finalized; graph outlives the Problem (it is referenced, not copied).
  Problem(const Graph& graph, Cluster cluster, const CostTable* overrides = nullptr);

  const Graph& graph() const { return *graph_; }
  const Cluster& cluster() const { return cluster_; }
  int num_ops() const { return num_ops_; }
  int num_devices() const { return num_devices_; }

  // Seconds op `op` takes on device `d` (kInfeasibleTime if unsupported), fused into its fusion
  // parent's kernel where it has one there: the time it takes when its chain is kept together.
  double op_time(int op, int d) const { return op_time_[static_cast<std::size_t>(op) * num_devices_ + d]; }
  // The whole table of op_time(), row-major [num_ops x num_devices] (for zero-copy views).
  const double* op_time_data() const { return op_time_.data(); }
  // The op whose kernel `op` joins on device `d` when both run there (cost/fusion.h), or -1.
  int fusion_parent(int op, int d) const {
    return fusion_parent_.empty() ? -1 : fusion_parent_[static_cast<std::size_t>(op) * num_devices_ + d];
  }
  // Seconds `op` takes on `d` in its own kernel (its fusion parent placed elsewhere).
  double standalone_time(int op, int d) const {
    return fusion_parent(op, d) < 0 ? op_time(op, d)
                                    : standalone_time_[static_cast<std::size_t>(op) * num_devices_ + d];
  }
  // Seconds `op` takes where `placement` (one device index per op) puts it.
  template <class Placement>
  double placed_time(int op, const Placement& placement) const {
    const int d = placement[op];
    const int parent = fusion_parent(op, d);
    return parent >= 0 && placement[parent] != d ? standalone_time(op, d) : op_time(op, d);
  }
  // Number of (op, device) pairs that fuse; 0 when no device fuses.
  int fused_pairs() const { return fused_pairs_; }
  // Seconds to move tensor `t` from device `src` to `dst` (0 when src == dst, or when `t` is
  // resident: constants are on every device before the first inference). Under an execution
  // model, what the executor pays for the crossing (Execution::crossing_fixed, crossing_inv_bw),
  // so that list schedulers and learned policies see the costs the simulator charges.
  double transfer_time(int t, int src, int dst) const {
    if (src == dst || resident_[t]) return 0;
    const int l = src * num_devices_ + dst;
    if (execution_)
      return execution_->crossing_fixed[l] + static_cast<double>(tensor_bytes_[t]) * execution_->crossing_inv_bw[l];
    if (fixed_transfer_[t] >= 0 && !measured_link_[l]) return fixed_transfer_[t] * hops_[l];
    return link_latency_[l] + static_cast<double>(tensor_bytes_[t]) * link_inv_bw_[l];
  }
  std::int64_t tensor_bytes(int t) const { return tensor_bytes_[t]; }
  std::int64_t weight_bytes(int op) const { return weight_bytes_[op]; }
  // True for constants made by an op (outputs of Const ops and of what the runtime folds at load
  // time, e.g. a Convert of compressed weights): like initializers they are on every device
  // before the first inference, as a runtime keeps weights with the kernels that read them, so
  // they are never transferred and never wait for their producer. Their bytes are charged to
  // the first op that reads them in a kernel (weight_bytes), not to the folded producer.
  bool tensor_resident(int t) const { return resident_[t]; }
  // True for an op evaluated once at load time (graph/op_costs.h is_folded): it costs nothing per
  // inference and reads no input at run time, so nothing is copied to it and nothing waits for it.
  bool folded(int op) const { return folded_[op]; }
  // The device index of the host (first cpu), or -1.
  int host() const { return host_; }

  // The executor's execution model (cost/execution_model.h) by device index; null when the
  // simulator uses its idealised link model (no fitted model in the cost table).
  struct Execution {
    ExecutionModel::Copies copies = ExecutionModel::Copies::async;
    double staging_bandwidth = 10e9;
    double fit_error = 0;
    std::vector<char> async;  // per device
    std::vector<double> dispatch, wake, op_scale, kernel_min, device_scale;
    std::vector<double> fixed, inv_bandwidth;  // per ordered pair src * num_devices + dst
    // What transfer_time() charges a crossing under this model, per ordered pair: the copy task's
    // dispatch and fixed cost, and seconds per byte of the copy plus its staging (async copies
    // to an asynchronous device from the host). The simulator schedules the copy itself.
    std::vector<double> crossing_fixed, crossing_inv_bw;
  };
  const Execution* execution() const { return execution_ ? &*execution_ : nullptr; }
  // What a list scheduler charges for op `op` taking `seconds` on `d`: `seconds` itself without
  // an execution model; with one, the task as the executor's worker spends it (dispatch, the
  // scaled op time and, on an asynchronous device, its kernel), 0 for an op folded at load time.
  double task_time(int op, int d, double seconds) const {
    if (!execution_ || folded_[op] || !(seconds < kInfeasibleTime)) return seconds;
    const Execution& x = *execution_;
    return x.dispatch[d] + x.op_scale[d] * seconds + (x.async[d] ? stream_time(op, d) : 0.0);
  }
  // Seconds the kernel of `op` runs on asynchronous device `d`'s stream under the execution
  // model: kernel_min + device_scale x its roofline kernel time, 0 for an op without a kernel.
  // REQUIRES execution().
  double stream_time(int op, int d) const {
    const double kt = kernel_time(op, d);
    return kt > 0 ? execution_->kernel_min[d] + execution_->device_scale[d] * kt : 0.0;
  }
  // Seconds a task that finds device `d`'s worker idle waits for it to wake (0 without an
  // execution model).
  double wake_time(int d) const { return execution_ ? execution_->wake[d] : 0.0; }
  // Replaces the execution model (names resolved against the cluster; throws Error naming
  // `file` and the device for a name the cluster lacks). Calibration refits through this.
  void set_execution(const ExecutionModel& model, const std::string& file);
  // Seconds the kernel of `op` runs on device `d` by the roofline, its launch left out (0 for ops
  // without a kernel): what an asynchronous device's stream spends on it before scaling.
  double kernel_time(int op, int d) const { return kernel_time_[static_cast<std::size_t>(op) * num_devices_ + d]; }

 private:
  // Fills fusion_parent_ and standalone_time_ and lowers op_time_ where ops fuse.
  void apply_fusion(const CostTable* overrides);

  const Graph* graph_;
  Cluster cluster_;
  int num_ops_, num_devices_;
  int host_;
  std::vector<double> op_time_, standalone_time_;
  std::vector<int> fusion_parent_;  // empty when nothing fuses
  int fused_pairs_ = 0;
  std::vector<std::int64_t> tensor_bytes_, weight_bytes_;
  std::vector<double> fixed_transfer_;
  std::vector<char> resident_;
  std::vector<char> folded_;  // per op: evaluated at load time (graph/op_costs.h is_folded)
  std::vector<double> link_latency_, link_inv_bw_, hops_;
  std::vector<char> measured_link_;  // the cost table's links: latency + bytes / bandwidth always
  std::optional<Execution> execution_;
  std::vector<double> kernel_time_;
};

// The roofline time of one op on one device, without any table override or fusion.
double roofline_time(const Op& op, const Device& d);
// The roofline time of `op` fused after the op that made `chain_input`: no launch, and neither
// that tensor nor its own output goes through memory (the chain's head writes one).
double fused_roofline_time(const Op& op, const Device& d, std::int64_t chain_input_bytes, std::int64_t output_bytes);

}  // namespace devplace
