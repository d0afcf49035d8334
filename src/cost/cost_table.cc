#include "cost/cost_table.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"
#include "util/json_file.h"

namespace devplace {

using nlohmann::json;

// File layout: {"format": "devplace-costs", "unit": "s", "ops": {op: {device: s}},
// "transfers": {tensor: s}, "links": [{"from": device, "to": device, "latency_us", "bandwidth_gbs"}],
// "execution": {...} (cost/execution_model.h)}.
CostTable cost_table_from_json(const json& j, const std::string& file) {
  if (!j.is_object() || j.value("format", "") != "devplace-costs")
    throw Error(file, "", "not a devplace cost table (expected \"format\": \"devplace-costs\")", ErrorKind::corrupt);
  CostTable t;
  auto check = [&](const std::string& node, const json& v) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      throw Error(file, node, "cost must be a non-negative number of seconds");
    return v.get<double>();
  };
  if (auto ops = j.find("ops"); ops != j.end())
    for (auto& [op, devs] : ops->items())
      for (auto& [dev, v] : devs.items()) t.op_time[op][dev] = check(op, v);
  if (auto tr = j.find("transfers"); tr != j.end())
    for (auto& [tensor, v] : tr->items()) t.transfer_time[tensor] = check(tensor, v);
  if (auto links = j.find("links"); links != j.end()) {
    if (!links->is_array()) throw Error(file, "links", "must be a list of {from, to, latency_us, bandwidth_gbs}");
    for (const json& l : *links) {
      MeasuredLink m;
      if (!l.is_object() || !l.contains("from") || !l["from"].is_string() || !l.contains("to") || !l["to"].is_string())
        throw Error(file, "links", "every link needs \"from\" and \"to\" device names");
      m.from = l["from"], m.to = l["to"];
      const std::string node = "link " + m.from + " -> " + m.to;
      m.latency = check(node, l.value("latency_us", json())) * 1e-6;
      m.bandwidth = check(node, l.value("bandwidth_gbs", json())) * 1e9;
      if (!(m.bandwidth > 0)) throw Error(file, node, "bandwidth_gbs must be positive");
      t.links.push_back(m);
    }
  }
  if (auto ex = j.find("execution"); ex != j.end()) t.execution = execution_model_from_json(*ex, file);
  t.file = file;
  return t;
}

json cost_table_to_json(const CostTable& t) {
  json j = {{"format", "devplace-costs"}, {"unit", "s"}, {"ops", t.op_time}, {"transfers", t.transfer_time}};
  if (!t.links.empty()) {
    j["links"] = json::array();
    for (const MeasuredLink& l : t.links)
      j["links"].push_back(
          {{"from", l.from}, {"to", l.to}, {"latency_us", l.latency * 1e6}, {"bandwidth_gbs", l.bandwidth / 1e9}});
  }
  if (t.execution) j["execution"] = execution_model_to_json(*t.execution);
  return j;
}

CostTable load_cost_table(const std::string& path) {
  nlohmann::json j = read_json_file(path);
  return cost_table_from_json(j, path);
}

}  // namespace devplace
