// Test support (header-only, used by tests only): tiny graphs whose op and transfer times are
// fixed by a cost table, on a two-device cluster, so schedules can be computed by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost/cluster.h"
#include "cost/cost_table.h"
#include "cost/execution_model.h"
#include "graph/graph.h"
#include "sim/schedule.h"

namespace devplace::test {

// Two devices, "cpu" (host, unlimited memory) and "gpu" (gpu_memory bytes, 0 = unlimited);
// table transfer costs apply per crossing.
inline Cluster two_devices(std::int64_t gpu_memory = 0) {
  Cluster c;
  c.name = "test";
  Device cpu;
  cpu.name = "cpu";
  Device gpu;
  gpu.name = "gpu";
  gpu.kind = "gpu";
  gpu.memory_bytes = gpu_memory;
  c.devices = {cpu, gpu};
  c.set_link({0, 1, 1e9, 0});
  c.set_link({1, 0, 1e9, 0});
  return c;
}

// An execution model for two_devices() whose costs a test computes by hand: both devices
// synchronous, the cpu's worker 0.1 s per task and 2 s to wake, each crossing 0.2 s plus
// 1000 bytes/s (0.1 s for Builder's 100-byte tensors), the gpu's worker free.
inline ExecutionModel two_devices_execution() {
  ExecutionModel m;
  m.devices = {{.device = "cpu", .dispatch = 0.1, .wake = 2}, {.device = "gpu"}};
  m.crossings = {{"cpu", "gpu", 0.2, 1000}, {"gpu", "cpu", 0.2, 1000}};
  return m;
}

struct Builder {
  Graph g{"test"};
  CostTable table;
  // Adds op `name` consuming the outputs of `inputs`, with its time on cpu and gpu, its output's
  // transfer time, its weights and its output size.
  void op(const std::string& name, std::vector<std::string> inputs, double cpu, double gpu, double transfer = 0.5,
          std::int64_t weights = 0, std::int64_t out_bytes = 100) {
    Op o;
    o.name = name;
    o.type = "Test";
    for (auto& in : inputs) o.inputs.push_back(g.tensor_id(in + ":0"));
    int out = g.tensor_id(name + ":0");
    g.tensor(out).fixed_bytes = out_bytes;
    o.outputs = {out};
    o.weight_bytes = weights;
    g.add_op(o);
    table.op_time[name] = {{"cpu", cpu}, {"gpu", gpu}};
    table.transfer_time[name + ":0"] = transfer;
  }
  // The device of op `op` in placement `p`. REQUIRES: g finalized.
  int at(const Placement& p, const std::string& op) const { return p[g.find_op(op)]; }
};

}  // namespace devplace::test
