#include "cost/cluster.h"

#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cost/fusion.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {

using nlohmann::json;

bool Device::supports(const std::string& op_type) const {
  return supported_ops.empty() || std::find(supported_ops.begin(), supported_ops.end(), op_type) != supported_ops.end();
}

void Cluster::set_link(const Link& l) {
  const int n = num_devices();
  if (static_cast<int>(links_.size()) != n * n) {
    links_.assign(n * n, Link{});
    has_.assign(n * n, false);
  }
  links_[l.src * n + l.dst] = l;
  has_[l.src * n + l.dst] = true;
}

bool Cluster::has_link(int src, int dst) const {
  const int n = num_devices();
  return static_cast<int>(has_.size()) == n * n && has_[src * n + dst];
}

const Link& Cluster::link(int src, int dst) const {
  if (!has_link(src, dst))
    throw Error(name, "", "no link from '" + devices.at(src).name + "' to '" + devices.at(dst).name + "'");
  return links_[src * num_devices() + dst];
}

int Cluster::find_device(const std::string& n) const {
  for (int i = 0; i < num_devices(); ++i)
    if (devices[i].name == n) return i;
  return -1;
}

int Cluster::first_of_kind(const std::string& kind) const {
  for (int i = 0; i < num_devices(); ++i)
    if (devices[i].kind == kind) return i;
  return -1;
}

void Cluster::validate(const std::string& file) const {
  if (devices.empty()) throw Error(file, "", "cluster has no devices", ErrorKind::invalid_argument);
  for (int i = 0; i < num_devices(); ++i) {
    const Device& d = devices[i];
    if (d.name.empty()) throw Error(file, "", "device #" + std::to_string(i) + " has no name", ErrorKind::corrupt);
    if (find_device(d.name) != i) throw Error(file, d.name, "duplicate device name");
    if (d.kind != "cpu" && d.kind != "gpu" && d.kind != "accel")
      throw Error(file, d.name, "device kind must be cpu, gpu or accel, not '" + d.kind + "'");
    if (!(d.peak_flops > 0)) throw Error(file, d.name, "peak FLOP/s must be positive");
    if (!(d.mem_bandwidth > 0)) throw Error(file, d.name, "memory bandwidth must be positive");
    if (d.memory_bytes < 0) throw Error(file, d.name, "memory capacity must not be negative");
    if (d.launch_overhead < 0 || !std::isfinite(d.launch_overhead))
      throw Error(file, d.name, "launch overhead must be a non-negative number");
    for (auto& [k, e] : d.efficiency)
      if (!(e > 0 && e <= 1)) throw Error(file, d.name, "efficiency of '" + k + "' must be in (0, 1]");
    if (!(d.default_efficiency > 0 && d.default_efficiency <= 1))
      throw Error(file, d.name, "default efficiency must be in (0, 1]");
    parse_fusion_rules(d.fusion, file, d.name);
  }
  for (int s = 0; s < num_devices(); ++s)
    for (int t = 0; t < num_devices(); ++t) {
      if (s == t) continue;
      if (!has_link(s, t))
        throw Error(file, "",
                    "no link from '" + devices[s].name + "' to '" + devices[t].name + "' (add it or a default_link)");
      const Link& l = links_[s * num_devices() + t];
      std::string pair = devices[s].name + "->" + devices[t].name;
      if (!(l.bandwidth > 0)) throw Error(file, "", "link " + pair + ": bandwidth must be positive");
      if (!(l.latency >= 0)) throw Error(file, "", "link " + pair + ": latency must not be negative");
    }
}

namespace {

// Every figure in a cluster file carries its unit in its key, so a reader never guesses.
double number(const json& obj, const char* key, double fallback, const std::string& file, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) return fallback;
  if (!it->is_number()) throw Error(file, where, std::string("'") + key + "' must be a number");
  return it->get<double>();
}

