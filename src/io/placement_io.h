// Placement files: JSON that maps op name -> device name and records how the placement was
// made (model, cluster, algorithm, seed, simulated makespan), so `simulate` can read it back
// against the same model and cluster.
#pragma once

#include <cstdint>
#include <string>

#include "cost/cluster.h"
#include "graph/graph.h"
#include "sim/schedule.h"

namespace devplace {

struct PlacementInfo {
  std::string model, cluster, algorithm;
  std::uint64_t seed = 0;
  double makespan = 0;  // seconds, as simulated when written
};

std::string placement_to_json(const Graph& g, const Cluster& c, const Placement& p, const PlacementInfo& info);
void write_placement(const std::string& path, const Graph& g, const Cluster& c, const Placement& p,
                     const PlacementInfo& info);
// Throws Error(path, op, reason) for an unknown op or device, or an op the file leaves out.
Placement read_placement(const std::string& path, const Graph& g, const Cluster& c, PlacementInfo* info = nullptr);

}  // namespace devplace
