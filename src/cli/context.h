// What most commands need before they can work: a model, a cluster and the Problem built from
// them, resolved from command-line options in one place so every command treats them alike.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "io/model.h"
#include "sim/schedule.h"

namespace devplace::cli {

struct ModelOptions {
  std::string model;                // path or bundled name
  std::vector<std::string> inputs;  // "name=1,128" bindings
  std::string cluster;              // path, preset or "local"; empty: the model's own, else "paper"
  std::string costs;                // optional cost table overriding the roofline
  bool fusion = true;               // false: --no-fusion, one kernel per op
  bool local_by_default = false;    // empty and no devices in the model file: "local" (run, profile)
};

using Context = LoadedProblem;  // io/model.h

// Loads model + cluster + costs; throws Error for bad input.
std::unique_ptr<Context> load_context(const ModelOptions& opts);
// Loads the model only.
Model load_model_only(const ModelOptions& opts);

// The placement a command was given: read from `placement_file`, or every op on `device`
// (the cluster's first device when both are empty). Throws Error naming `model_spec` for an
// unknown device.
Placement placement_from_options(const Graph& g, const Cluster& c, const std::string& placement_file,
                                 const std::string& device, const std::string& model_spec);

// Milliseconds with three significant decimals, "inf" for infeasible.
std::string ms(double seconds);

}  // namespace devplace::cli
