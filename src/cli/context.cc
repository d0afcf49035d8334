#include "cli/context.h"

#include <cmath>
#include <cstdio>

#include "io/placement_io.h"
#include "util/error.h"

namespace devplace::cli {

Model load_model_only(const ModelOptions& opts) {
  ImportOptions io;
  for (const auto& b : opts.inputs) io.input_shapes.insert(parse_input_binding(b));
  return load_model(opts.model, io);
}

std::unique_ptr<Context> load_context(const ModelOptions& opts) {
  auto ctx = std::make_unique<Context>();
  ctx->model = load_model_only(opts);
  Cluster cluster;
  if (!opts.cluster.empty()) {
    cluster = load_cluster(opts.cluster);
    ctx->cluster_spec = opts.cluster;
  } else if (ctx->model.cluster) {
    cluster = *ctx->model.cluster;
    ctx->cluster_spec = cluster.name;
  } else {
    cluster = load_cluster("paper");
    ctx->cluster_spec = "paper";
  }
  CostTable table;
  if (ctx->model.costs) table = *ctx->model.costs;
  if (!opts.costs.empty()) {
    CostTable extra = load_cost_table(opts.costs);
    for (auto& [op, row] : extra.op_time) {
      if (ctx->model.graph.find_op(op) < 0) throw Error(opts.costs, op, "no such op in the model");
      for (auto& [dev, t] : row)
        if (cluster.find_device(dev) < 0) throw Error(opts.costs, op, "unknown device '" + dev + "'");
      table.op_time[op] = row;
    }
    for (auto& [t, v] : extra.transfer_time) table.transfer_time[t] = v;
  }
  ctx->problem = std::make_unique<Problem>(ctx->model.graph, std::move(cluster), table.empty() ? nullptr : &table);
  return ctx;
}

Placement placement_from_options(const Graph& g, const Cluster& c, const std::string& placement_file,
                                 const std::string& device, const std::string& model_spec) {
  if (!placement_file.empty()) return read_placement(placement_file, g, c);
  const std::string dev = device.empty() ? c.devices[0].name : device;
  const int d = c.find_device(dev);
  if (d < 0) throw Error(model_spec, "", "cluster '" + c.name + "' has no device '" + dev + "'");
  return Placement(g.num_ops(), d);
}

std::string ms(double seconds) {
  if (std::isinf(seconds)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", seconds * 1e3);
  return buf;
}

}  // namespace devplace::cli
