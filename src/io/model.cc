#include "io/model.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "io/native_json.h"
#include "io/onnx_import.h"
#include "io/openvino_import.h"
#include "io/tarnawski_import.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_file.h"

namespace devplace {

std::map<std::string, std::string> bundled_models() {
  const std::string dir = home_dir() + "/models/";
  return {{"resnet50", dir + "resnet50.onnx"},
          {"inception_v3", dir + "inception_v3.onnx"},
          {"bert_base", dir + "bert_base.onnx"}};
}

std::pair<std::string, Shape> parse_input_binding(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw Error("", "", "input binding '" + text + "' must look like NAME=1,128");
  Shape shape;
  std::string dims = text.substr(eq + 1);
  std::size_t pos = 0;
  while (pos <= dims.size()) {
    auto comma = dims.find(',', pos);
    std::string d = dims.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    try {
      std::size_t used = 0;
      long long v = std::stoll(d, &used);
      if (used != d.size() || v <= 0) throw std::invalid_argument(d);
      shape.push_back(v);
    } catch (const std::exception&) {
      throw Error("", "", "input binding '" + text + "': dimension '" + d + "' is not a positive integer");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return {text.substr(0, eq), shape};
}

Model load_model(const std::string& spec, const ImportOptions& options) {
  std::string path = spec;
  if (!file_exists(path)) {
    auto bundled = bundled_models();
    auto it = bundled.find(spec);
    if (it == bundled.end()) {
      std::string names;
      for (auto& [n, f] : bundled) names += (names.empty() ? "" : ", ") + n;
      throw Error(spec, "", "no such model file or bundled model (bundled: " + names + ")", ErrorKind::not_found);
    }
    path = it->second;
    if (!file_exists(path)) throw Error(path, "", "bundled model file is missing from this installation");
  }
  const std::string ext = std::filesystem::path(path).extension().string();
  Model m;
  if (ext == ".onnx") {
    m.graph = import_onnx(path, options);
  } else if (ext == ".xml") {
    m.graph = import_openvino(path, options);
  } else if (ext == ".json") {
    nlohmann::json j = read_json_file(path);
    if (looks_like_tarnawski(j))
      m = tarnawski_from_json(j, path);
    else
      m.graph = graph_from_json(j, path);
  } else {
    throw Error(path, "", "unknown model format '" + ext + "' (expected .onnx, .xml or .json)", ErrorKind::unsupported);
  }
  check_limits(m.graph, options.limits);
  return m;
}

void check_limits(const Graph& g, const ModelLimits& limits) {
  if (g.num_ops() > limits.max_ops)
    throw Error(g.source(), "",
                std::to_string(g.num_ops()) + " ops, above the limit of " + std::to_string(limits.max_ops) +
                    " (ModelLimits::max_ops)");
  for (const Tensor& t : g.tensors()) {
    if (t.shape.size() > limits.max_rank)
      throw Error(g.source(), t.name,
                  "tensor of rank " + std::to_string(t.shape.size()) + ", above the limit of " +
                      std::to_string(limits.max_rank) + " (ModelLimits::max_rank)");
    for (auto d : t.shape)
      if (d < 0 && d != kUnknownDim)
        throw Error(g.source(), t.name, "tensor with a negative dim " + shape_to_string(t.shape));
    if (t.elements() > limits.max_tensor_elements)
      throw Error(g.source(), t.name,
                  "tensor " + shape_to_string(t.shape) + " claims more than " +
                      std::to_string(limits.max_tensor_elements) + " elements (ModelLimits::max_tensor_elements)");
  }
}

namespace {

// The cluster `model` is placed on (see load_problem); `resolved_spec` gets the spec used.
Cluster resolve_cluster(const Model& model, const std::string& spec, const LocalCluster& local,
                        std::string& resolved_spec) {
  std::string used = spec;
  if (used.empty() && !model.cluster) used = local.by_default ? "local" : "paper";
  resolved_spec = used.empty() ? model.cluster->name : used;
  if (used == "local") {
    if (!local.cluster)
      throw Error("local", "", "the cluster of this machine is described by the executor, which this caller does not have");
    return *local.cluster;
  }
  return used.empty() ? *model.cluster : load_cluster(used);
}

// The model's own costs with those of `costs_file` (optional) on top.
CostTable merged_costs(const Model& model, const Cluster& cluster, const std::string& costs_file) {
  CostTable table;
  if (model.costs) table = *model.costs;
  if (costs_file.empty()) return table;
  CostTable extra = load_cost_table(costs_file);
  for (auto& [op, row] : extra.op_time) {
    if (model.graph.find_op(op) < 0) throw Error(costs_file, op, "no such op in the model", ErrorKind::not_found);
    for (auto& [dev, t] : row)
      if (cluster.find_device(dev) < 0) throw Error(costs_file, op, "unknown device '" + dev + "'", ErrorKind::not_found);
    table.op_time[op] = row;
  }
  for (auto& [t, v] : extra.transfer_time) table.transfer_time[t] = v;
  for (const MeasuredLink& l : extra.links) {
    for (const std::string& dev : {l.from, l.to})
      if (cluster.find_device(dev) < 0)
        throw Error(costs_file, "link " + l.from + " -> " + l.to, "unknown device '" + dev + "'", ErrorKind::not_found);
    table.links.push_back(l);
  }
  if (extra.execution) table.execution = extra.execution;
  table.file = costs_file;
  return table;
}

}  // namespace

ImportOptions import_options(const std::vector<std::string>& inputs) {
  ImportOptions io;
  for (const auto& b : inputs) io.input_shapes.insert(parse_input_binding(b));
  return io;
}

std::unique_ptr<LoadedProblem> load_problem(const std::string& model_spec, const std::vector<std::string>& inputs,
                                            const std::string& cluster_spec, const std::string& costs_file,
                                            bool fusion, const LocalCluster& local) {
  auto lp = std::make_unique<LoadedProblem>();
  lp->model = load_model(model_spec, import_options(inputs));
  Cluster cluster = resolve_cluster(lp->model, cluster_spec, local, lp->cluster_spec);
  if (!fusion) cluster = without_fusion(std::move(cluster));
  CostTable table = merged_costs(lp->model, cluster, costs_file);
  lp->problem = std::make_unique<Problem>(lp->model.graph, std::move(cluster), table.empty() ? nullptr : &table);
  return lp;
}

}  // namespace devplace
