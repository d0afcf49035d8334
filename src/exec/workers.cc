// Worker specs and how a devplace Cluster maps onto them (torch-free).
#include <toml++/toml.h>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "exec/executor.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {

std::string WorkerSpec::str() const {
  return std::string(kind == Kind::cpu ? "cpu:" : "cuda:") + std::to_string(index);
}

WorkerSpec parse_worker(const std::string& text) {
  auto colon = text.find(':');
  WorkerSpec s;
  std::string kind = text.substr(0, colon);
  if (colon == std::string::npos || (kind != "cpu" && kind != "cuda"))
    throw Error("", "", "worker '" + text + "' must look like cpu:N or cuda:N");
  s.kind = kind == "cpu" ? WorkerSpec::Kind::cpu : WorkerSpec::Kind::cuda;
  try {
    std::size_t used = 0;
    s.index = std::stoi(text.substr(colon + 1), &used);
    if (used != text.size() - colon - 1 || s.index < 0) throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw Error("", "", "worker '" + text + "' must look like cpu:N or cuda:N");
  }
  return s;
}

namespace {

// The values of `key` in the cluster file's devices, as text, by device name (empty for presets;
// devices without the key, or with an empty one, are left out).
std::map<std::string, std::string> device_keys(const std::string& spec, const std::string& key) {
  std::map<std::string, std::string> keys;
  if (spec.empty() || !file_exists(spec)) return keys;
  const std::string ext = std::filesystem::path(spec).extension().string();
  try {
    if (ext == ".toml") {
      toml::table t = toml::parse_file(spec);
      if (auto* devs = t["devices"].as_array())
        for (auto& d : *devs)
          if (auto* dt = d.as_table()) {
            const auto& v = (*dt)[key];
            const std::string name = (*dt)["name"].value_or(std::string());
            if (auto text = v.value<std::string>())
              keys[name] = *text;
            else if (auto number = v.value<std::int64_t>())
              keys[name] = std::to_string(*number);
          }
    } else {
      auto j = nlohmann::json::parse(read_file(spec));
      for (auto& d : j.value("devices", nlohmann::json::array()))
        if (d.contains(key)) keys[d.value("name", "")] = d[key].is_string() ? d[key].get<std::string>() : d[key].dump();
    }
  } catch (const std::exception&) {
    // load_cluster has already parsed this file and reported any syntax error.
  }
  keys.erase("");  // a device without a name
  std::erase_if(keys, [](const auto& kv) { return kv.second.empty(); });
  return keys;
}

}  // namespace

std::vector<int> device_ranks_for_cluster(const Cluster& cluster, const std::string& spec) {
  const auto keys = device_keys(spec, "rank");
  std::vector<int> out;
  for (const Device& d : cluster.devices) {
    const auto it = keys.find(d.name);
    int rank = 0;
    if (it != keys.end()) {
      std::size_t used = 0;
      try {
        rank = std::stoi(it->second, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != it->second.size() || rank < 0)
        throw Error(spec, d.name, "rank must be a process number, 0 or more; got " + it->second);
    }
    out.push_back(rank);
  }
  return out;
}

std::vector<WorkerSpec> workers_for_cluster(const Cluster& cluster, const std::string& spec) {
  auto keys = device_keys(spec, "worker");
  std::vector<WorkerSpec> out;
  int cpus = 0, gpus = 0;
  for (const Device& d : cluster.devices) {
    if (auto it = keys.find(d.name); it != keys.end()) {
      try {
        out.push_back(parse_worker(it->second));
      } catch (const Error& e) {
        throw Error(spec, d.name, e.reason(), e.kind());
      }
    } else if (d.kind == "cpu") {
      out.push_back({WorkerSpec::Kind::cpu, cpus++});
    } else if (d.kind == "gpu") {
      out.push_back({WorkerSpec::Kind::cuda, gpus++});
    } else {
      throw Error(spec, d.name,
                  "device kind '" + d.kind + "' has no execution worker; give it worker = \"cpu:N\" or \"cuda:N\"", ErrorKind::unsupported);
    }
  }
  return out;
}

}  // namespace devplace
