#include "io/placement_io.h"

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"
#include "util/json_file.h"

namespace devplace {

using nlohmann::json;

std::string placement_to_json(const Graph& g, const Cluster& c, const Placement& p, const PlacementInfo& info) {
  json j;
  j["format"] = "devplace-placement";
  j["model"] = info.model;
  j["cluster"] = info.cluster;
  j["algorithm"] = info.algorithm;
  j["seed"] = info.seed;
  j["makespan_ms"] = info.makespan * 1e3;
  json map = json::object();
  for (int i = 0; i < g.num_ops(); ++i) map[g.op(i).name] = c.devices.at(p.at(i)).name;
  j["placement"] = std::move(map);
  return j.dump(1) + "\n";
}

void write_placement(const std::string& path, const Graph& g, const Cluster& c, const Placement& p,
                     const PlacementInfo& info) {
  write_file_atomic(path, placement_to_json(g, c, p, info));
}

Placement read_placement(const std::string& path, const Graph& g, const Cluster& c, PlacementInfo* info) {
  nlohmann::json j = read_json_file(path);
  if (!j.is_object() || !j.contains("placement") || !j["placement"].is_object())
    throw Error(path, "", "not a placement file (expected an object with a \"placement\" map)");
  Placement p(g.num_ops(), -1);
  for (auto& [op, dev] : j["placement"].items()) {
    int i = g.find_op(op);
    if (i < 0) throw Error(path, op, "no such op in model '" + g.name() + "'", ErrorKind::not_found);
    if (!dev.is_string()) throw Error(path, op, "device must be a string");
    int d = c.find_device(dev.get<std::string>());
    if (d < 0) throw Error(path, op, "unknown device '" + dev.get<std::string>() + "' (cluster '" + c.name + "')", ErrorKind::not_found);
    p[i] = d;
  }
  for (int i = 0; i < g.num_ops(); ++i)
    if (p[i] < 0) throw Error(path, g.op(i).name, "op is not placed");
  if (info) {
    info->model = j.value("model", "");
    info->cluster = j.value("cluster", "");
    info->algorithm = j.value("algorithm", "");
    info->seed = j.value("seed", std::uint64_t{0});
    info->makespan = j.value("makespan_ms", 0.0) * 1e-3;
  }
  return p;
}

}  // namespace devplace
