// Placements written back onto the model, for the runtimes that execute them:
//  - ONNX: a copy of the model whose nodes carry their device in doc_string
//    ("devplace:device=<name>") and whose metadata_props hold the whole map under
//    "devplace.placement" (JSON op name -> device), so any ONNX consumer can read it.
//  - OpenVINO: an affinity map (JSON op name -> OpenVINO device: CPU, GPU, GPU.1 ...) that a
//    few lines of OpenVINO's HETERO API apply (each node's rt_info "affinity"), after the
//    placement is brought into the form HETERO accepts (io/openvino_affinity.h).
//  - PyTorch: a device map (module path -> torch device) for models exported by torch.onnx,
//    whose node names carry the module path (io/torch_device_map.h).
// How to apply each: docs/guide/placement-export.md.
#pragma once

#include <map>
#include <string>

#include "cost/cluster.h"
#include "graph/graph.h"
#include "io/openvino_affinity.h"
#include "sim/schedule.h"

namespace devplace {

// REQUIRES: `graph` was imported from the ONNX file `model_path`. Writes atomically.
void export_onnx_with_placement(const std::string& model_path, const Graph& graph, const Cluster& cluster,
                                const Placement& placement, const std::string& out_path);

// OpenVINO device name of each cluster device: cpu -> "CPU", the i-th gpu -> "GPU.i" when the
// cluster has several GPUs else "GPU", accel -> "NPU.i" likewise.
std::vector<std::string> openvino_device_names(const Cluster& cluster);
// The affinity map of a placement as it stands: op name -> OpenVINO device name.
std::map<std::string, std::string> openvino_affinity_map(const Graph& graph, const Cluster& cluster,
                                                         const Placement& placement);
// Writes the map of adjust_for_openvino(placement) atomically and returns that adjustment (the
// caller reports the changes and judges the adjusted placement).
AdjustedPlacement export_openvino_affinity(const Graph& graph, const Cluster& cluster, const Placement& placement,
                                           const std::string& out_path);
// Reads a map written by export_openvino_affinity (or by hand: {"affinity": {op: device}} or a
// plain {op: device} object). Throws Error naming the file for anything else.
std::map<std::string, std::string> read_openvino_affinity(const std::string& path);

}  // namespace devplace
