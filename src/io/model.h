// Model: what an importer produces. A graph, and for files that carry them (the cost graphs of
// Tarnawski et al.), the file's own devices and measured costs, so such a file works without
// --cluster. load_model() picks the importer by extension and content.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cost/cluster.h"
#include "cost/cost_model.h"
#include "cost/cost_table.h"
#include "graph/graph.h"

namespace devplace {

// What a model file may claim, so that a corrupt or hostile file gets an Error naming it and
// the offending node instead of an overflow or an out-of-memory kill later (the executor
// allocates real tensors). The defaults are far above any real model's.
struct ModelLimits {
  std::int64_t max_ops = 10'000'000;
  std::int64_t max_tensor_elements = std::int64_t{1} << 40;  // 4 TiB in f32
  std::size_t max_rank = 16;
};

struct ImportOptions {
  // Shapes for graph inputs with dynamic dims, e.g. {"input_ids", {1, 128}}.
  std::map<std::string, Shape> input_shapes;
  ModelLimits limits;
};

// Throws Error(file, tensor or op, reason) when `g` exceeds `limits`.
void check_limits(const Graph& g, const ModelLimits& limits);

struct Model {
  Graph graph;                     // finalized, costs annotated
  std::optional<Cluster> cluster;  // devices the file itself defines
  std::optional<CostTable> costs;  // costs the file itself defines
};

// `spec` is a path (.onnx, .xml, .json) or a bundled name (resnet50, inception_v3, bert_base).
// Throws Error naming the file (and node) for anything malformed.
Model load_model(const std::string& spec, const ImportOptions& options = {});

// Bundled model names and their files (under models/ of the source tree or $DEVPLACE_HOME).
std::map<std::string, std::string> bundled_models();

// Parses "name=1,128" into a binding; throws Error on bad syntax.
std::pair<std::string, Shape> parse_input_binding(const std::string& text);

// ImportOptions binding the inputs named in "name=1,128" texts; throws Error on bad syntax.
ImportOptions import_options(const std::vector<std::string>& inputs);

// A model on the cluster it is placed on, with its costs: what placing, judging and running
// need. `problem` references `model.graph`, so the object stays where load_problem made it.
struct LoadedProblem {
  Model model;
  std::string cluster_spec;  // the cluster file or preset used (the executor names workers by it)
  std::unique_ptr<Problem> problem;
};

// The cluster "local" (this machine, exec/local_gpus.h: only a caller that links the executor
// can describe it) and whether it replaces "paper" when neither the command nor the model file
// names a cluster (`run` and `profile`).
struct LocalCluster {
  std::optional<Cluster> cluster;
  bool by_default = false;
};

// `model_spec`: a model file or bundled name; `inputs`: "name=1,128" bindings; `cluster_spec`:
// a cluster file, a preset or "local", empty for the file's own devices, else "paper" (or
// "local", see LocalCluster); `costs_file` (optional): a cost table whose entries override the
// model's costs. Throws Error naming the file (and op) for bad input, e.g. a cost for an op the
// model lacks or a device the cluster lacks. `fusion` false costs every op as its own kernel
// (the cluster's fusion rules dropped).
std::unique_ptr<LoadedProblem> load_problem(const std::string& model_spec, const std::vector<std::string>& inputs,
                                            const std::string& cluster_spec, const std::string& costs_file,
                                            bool fusion = true, const LocalCluster& local = {});

}  // namespace devplace
