#include "io/placement_export.h"

#include <onnx/onnx_pb.h>
#include <nlohmann/json.hpp>
#include <set>

#include "io/onnx_import.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {

void export_onnx_with_placement(const std::string& model_path, const Graph& graph, const Cluster& cluster,
                                const Placement& placement, const std::string& out_path) {
  onnx::ModelProto model;
  if (!model.ParseFromString(read_file(model_path)))
    throw Error(model_path, "", "not a valid ONNX model: cannot annotate it", ErrorKind::corrupt);
  nlohmann::json map = nlohmann::json::object();
  std::set<std::string> taken;
  auto* gp = model.mutable_graph();
  for (int i = 0; i < gp->node_size(); ++i) {
    auto* node = gp->mutable_node(i);
    std::string name = onnx_op_name(node->name(), node->op_type(), i, taken);
    int op = graph.find_op(name);
    if (op < 0)
      throw Error(model_path, name, "node not in the placed graph (was the placement made for another model?)");
    const std::string& dev = cluster.devices.at(placement.at(op)).name;
    node->set_doc_string("devplace:device=" + dev);
    map[name] = dev;
  }
  bool replaced = false;
  for (auto& prop : *model.mutable_metadata_props())
    if (prop.key() == "devplace.placement") {
      prop.set_value(map.dump());
      replaced = true;
    }
  if (!replaced) {
    auto* prop = model.add_metadata_props();
    prop->set_key("devplace.placement");
    prop->set_value(map.dump());
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) throw Error(out_path, "", "cannot serialise the annotated model");
  write_file_atomic(out_path, bytes);
}

std::vector<std::string> openvino_device_names(const Cluster& cluster) {
  std::map<std::string, int> total, seen;
  for (const auto& d : cluster.devices) ++total[d.kind];
  std::vector<std::string> names;
  for (const auto& d : cluster.devices) {
    std::string base = d.kind == "cpu" ? "CPU" : d.kind == "gpu" ? "GPU" : "NPU";
    int k = seen[d.kind]++;
    names.push_back(total[d.kind] > 1 && d.kind != "cpu" ? base + "." + std::to_string(k) : base);
  }
  return names;
}

std::map<std::string, std::string> openvino_affinity_map(const Graph& graph, const Cluster& cluster,
                                                         const Placement& placement) {
  const auto names = openvino_device_names(cluster);
  std::map<std::string, std::string> map;
  for (int i = 0; i < graph.num_ops(); ++i) map[graph.op(i).name] = names.at(placement.at(i));
  return map;
}

AdjustedPlacement export_openvino_affinity(const Graph& graph, const Cluster& cluster, const Placement& placement,
                                           const std::string& out_path) {
  AdjustedPlacement adjusted = adjust_for_openvino(graph, placement);
  const Placement& p = adjusted.placement;
  auto names = openvino_device_names(cluster);
  const nlohmann::json map = openvino_affinity_map(graph, cluster, p);
  std::set<std::string> used;
  for (int d : p) used.insert(names.at(d));
  std::string hetero = "HETERO:";
  for (const auto& n : names)
    if (used.count(n)) hetero += (hetero.back() == ':' ? "" : ",") + n;
  nlohmann::json j = {{"format", "devplace-openvino-affinity"}, {"device", hetero}, {"affinity", map}};
  write_file_atomic(out_path, j.dump(1) + "\n");
  return adjusted;
}

std::map<std::string, std::string> read_openvino_affinity(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, "", std::string("invalid JSON: ") + e.what(), ErrorKind::corrupt);
  }
  const nlohmann::json& map = j.is_object() && j.contains("affinity") ? j["affinity"] : j;
  if (!map.is_object()) throw Error(path, "", "an affinity map must be an object of op name -> device");
  std::map<std::string, std::string> out;
  for (auto& [op, dev] : map.items()) {
    if (!dev.is_string()) throw Error(path, op, "the device must be a string such as \"CPU\" or \"GPU.0\"");
    out[op] = dev.get<std::string>();
  }
  return out;
}

}  // namespace devplace
