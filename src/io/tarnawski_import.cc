#include "io/tarnawski_import.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"
#include "util/json_file.h"
#include "util/log.h"

namespace devplace {
namespace {

using nlohmann::json;

// Where a figure comes from, for error messages: the file plus a node label.
struct Where {
  const std::string& file;
  std::string node;
};

[[noreturn]] void fail(const Where& w, const std::string& reason) { throw Error(w.file, w.node, reason); }

const json& require(const json& obj, const char* key, const Where& w) {
  auto it = obj.find(key);
  if (it == obj.end()) fail(w, std::string("missing key '") + key + "'");
  return *it;
}

// A finite, non-negative number.
double non_negative(const json& v, const char* key, const Where& w) {
  if (!v.is_number()) fail(w, std::string("'") + key + "' must be a number, got " + v.dump());
  double d = v.get<double>();
  if (!std::isfinite(d) || d < 0) fail(w, std::string("'") + key + "' must be finite and >= 0, got " + v.dump());
  return d;
}

// Byte counts are written as floats ("3072.0"); operator graphs size one-bit tensors 0.125.
// A fraction of a byte still takes a byte, so fractions round up.
std::int64_t byte_count(const json& v, const char* key, const Where& w) {
  double d = std::ceil(non_negative(v, key, w));
  if (d >= 9.2e18) fail(w, std::string("'") + key + "' is too large for a byte count: " + v.dump());
  return static_cast<std::int64_t>(d);
}

// An integer, possibly written as an integral float.
std::int64_t integer(const json& v, const char* key, const Where& w) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9.2e18) return static_cast<std::int64_t>(d);
  }
  fail(w, std::string("'") + key + "' must be an integer, got " + v.dump());
}

// Booleans appear as true/false and as 0/1, mixed within a file.
bool boolean(const json& v, const char* key, const Where& w) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) {
    double d = v.get<double>();
    if (d == 0) return false;
    if (d == 1) return true;
  }
  fail(w, std::string("'") + key + "' must be true/false or 0/1, got " + v.dump());
}

std::string node_label(const json& node, std::int64_t id) {
  auto it = node.find("name");
  if (it != node.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
  return "n" + std::to_string(id);
}

struct Node {
  std::int64_t id = 0;
  std::string name;  // final op name
  std::string type = "Layer";
  double cpu = 0, fpga = 0;
  std::int64_t size = 0;
  bool on_fpga = false, backward = false;
  std::optional<std::int64_t> layer, color;
  // Filled from the out-edges.
  double cost = 0;
  std::int64_t out_bytes = 0;
  bool has_out = false;
  std::vector<int> inputs;  // node indices, file order, distinct
};

}  // namespace

bool looks_like_tarnawski(const json& j) {
  return j.is_object() && j.contains("nodes") && j.contains("edges") && j.contains("maxFPGAs") &&
         j.contains("maxSizePerFPGA");
}

