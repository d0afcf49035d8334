#include "cli/context.h"

#include <cmath>
#include <cstdio>

#include "exec/local_gpus.h"
#include "io/placement_io.h"
#include "util/error.h"

namespace devplace::cli {

Model load_model_only(const ModelOptions& opts) { return load_model(opts.model, import_options(opts.inputs)); }

std::unique_ptr<Context> load_context(const ModelOptions& opts) {
  return load_problem(opts.model, opts.inputs, opts.cluster, opts.costs, opts.fusion,
                      local_cluster_for(opts.cluster, opts.local_by_default));
}

Placement placement_from_options(const Graph& g, const Cluster& c, const std::string& placement_file,
                                 const std::string& device, const std::string& model_spec) {
  if (!placement_file.empty()) return read_placement(placement_file, g, c);
  const std::string dev = device.empty() ? c.devices[0].name : device;
  const int d = c.find_device(dev);
  if (d < 0) throw Error(model_spec, "", "cluster '" + c.name + "' has no device '" + dev + "'", ErrorKind::not_found);
  return Placement(g.num_ops(), d);
}

std::string ms(double seconds) {
  if (std::isinf(seconds)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", seconds * 1e3);
  return buf;
}

}  // namespace devplace::cli
