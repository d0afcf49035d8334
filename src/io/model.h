// Model: what an importer produces. A graph, and for files that carry them (the cost graphs of
// Tarnawski et al.), the file's own devices and measured costs, so such a file works without
// --cluster. load_model() picks the importer by extension and content.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "cost/cluster.h"
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

// The cluster `model` is placed on: `spec` (a file or preset) when given, else the file's own
// devices, else the "paper" preset. `resolved_spec` (optional) gets the spec used, as the
// executor names its workers by it.
Cluster resolve_cluster(const Model& model, const std::string& spec, std::string* resolved_spec = nullptr);

// The model's own costs with those of `costs_file` (optional) on top. Throws Error naming the
// file and op for an op the model lacks or a device the cluster lacks.
CostTable merged_costs(const Model& model, const Cluster& cluster, const std::string& costs_file);

}  // namespace devplace
