// Importer for the cost graphs of Tarnawski et al., "Efficient Algorithms for Device Placement
// of DNN Graph Operators" (NeurIPS 2020), as published in msr-fiddle/dnn-partitioning (schema:
// shared/data/dnn-partitioning/README.md). Such a file carries its own devices (one CPU and
// `maxFPGAs` accelerators of `maxSizePerFPGA` bytes each) and measured costs, so the Model it
// yields has a Cluster and a CostTable besides the Graph. Stateless; safe from any thread.
//
// Mapping:
//  - node -> Op named by its `name` when that is unique in the file, else "n<id>"; type "Layer"
//    (or the node's own `type`/`opType`/`op_type`/`op` string if it has one); attrs "id",
//    "supportedOnFpga", "isBackwardNode" (0/1) and "layerId", "colorClass" when present (int64);
//    weight_bytes = `size` (bytes the node needs on an accelerator); flops = macs = 0.
//  - each node has one output tensor "<op name>:out" with fixed_bytes = its out-edges' `size`
//    (0 without out-edges; such tensors are graph outputs; byte counts round up, as operator
//    graphs size one-bit tensors 0.125 bytes); an edge makes the destination op
//    consume the source's tensor (duplicate edges are dropped with a warning).
//  - CostTable: op_time[op]["cpu"] = cpuLatency; op_time[op]["fpga<i>"] = fpgaLatency only for
//    nodes with supportedOnFpga (absent = unsupported there); transfer_time[tensor] = the
//    out-edges' `cost` (0 without out-edges).
//  - Cluster "tarnawski-<file stem>": device "cpu" (kind cpu, unlimited memory) and "fpga0" ..
//    "fpga<maxFPGAs-1>" (kind accel, memory_bytes = maxSizePerFPGA); every ordered pair linked.
//    Link figures only matter for costs the table does not give (it gives all of them): the
//    bandwidth is the one the file's edge costs imply (size / cost; 2 GiB/s in every published
//    file) with zero latency, halved between two accelerators (that traffic crosses host memory).
//    `maxCPUs` is ignored: their model gives the CPU unlimited parallelism.
//
// Units: the files do not say; we read latencies and edge costs as milliseconds and store
// seconds (x kTarnawskiSecondsPerUnit). Evidence: every edge's cost equals size / 2^31 * 1000,
// i.e. milliseconds at 2 GiB/s (a PCIe-class link); layer latencies of ~1 ms fit as well.
//
// The graph's ops keep the costs set here; do not run annotate_costs() on it (it would replace
// weight_bytes by the size of constant inputs, of which these graphs have none).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "io/model.h"

namespace devplace {

// Seconds per time unit of the files (their unit is taken to be the millisecond).
constexpr double kTarnawskiSecondsPerUnit = 1e-3;

// Reads and imports one file. Returns a Model with graph (finalized), cluster and costs set.
// Throws Error(path, node, reason) for unreadable JSON, missing or mistyped keys, negative
// figures, duplicate ids, edges naming unknown ids, or a cycle.
Model import_tarnawski(const std::string& path);

// The same from an already parsed document; `path` names it in errors and gives the names.
Model tarnawski_from_json(const nlohmann::json& j, const std::string& path);

// True when `j` has the top-level keys of this format (nodes, edges, maxFPGAs,
// maxSizePerFPGA); lets load_model() dispatch a .json file by content.
bool looks_like_tarnawski(const nlohmann::json& j);

}  // namespace devplace
