#include "cost/local_machine.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace devplace {

namespace {

// The value after "key" and its colon on a /proc/cpuinfo line, or "" when the line is not it.
std::string field(const std::string& line, const std::string& key) {
  if (line.compare(0, key.size(), key) != 0) return "";
  const auto colon = line.find(':');
  if (colon == std::string::npos) return "";
  const auto start = line.find_first_not_of(" \t", colon + 1);
  return start == std::string::npos ? "" : line.substr(start);
}

}  // namespace

CpuDescription describe_cpu() {
  CpuDescription cpu;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    cpu.cores = std::max(1, CPU_COUNT(&set));
  else
    cpu.cores = std::max(1u, std::thread::hardware_concurrency());
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  double mhz = 0;
  bool avx512 = false, avx2 = false, fma = false;
  while (std::getline(in, line)) {
    if (auto v = field(line, "model name"); !v.empty()) cpu.model = v;
    if (auto v = field(line, "cpu MHz"); !v.empty()) mhz = std::max(mhz, std::atof(v.c_str()));
    if (auto v = field(line, "flags"); !v.empty()) {
      const std::string flags = " " + v + " ";
      avx512 = flags.find(" avx512f ") != std::string::npos;
      avx2 = flags.find(" avx2 ") != std::string::npos;
      fma = flags.find(" fma ") != std::string::npos;
    }
  }
  if (mhz > 0) cpu.ghz = mhz / 1000;
  cpu.flops_per_cycle = avx512 ? 64 : avx2 && fma ? 32 : 8;
  return cpu;
}

Cluster machine_cluster(const MachineDescription& m) {
  Cluster c;
  c.name = "local";
  char text[256];
  std::snprintf(text, sizeof text, "this machine: %d single-thread CPU workers (%s)%s", m.cpu.cores,
                m.cpu.model.c_str(), m.gpus.empty() ? "" : " and its CUDA GPUs");
  c.description = text;
  const std::map<std::string, double> cpu_efficiency = {{"conv", 0.75}, {"matmul", 0.8},         {"pool", 0.2},
                                                        {"elementwise", 0.2}, {"normalization", 0.2}, {"softmax", 0.2}};
  for (int k = 0; k < m.cpu.cores; ++k) {
    Device d;
    d.name = "cpu" + std::to_string(k);
    d.kind = "cpu";
    d.peak_flops = m.cpu.ghz * 1e9 * m.cpu.flops_per_cycle;
    d.mem_bandwidth = 10e9;
    d.launch_overhead = 10e-6;
    d.default_efficiency = 0.5;
    d.efficiency = cpu_efficiency;
    c.devices.push_back(d);
  }
  for (std::size_t k = 0; k < m.gpus.size(); ++k) {
    const GpuDescription& g = m.gpus[k];
    Device d;
    d.name = "gpu" + std::to_string(k);
    d.kind = "gpu";
    d.peak_flops = g.peak_flops > 0 ? g.peak_flops : 10e12;
    d.mem_bandwidth = g.mem_bandwidth > 0 ? g.mem_bandwidth : 1e12;
    d.memory_bytes = g.memory_bytes;
    d.launch_overhead = 5e-6;
    d.default_efficiency = 0.3;
    d.efficiency = {{"conv", 0.35}, {"matmul", 0.4},         {"pool", 0.2},
                    {"elementwise", 0.2}, {"normalization", 0.2}, {"softmax", 0.2}};
    c.devices.push_back(d);
  }
  for (int a = 0; a < c.num_devices(); ++a)
    for (int b = 0; b < c.num_devices(); ++b) {
      if (a == b) continue;
      const bool both_cpu = c.devices[a].kind == "cpu" && c.devices[b].kind == "cpu";
      c.set_link({a, b, both_cpu ? 8e9 : 25e9, both_cpu ? 20e-6 : 10e-6});
    }
  return c;
}

std::string cluster_toml(const Cluster& c, const std::string& header_comment) {
  std::ostringstream o;
  o.precision(6);
  std::istringstream header(header_comment);
  for (std::string line; std::getline(header, line);) o << "# " << line << "\n";
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char ch : s) q += ch == '"' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
    return q + "\"";
  };
  o << "name = " << quoted(c.name) << "\ndescription = " << quoted(c.description) << "\n";
  int cpus = 0, gpus = 0;
  for (const Device& d : c.devices) {
    o << "\n[[devices]]\nname = " << quoted(d.name) << "\nkind = " << quoted(d.kind) << "\n";
    if (d.kind == "cpu") o << "worker = \"cpu:" << cpus++ << "\"\n";
    if (d.kind == "gpu") o << "worker = \"cuda:" << gpus++ << "\"\n";
    o << "peak_tflops = " << d.peak_flops / 1e12 << "\nmem_bandwidth_gbs = " << d.mem_bandwidth / 1e9 << "\n";
    if (d.memory_bytes > 0) o << "memory_gib = " << static_cast<double>(d.memory_bytes) / 1073741824.0 << "\n";
    o << "launch_overhead_us = " << d.launch_overhead * 1e6 << "\nfusion = [";
    for (std::size_t k = 0; k < d.fusion.size(); ++k) o << (k ? ", " : "") << quoted(d.fusion[k]);
    o << "]\ndefault_efficiency = " << d.default_efficiency << "\nefficiency = {";
    bool first = true;
    for (const auto& [k, e] : d.efficiency) o << (first ? " " : ", ") << k << " = " << e, first = false;
    o << (d.efficiency.empty() ? "}" : " }") << "\n";
  }
  for (int a = 0; a < c.num_devices(); ++a)
    for (int b = 0; b < c.num_devices(); ++b)
      if (a != b && c.has_link(a, b)) {
        const Link& l = c.link(a, b);
        o << "\n[[links]]\nfrom = " << quoted(c.devices[a].name) << "\nto = " << quoted(c.devices[b].name)
          << "\nbandwidth_gbs = " << l.bandwidth / 1e9 << "\nlatency_us = " << l.latency * 1e6 << "\n";
      }
  return o.str();
}

}  // namespace devplace
