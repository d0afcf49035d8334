#include "io/torch_device_map.h"

#include <nlohmann/json.hpp>
#include <set>

#include "graph/op_costs.h"
#include "util/files.h"

namespace devplace {

std::string torch_module_path(const std::string& name) {
  if (name.empty() || name[0] != '/') return "";
  std::vector<std::string> parts;
  std::size_t start = 1;
  for (std::size_t k = 1; k <= name.size(); ++k)
    if (k == name.size() || name[k] == '/') {
      parts.push_back(name.substr(start, k - start));
      start = k + 1;
    }
  parts.pop_back();  // the node's own name ("Conv", "Add_2")
  // A component is either the qualified name so far ("layer1.0" under "layer1") or an
  // attribute of the module so far ("conv1").
  std::string path;
  for (const auto& c : parts) {
    if (c.empty()) continue;
    if (!path.empty() && c.rfind(path + ".", 0) == 0)
      path = c;
    else
      path = path.empty() ? c : path + "." + c;
  }
  return path;
}

std::vector<std::string> torch_device_names(const Cluster& cluster) {
  std::vector<std::string> names;
  int gpus = 0;
  for (const auto& d : cluster.devices)
    names.push_back(d.kind == "cpu" ? "cpu" : d.kind == "gpu" ? "cuda:" + std::to_string(gpus++) : d.name);
  return names;
}

namespace {

bool within(const std::string& module, const std::string& ancestor) {
  return ancestor.empty() || module == ancestor || module.rfind(ancestor + ".", 0) == 0;
}

// The child of `parent` on the way to `module` (REQUIRES within(module, parent), module != parent).
std::string child_towards(const std::string& module, const std::string& parent) {
  const std::size_t from = parent.empty() ? 0 : parent.size() + 1;
  const std::size_t dot = module.find('.', from);
  return dot == std::string::npos ? module : module.substr(0, dot);
}

}  // namespace

TorchDeviceMap torch_device_map(const Graph& g, const Placement& p) {
  const int n = g.num_ops();
  TorchDeviceMap m;
  m.module_level = p;
  std::vector<std::string> module(n);
  std::vector<char> kernel(n);
  for (int i = 0; i < n; ++i) {
    module[i] = torch_module_path(g.op(i).name);
    kernel[i] = !is_folded(g, g.op(i));
  }
  // Depth first from the root: a module whose kernel ops share one device is assigned whole.
  std::vector<int> assigned(n, -1);  // device from the module map, -1 for loose ops
  std::vector<std::string> stack = {""};
  std::set<std::string> seen;
  while (!stack.empty()) {
    const std::string mod = stack.back();
    stack.pop_back();
    std::set<int> devices;
    std::set<std::string> children;
    for (int i = 0; i < n; ++i) {
      if (!kernel[i] || !within(module[i], mod)) continue;
      devices.insert(p[i]);
      if (module[i] != mod) children.insert(child_towards(module[i], mod));
    }
    if (devices.empty()) continue;
    if (devices.size() == 1) {
      m.modules[mod] = *devices.begin();
      for (int i = 0; i < n; ++i)
        if (kernel[i] && within(module[i], mod)) assigned[i] = *devices.begin();
      continue;
    }
    for (int i = 0; i < n; ++i)
      if (kernel[i] && module[i] == mod) m.loose_ops[g.op(i).name] = p[i];
    for (const auto& c : children)
      if (seen.insert(c).second) stack.push_back(c);
  }
  // Loose ops run where their data is: on the device of their first input's producer.
  for (int i = 0; i < n; ++i) {
    if (!kernel[i]) continue;
    if (assigned[i] >= 0) {
      m.module_level[i] = assigned[i];
      continue;
    }
    for (int t : g.op(i).inputs) {
      const int src = g.tensor(t).producer;
      if (src >= 0 && kernel[src]) {
        m.module_level[i] = m.module_level[src];
        break;
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!kernel[i]) continue;
    ++m.kernel_ops;
    if (m.module_level[i] == p[i])
      ++m.preserved;
    else
      m.moved.push_back(g.op(i).name);
  }
  return m;
}

void write_torch_device_map(const std::string& path, const TorchDeviceMap& m, const Cluster& cluster) {
  const auto names = torch_device_names(cluster);
  nlohmann::json devices = nlohmann::json::object(), modules = nlohmann::json::object(),
                 loose = nlohmann::json::object();
  for (int d = 0; d < cluster.num_devices(); ++d) devices[cluster.devices[d].name] = names[d];
  for (auto& [mod, d] : m.modules) modules[mod] = names.at(d);
  for (auto& [op, d] : m.loose_ops) loose[op] = names.at(d);
  nlohmann::json j = {{"format", "devplace-torch-device-map"},
                      {"devices", devices},
                      {"device_map", modules},
                      {"loose_ops", loose},
                      {"kernel_ops", m.kernel_ops},
                      {"preserved_ops", m.preserved},
                      {"moved_ops", m.moved}};
  write_file_atomic(path, j.dump(1) + "\n");
}

}  // namespace devplace
