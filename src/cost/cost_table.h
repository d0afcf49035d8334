// CostTable: measured or file-given costs that override the roofline model, keyed by names so
// a table survives re-import. Op times are per device name; a tensor's transfer time is one
// figure per crossing between a host (cpu) and another device; a crossing between two non-host
// devices goes through host memory and costs twice that (the convention of Tarnawski et al.).
// Units: seconds. Loaded from / written to JSON (a later `devplace profile` writes one).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cost/execution_model.h"

namespace devplace {

// A measured link between two devices (devplace profile --world-size: processes or hosts): it
// replaces the cluster's link between them, and a tensor crossing it costs latency + bytes /
// bandwidth, not its in-process transfer_time.
struct MeasuredLink {
  std::string from, to;  // device names
  double latency = 0;    // seconds
  double bandwidth = 0;  // bytes per second
};

struct CostTable {
  std::map<std::string, std::map<std::string, double>> op_time;  // op name -> device name -> s
  std::map<std::string, double> transfer_time;                   // tensor name -> s per crossing
  std::vector<MeasuredLink> links;                               // directed
  // How the executor runs a placement, fitted to measured runs (cost/execution_model.h); when
  // present the simulator schedules with it.
  std::optional<ExecutionModel> execution;
  std::string file;                                              // where it was read from, for errors
  bool empty() const { return op_time.empty() && transfer_time.empty() && links.empty() && !execution; }
};

CostTable cost_table_from_json(const nlohmann::json& j, const std::string& file);
nlohmann::json cost_table_to_json(const CostTable& t);
CostTable load_cost_table(const std::string& path);

}  // namespace devplace
