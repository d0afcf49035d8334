// What OpenVINO's HETERO mode accepts in a manual affinity map, and a placement brought into
// that form. HETERO cuts the model into subgraphs of connected ops with one affinity and
// compiles each on its device (docs/guide/placement-export.md gives the sources):
//  1. A constant, and a subgraph that only computes constants (Const -> Convert -> Multiply
//     weight decompression), has the affinity of the ops that read it: a constant sent to
//     another device's subgraph gave wrong results (openvino issue 12570), and the HETERO guide
//     says so since (PR 12896). So every reader of one constant shares a device.
//  2. No subgraph may be a lone Const -> Result or Parameter -> Result (PR 2872): a Parameter
//     goes with a reader, a Result with the op whose output it returns.
// devplace's simulator treats constants as present on every device, so a placement may break
// rule 1; adjust_for_openvino() moves the fewest ops it can and says which and why.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "sim/schedule.h"

namespace devplace {

struct AffinityViolation {
  std::string op;    // the op whose affinity is wrong (or missing)
  std::string rule;  // "constant-reader", "parameter", "result", "missing", "unknown-op", "unknown-device"
  std::string detail;
};

struct AffinityChange {
  std::string op;
  int from = -1, to = -1;  // device indices
  std::string reason;
};

struct AdjustedPlacement {
  Placement placement;
  std::vector<AffinityChange> changes;  // ops with a kernel that moved (constants following readers are not listed)
};

// Rules 1 and 2 applied to `placement`: readers that share a constant go to the device most of
// them are on (ties: the lowest device index); constant-only ops, Parameters and Results then
// follow their readers / producer. An ops count of `changes` of 0 means the placement was valid.
AdjustedPlacement adjust_for_openvino(const Graph& graph, const Placement& placement);

// Checks an affinity map (op name -> device name) against the graph: every op named exactly
// once, every device one of `devices`, and rules 1 and 2. Empty when the map is valid.
std::vector<AffinityViolation> check_openvino_affinity(const Graph& graph,
                                                       const std::map<std::string, std::string>& affinity,
                                                       const std::vector<std::string>& devices);

}  // namespace devplace
