// A placement as PyTorch users apply it: module path -> device. torch.onnx names each node after
// the module that made it ("/layer1/layer1.0/conv1/Conv" is module layer1.0.conv1), so a
// placement of a torch.onnx export maps back to modules. The map names the coarsest modules
// whose ops all share a device (what Hugging Face `device_map` / `module.to()` expect); ops that
// a split module runs itself (a residual add in a block's forward) cannot be placed by module:
// in PyTorch they run where their input is, which is how the module-level placement places them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cost/cluster.h"
#include "graph/graph.h"
#include "sim/schedule.h"

namespace devplace {

// "/layer1/layer1.0/conv1/Conv" -> "layer1.0.conv1"; "/Flatten" and names without '/' -> "" (the
// root module).
std::string torch_module_path(const std::string& onnx_node_name);

// Torch device of each cluster device: cpu -> "cpu", the i-th gpu -> "cuda:i", others their name.
std::vector<std::string> torch_device_names(const Cluster& cluster);

struct TorchDeviceMap {
  std::map<std::string, int> modules;    // coarsest unsplit module -> device index
  std::map<std::string, int> loose_ops;  // ops run by a split module itself -> their op-level device
  Placement module_level;                // what applying `modules` gives (loose ops follow their input)
  int kernel_ops = 0;                    // ops that run a kernel (constants excluded)
  int preserved = 0;                     // of those, ops whose module-level device is the op-level one
  std::vector<std::string> moved;        // the others, by name
};

// REQUIRES: placement.size() == graph.num_ops().
TorchDeviceMap torch_device_map(const Graph& graph, const Placement& placement);

// Writes {"format", "devices", "device_map", "loose_ops", "kernel_ops", "preserved_ops"} atomically.
void write_torch_device_map(const std::string& path, const TorchDeviceMap& map, const Cluster& cluster);

}  // namespace devplace
