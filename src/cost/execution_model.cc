#include "cost/execution_model.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "cost/cluster.h"
#include "util/error.h"

namespace devplace {

using nlohmann::json;

const DeviceExecution* ExecutionModel::device(const std::string& name) const {
  for (const DeviceExecution& d : devices)
    if (d.device == name) return &d;
  return nullptr;
}

const CrossingExecution* ExecutionModel::crossing(const std::string& from, const std::string& to) const {
  for (const CrossingExecution& c : crossings)
    if (c.from == from && c.to == to) return &c;
  return nullptr;
}

ExecutionModel::Copies copies_from_name(const std::string& name, const std::string& file, const std::string& node) {
  if (name == "async") return ExecutionModel::Copies::async;
  if (name == "blocking") return ExecutionModel::Copies::blocking;
  throw Error(file, node, "copies must be \"async\" or \"blocking\", not '" + name + "'");
}

const char* copies_name(ExecutionModel::Copies copies) {
  return copies == ExecutionModel::Copies::async ? "async" : "blocking";
}

ExecutionModel default_execution_model(const Cluster& cluster, ExecutionModel::Copies copies) {
  ExecutionModel m;
  m.copies = copies;
  for (const Device& d : cluster.devices) {
    DeviceExecution e;
    e.device = d.name;
    e.async = d.kind != "cpu";
    e.dispatch = e.async ? 1e-6 : d.launch_overhead;
    e.kernel_min = e.async ? 2e-6 : 0;
    m.devices.push_back(e);
  }
  for (int s = 0; s < cluster.num_devices(); ++s)
    for (int t = 0; t < cluster.num_devices(); ++t)
      if (s != t && cluster.has_link(s, t)) {
        const Link& l = cluster.link(s, t);
        m.crossings.push_back({cluster.devices[s].name, cluster.devices[t].name, l.latency, l.bandwidth});
      }
  return m;
}

namespace {

double number(const json& entry, const char* key, double fallback, const std::string& file, const std::string& node,
              bool positive) {
  const auto it = entry.find(key);
  if (it == entry.end()) return fallback;
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0 ||
      (positive && !(it->get<double>() > 0)))
    throw Error(file, node, std::string(key) + (positive ? " must be a positive number" : " must be a non-negative number"));
  return it->get<double>();
}

std::string text(const json& entry, const char* key, const std::string& file, const std::string& node) {
  const auto it = entry.find(key);
  if (it == entry.end() || !it->is_string()) throw Error(file, node, std::string("needs a \"") + key + "\" name");
  return it->get<std::string>();
}

}  // namespace

ExecutionModel execution_model_from_json(const json& j, const std::string& file) {
  if (!j.is_object()) throw Error(file, "execution", "must be an object (docs/design/cost-model.md, \"Execution model\")");
  ExecutionModel m;
  m.copies = copies_from_name(j.value("copies", std::string("async")), file, "execution");
  m.staging_bandwidth = number(j, "staging_bandwidth_gbs", m.staging_bandwidth / 1e9, file, "execution", true) * 1e9;
  m.fit_error = number(j, "fit_error", 0, file, "execution", false);
  m.fitted_on = static_cast<int>(number(j, "fitted_on", 0, file, "execution", false));
  if (auto ds = j.find("devices"); ds != j.end()) {
    if (!ds->is_array()) throw Error(file, "execution", "devices must be a list");
    for (const json& d : *ds) {
      if (!d.is_object()) throw Error(file, "execution", "every device entry must be an object");
      DeviceExecution e;
      e.device = text(d, "device", file, "execution device");
      const std::string node = "execution device " + e.device;
      if (m.device(e.device)) throw Error(file, node, "listed twice");
      if (auto a = d.find("async"); a != d.end()) {
        if (!a->is_boolean()) throw Error(file, node, "async must be true or false");
        e.async = a->get<bool>();
      }
      e.dispatch = number(d, "dispatch_us", 0, file, node, false) * 1e-6;
      e.wake = number(d, "wake_us", 0, file, node, false) * 1e-6;
      e.op_scale = number(d, "op_scale", 1, file, node, true);
      e.kernel_min = number(d, "kernel_min_us", 0, file, node, false) * 1e-6;
      e.device_scale = number(d, "device_scale", 1, file, node, false);
      m.devices.push_back(e);
    }
  }
  if (auto cs = j.find("crossings"); cs != j.end()) {
    if (!cs->is_array()) throw Error(file, "execution", "crossings must be a list");
    for (const json& c : *cs) {
      if (!c.is_object()) throw Error(file, "execution", "every crossing entry must be an object");
      CrossingExecution e;
      e.from = text(c, "from", file, "execution crossing");
      e.to = text(c, "to", file, "execution crossing");
      const std::string node = "execution crossing " + e.from + " -> " + e.to;
      if (e.from == e.to) throw Error(file, node, "a crossing joins two different devices");
      if (m.crossing(e.from, e.to)) throw Error(file, node, "listed twice");
      e.fixed = number(c, "fixed_us", 0, file, node, false) * 1e-6;
      e.bandwidth = number(c, "bandwidth_gbs", 10, file, node, true) * 1e9;
      m.crossings.push_back(e);
    }
  }
  return m;
}

json execution_model_to_json(const ExecutionModel& m) {
  json j = {{"copies", copies_name(m.copies)},
            {"staging_bandwidth_gbs", m.staging_bandwidth / 1e9},
            {"fit_error", m.fit_error},
            {"fitted_on", m.fitted_on},
            {"devices", json::array()},
            {"crossings", json::array()}};
  for (const DeviceExecution& d : m.devices)
    j["devices"].push_back({{"device", d.device},
                            {"async", d.async},
                            {"dispatch_us", d.dispatch * 1e6},
                            {"wake_us", d.wake * 1e6},
                            {"op_scale", d.op_scale},
                            {"kernel_min_us", d.kernel_min * 1e6},
                            {"device_scale", d.device_scale}});
  for (const CrossingExecution& c : m.crossings)
    j["crossings"].push_back(
        {{"from", c.from}, {"to", c.to}, {"fixed_us", c.fixed * 1e6}, {"bandwidth_gbs", c.bandwidth / 1e9}});
  return j;
}

}  // namespace devplace