// A memory size in bytes: finite, not negative, and representable (a float beyond int64 would
// make the conversion undefined).
std::int64_t byte_count(double bytes, const char* key, const std::string& file, const std::string& where) {
  if (!(bytes >= 0) || bytes >= 9.2e18)
    throw Error(file, where, std::string("'") + key + "' must be a size between 0 and 8 EiB");
  return static_cast<std::int64_t>(bytes);
}

Link parse_link(const json& j, const Cluster& c, const std::string& file, bool named) {
  Link l;
  std::string where = "link";
  if (named) {
    std::string from = j.value("from", ""), to = j.value("to", "");
    where = "link " + from + "->" + to;
    l.src = c.find_device(from);
    l.dst = c.find_device(to);
    if (l.src < 0 || l.dst < 0) throw Error(file, where, "unknown device '" + (l.src < 0 ? from : to) + "'", ErrorKind::not_found);
    if (l.src == l.dst) throw Error(file, where, "a link needs two distinct devices");
  }
  l.bandwidth = number(j, "bandwidth_gbs", 16, file, where) * 1e9;
  l.latency = number(j, "latency_us", 10, file, where) * 1e-6;
  if (!(l.bandwidth > 0)) throw Error(file, where, "bandwidth must be positive");
  if (!(l.latency >= 0)) throw Error(file, where, "latency must not be negative");
  return l;
}

json toml_to_json(const toml::node& n) {
  if (auto* t = n.as_table()) {
    json o = json::object();
    for (auto& [k, v] : *t) o[std::string(k.str())] = toml_to_json(v);
    return o;
  }
  if (auto* a = n.as_array()) {
    json o = json::array();
    for (auto& v : *a) o.push_back(toml_to_json(v));
    return o;
  }
  // By type first: toml++'s value<int64_t>() on a float casts before it checks the range.
  if (n.is_integer()) return *n.value<int64_t>();
  if (n.is_floating_point()) return *n.value<double>();
  if (n.is_boolean()) return *n.value<bool>();
  if (n.is_string()) return *n.value<std::string>();
  return nullptr;
}

}  // namespace

Cluster cluster_from_json(const json& j, const std::string& file) {
  if (!j.is_object()) throw Error(file, "", "a cluster must be an object with 'devices'");
  Cluster c;
  c.name = j.value("name", std::filesystem::path(file).stem().string());
  c.description = j.value("description", "");
  auto devs = j.find("devices");
  if (devs == j.end() || !devs->is_array() || devs->empty()) throw Error(file, "", "cluster has no 'devices' list", ErrorKind::corrupt);
  for (auto& d : *devs) {
    Device dev;
    dev.name = d.value("name", "");
    const std::string& w = dev.name;
    dev.kind = d.value("kind", "cpu");
    dev.peak_flops = number(d, "peak_tflops", 1, file, w) * 1e12;
    dev.mem_bandwidth = number(d, "mem_bandwidth_gbs", 50, file, w) * 1e9;
    dev.memory_bytes = byte_count(number(d, "memory_gib", 0, file, w) * 1073741824.0, "memory_gib", file, w);
    if (d.contains("memory_bytes"))
      dev.memory_bytes = byte_count(number(d, "memory_bytes", 0, file, w), "memory_bytes", file, w);
    dev.launch_overhead = number(d, "launch_overhead_us", 0, file, w) * 1e-6;
    dev.default_efficiency = number(d, "default_efficiency", 0.5, file, w);
    if (auto e = d.find("efficiency"); e != d.end()) {
      if (!e->is_object()) throw Error(file, w, "'efficiency' must map op classes or types to fractions");
      for (auto& [k, v] : e->items()) {
        if (!v.is_number()) throw Error(file, w, "efficiency of '" + k + "' must be a number");
        dev.efficiency[k] = v.get<double>();
      }
    }
    if (auto s = d.find("supported_ops"); s != d.end()) dev.supported_ops = s->get<std::vector<std::string>>();
    if (auto f = d.find("fusion"); f != d.end()) {
      if (!f->is_array()) throw Error(file, w, "'fusion' must be a list of rule names ([] for none)");
      for (auto& r : *f) {
        if (!r.is_string()) throw Error(file, w, "'fusion' must be a list of rule names ([] for none)");
        dev.fusion.push_back(r.get<std::string>());
      }
    } else {
      dev.fusion = default_fusion_rules(dev.kind);
    }
    c.devices.push_back(std::move(dev));
  }
  // Check devices first so that link errors can name them.
  for (int i = 0; i < c.num_devices(); ++i)
    if (c.devices[i].name.empty()) throw Error(file, "", "device #" + std::to_string(i) + " has no name", ErrorKind::corrupt);
  if (auto dl = j.find("default_link"); dl != j.end()) {
    Link base = parse_link(*dl, c, file, false);
    for (int s = 0; s < c.num_devices(); ++s)
      for (int t = 0; t < c.num_devices(); ++t)
        if (s != t) {
          base.src = s, base.dst = t;
          c.set_link(base);
        }
  }
  if (auto ls = j.find("links"); ls != j.end()) {
    for (auto& l : *ls) {
      Link link = parse_link(l, c, file, true);
      c.set_link(link);
      if (l.value("bidirectional", false)) c.set_link(Link{link.dst, link.src, link.bandwidth, link.latency});
    }
  }
  c.validate(file);
  return c;
}

