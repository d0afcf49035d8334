#include "cost/cost_table.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"
#include "util/json_file.h"

namespace devplace {

using nlohmann::json;

// File layout: {"format": "devplace-costs", "unit": "s", "ops": {op: {device: s}},
// "transfers": {tensor: s}}.
CostTable cost_table_from_json(const json& j, const std::string& file) {
  if (!j.is_object() || j.value("format", "") != "devplace-costs")
    throw Error(file, "", "not a devplace cost table (expected \"format\": \"devplace-costs\")");
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
  return t;
}

json cost_table_to_json(const CostTable& t) {
  return {{"format", "devplace-costs"}, {"unit", "s"}, {"ops", t.op_time}, {"transfers", t.transfer_time}};
}

CostTable load_cost_table(const std::string& path) {
  nlohmann::json j = read_json_file(path);
  return cost_table_from_json(j, path);
}

}  // namespace devplace