Model tarnawski_from_json(const json& j, const std::string& path) {
  const Where top{path, ""};
  if (!j.is_object()) fail(top, "expected a JSON object with nodes, edges, maxFPGAs, maxSizePerFPGA");
  const json& jnodes = require(j, "nodes", top);
  const json& jedges = require(j, "edges", top);
  if (!jnodes.is_array()) fail(top, "'nodes' must be an array");
  if (!jedges.is_array()) fail(top, "'edges' must be an array");
  const std::int64_t max_fpgas = integer(require(j, "maxFPGAs", top), "maxFPGAs", top);
  if (max_fpgas < 0 || max_fpgas > 4096) fail(top, "'maxFPGAs' must be in [0, 4096], got " + std::to_string(max_fpgas));
  const std::int64_t max_size = byte_count(require(j, "maxSizePerFPGA", top), "maxSizePerFPGA", top);
  if (max_fpgas > 0 && max_size == 0) fail(top, "'maxSizePerFPGA' must be > 0 (0 would mean unlimited in devplace)");

  // Nodes.
  std::vector<Node> nodes;
  nodes.reserve(jnodes.size());
  std::unordered_map<std::int64_t, int> by_id;
  std::map<std::string, int> name_count;
  for (std::size_t k = 0; k < jnodes.size(); ++k) {
    const json& jn = jnodes[k];
    Where w{path, "nodes[" + std::to_string(k) + "]"};
    if (!jn.is_object()) fail(w, "a node must be an object");
    Node n;
    n.id = integer(require(jn, "id", w), "id", w);
    w.node = node_label(jn, n.id);
    if (auto [it, fresh] = by_id.emplace(n.id, static_cast<int>(nodes.size())); !fresh)
      fail(w,
           "duplicate node id " + std::to_string(n.id) + " (also node '" + node_label(jnodes[it->second], n.id) + "')");
    n.cpu = non_negative(require(jn, "cpuLatency", w), "cpuLatency", w);
    n.fpga = non_negative(require(jn, "fpgaLatency", w), "fpgaLatency", w);
    n.size = byte_count(require(jn, "size", w), "size", w);
    n.on_fpga = boolean(require(jn, "supportedOnFpga", w), "supportedOnFpga", w);
    n.backward = boolean(require(jn, "isBackwardNode", w), "isBackwardNode", w);
    if (auto it = jn.find("layerId"); it != jn.end() && !it->is_null()) n.layer = integer(*it, "layerId", w);
    if (auto it = jn.find("colorClass"); it != jn.end() && !it->is_null()) n.color = integer(*it, "colorClass", w);
    for (const char* key : {"type", "opType", "op_type", "op"})
      if (auto it = jn.find(key); it != jn.end() && it->is_string() && !it->get<std::string>().empty()) {
        n.type = it->get<std::string>();
        break;
      }
    if (auto it = jn.find("name"); it != jn.end() && it->is_string() && !it->get<std::string>().empty()) {
      n.name = it->get<std::string>();
      ++name_count[n.name];
    }
    nodes.push_back(std::move(n));
  }
  // Final names: the file's name when unique, else "n<id>" (made unique against real names).
  std::set<std::string> taken;
  for (auto& n : nodes)
    if (!n.name.empty() && name_count[n.name] == 1) taken.insert(n.name);
  for (auto& n : nodes) {
    if (!n.name.empty() && name_count[n.name] == 1) continue;
    std::string base = "n" + std::to_string(n.id), name = base;
    for (int s = 1; taken.count(name); ++s) name = base + "_" + std::to_string(s);
    taken.insert(name);
    n.name = name;
  }

  // Edges.
  std::set<std::pair<int, int>> seen;
  for (std::size_t k = 0; k < jedges.size(); ++k) {
    const json& je = jedges[k];
    Where w{path, "edges[" + std::to_string(k) + "]"};
    if (!je.is_object()) fail(w, "an edge must be an object");
    const std::int64_t src_id = integer(require(je, "sourceId", w), "sourceId", w);
    const std::int64_t dst_id = integer(require(je, "destId", w), "destId", w);
    w.node = "edge " + std::to_string(src_id) + " -> " + std::to_string(dst_id);
    auto s = by_id.find(src_id), d = by_id.find(dst_id);
    if (s == by_id.end()) fail(w, "sourceId " + std::to_string(src_id) + " is not the id of any node");
    if (d == by_id.end()) fail(w, "destId " + std::to_string(dst_id) + " is not the id of any node");
    if (s->second == d->second) fail(w, "an edge from a node to itself (a cycle)");
    const double cost = non_negative(require(je, "cost", w), "cost", w);
    const std::int64_t bytes = byte_count(require(je, "size", w), "size", w);
    Node& src = nodes[s->second];
    if (src.has_out && (cost != src.cost || bytes != src.out_bytes))
      log::warn("tarnawski-outedges:" + path, format_error(path, src.name,
                                                           "out-edges disagree on cost/size (" + json(src.cost).dump() +
                                                               " vs " + json(cost).dump() + "); taking the larger"));
    src.cost = src.has_out ? std::max(src.cost, cost) : cost;
    src.out_bytes = src.has_out ? std::max(src.out_bytes, bytes) : bytes;
    src.has_out = true;
    if (!seen.emplace(s->second, d->second).second) {
      log::warn("tarnawski-dupedge:" + path, format_error(path, w.node, "duplicate edge ignored"));
      continue;
    }
    nodes[d->second].inputs.push_back(s->second);
  }

  // Graph.
  const std::string stem = std::filesystem::path(path).stem().string();
  Model model;
  Graph g(stem, path);
  std::vector<int> tensor_of(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    int t = g.tensor_id(nodes[i].name + ":out");
    Tensor& tt = g.tensor(t);
    tt.fixed_bytes = nodes[i].out_bytes;
    tt.dtype = DType::unknown;
    tt.is_graph_output = !nodes[i].has_out;
    tensor_of[i] = t;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    Op op;
    op.name = n.name;
    op.type = n.type;
    op.attrs["id"] = n.id;
    op.attrs["supportedOnFpga"] = std::int64_t{n.on_fpga};
    op.attrs["isBackwardNode"] = std::int64_t{n.backward};
    if (n.layer) op.attrs["layerId"] = *n.layer;
    if (n.color) op.attrs["colorClass"] = *n.color;
    op.weight_bytes = n.size;
    op.bytes_accessed = n.size + n.out_bytes;
    for (int p : n.inputs) {
      op.inputs.push_back(tensor_of[p]);
      op.bytes_accessed += nodes[p].out_bytes;
    }
    op.outputs.push_back(tensor_of[i]);
    g.add_op(std::move(op));
  }
  g.finalize();
  model.graph = std::move(g);

  // Cluster.
  Cluster c;
  c.name = "tarnawski-" + stem;
  c.description = "CPU + " + std::to_string(max_fpgas) + " accelerators of " + std::to_string(max_size) +
                  " bytes from " + path + " (Tarnawski et al. 2020; costs in its CostTable)";
  Device cpu;
  cpu.name = "cpu";
  cpu.kind = "cpu";
  cpu.memory_bytes = 0;
  c.devices.push_back(cpu);
  for (std::int64_t i = 0; i < max_fpgas; ++i) {
    Device d;
    d.name = "fpga" + std::to_string(i);
    d.kind = "accel";
    d.memory_bytes = max_size;
    c.devices.push_back(d);
  }
  // Bandwidth implied by the file's costs: the median of size / cost over edges with both > 0.
  std::vector<double> ratios;
  for (const auto& n : nodes)
    if (n.has_out && n.cost > 0 && n.out_bytes > 0)
      ratios.push_back(static_cast<double>(n.out_bytes) / (n.cost * kTarnawskiSecondsPerUnit));
  double bandwidth = 2147483648.0;  // 2 GiB/s, what every published file implies
  if (!ratios.empty()) {
    std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
    bandwidth = ratios[ratios.size() / 2];
  }
  for (int a = 0; a < c.num_devices(); ++a)
    for (int b = 0; b < c.num_devices(); ++b) {
      if (a == b) continue;
      Link l;
      l.src = a;
      l.dst = b;
      l.bandwidth = (a == 0 || b == 0) ? bandwidth : bandwidth / 2;  // accel<->accel via host
      l.latency = 0;                                                 // their cost is size / bandwidth, nothing fixed
      c.set_link(l);
    }
  c.validate(path);
  model.cluster = std::move(c);

  // Costs.
  CostTable t;
  for (const auto& n : nodes) {
    auto& row = t.op_time[n.name];
    row["cpu"] = n.cpu * kTarnawskiSecondsPerUnit;
    if (n.on_fpga)
      for (std::int64_t i = 0; i < max_fpgas; ++i) row["fpga" + std::to_string(i)] = n.fpga * kTarnawskiSecondsPerUnit;
    t.transfer_time[n.name + ":out"] = n.cost * kTarnawskiSecondsPerUnit;
  }
  model.costs = std::move(t);
  return model;
}

Model import_tarnawski(const std::string& path) {
  nlohmann::json j = read_json_file(path);
  return tarnawski_from_json(j, path);
}

}  // namespace devplace