json cluster_to_json(const Cluster& c) {
  json j;
  j["name"] = c.name;
  j["description"] = c.description;
  j["devices"] = json::array();
  for (auto& d : c.devices) {
    json o;
    o["name"] = d.name;
    o["kind"] = d.kind;
    o["peak_tflops"] = d.peak_flops / 1e12;
    o["mem_bandwidth_gbs"] = d.mem_bandwidth / 1e9;
    o["memory_bytes"] = d.memory_bytes;
    o["launch_overhead_us"] = d.launch_overhead * 1e6;
    o["default_efficiency"] = d.default_efficiency;
    o["efficiency"] = d.efficiency;
    if (!d.supported_ops.empty()) o["supported_ops"] = d.supported_ops;
    o["fusion"] = d.fusion;
    j["devices"].push_back(o);
  }
  j["links"] = json::array();
  for (int s = 0; s < c.num_devices(); ++s)
    for (int t = 0; t < c.num_devices(); ++t)
      if (s != t && c.has_link(s, t)) {
        const Link& l = c.link(s, t);
        j["links"].push_back({{"from", c.devices[s].name},
                              {"to", c.devices[t].name},
                              {"bandwidth_gbs", l.bandwidth / 1e9},
                              {"latency_us", l.latency * 1e6}});
      }
  return j;
}

Cluster without_fusion(Cluster c) {
  for (auto& d : c.devices) d.fusion.clear();
  return c;
}

std::vector<std::string> cluster_presets() { return {"paper", "server", "nvlink4"}; }

Cluster load_cluster(const std::string& spec) {
  std::string path = spec;
  if (!file_exists(path)) {
    auto presets = cluster_presets();
    if (std::find(presets.begin(), presets.end(), spec) == presets.end()) {
      std::string list;
      for (auto& p : presets) list += (list.empty() ? "" : ", ") + p;
      throw Error(spec, "", "no such cluster file or preset (presets: " + list + ")", ErrorKind::not_found);
    }
    path = home_dir() + "/clusters/" + spec + ".toml";
  }
  std::string text = read_file(path);
  json j;
  if (path.size() >= 5 && path.substr(path.size() - 5) == ".toml") {
    try {
      j = toml_to_json(toml::parse(text, path));
    } catch (const toml::parse_error& e) {
      throw Error(path, "",
                  std::string("invalid TOML at line ") + std::to_string(e.source().begin.line) + ": " +
                      std::string(e.description()), ErrorKind::corrupt);
    }
  } else {
    try {
      j = json::parse(text);
    } catch (const json::exception& e) {
      throw Error(path, "", std::string("invalid JSON: ") + e.what(), ErrorKind::corrupt);
    }
  }
  try {
    return cluster_from_json(j, path);
  } catch (const json::exception& e) {
    throw Error(path, "", std::string("malformed cluster: ") + e.what(), ErrorKind::corrupt);
  }
}

}  // namespace devplace
