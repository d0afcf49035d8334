// Cluster: the devices a graph can be placed on and the directed links between them.
// Loaded from a TOML or JSON file or a bundled preset (clusters/<name>.toml). Every ordered pair of
// distinct devices has a link (a file may give `default_link` for pairs it does not list).
// Immutable after loading; safe to share between threads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace devplace {

struct Device {
  std::string name;                          // unique, e.g. "cpu", "gpu0"
  std::string kind = "cpu";                  // cpu | gpu | accel
  double peak_flops = 1e12;                  // FLOP/s at full efficiency
  double mem_bandwidth = 50e9;               // bytes/s
  std::int64_t memory_bytes = 0;             // capacity; 0 = unlimited
  double launch_overhead = 0;                // seconds added to every op that runs a kernel
  double default_efficiency = 0.5;           // fraction of peak reached by op classes not listed below
  std::map<std::string, double> efficiency;  // op class name (see op_costs.h) -> fraction of peak
  std::vector<std::string> supported_ops;    // op types this device runs; empty = all
  // Fusion rules its runtime applies (cost/fusion.h names them). A device built in code fuses
  // nothing; a cluster file without `fusion` gets default_fusion_rules(kind).
  std::vector<std::string> fusion;
  bool supports(const std::string& op_type) const;
};

struct Link {
  int src = 0, dst = 0;
  double bandwidth = 16e9;  // bytes/s
  double latency = 10e-6;   // seconds per transfer
};

class Cluster {
 public:
  std::string name;
  std::string description;
  std::vector<Device> devices;

  // Adds a link; a later link for the same pair replaces an earlier one.
  void set_link(const Link& l);
  // REQUIRES src != dst and both valid. Throws Error if the pair has no link.
  const Link& link(int src, int dst) const;
  bool has_link(int src, int dst) const;
  int num_devices() const { return static_cast<int>(devices.size()); }
  // Returns the device index or -1.
  int find_device(const std::string& name) const;
  // Index of the first device of `kind`, or -1.
  int first_of_kind(const std::string& kind) const;
  // Checks names, positive figures and that every pair is linked; throws Error naming `file`.
  void validate(const std::string& file) const;

 private:
  std::vector<Link> links_;  // dense: src * n + dst
  std::vector<bool> has_;
};

// The same cluster with every device's fusion rules removed (`--no-fusion`: one kernel per op).
Cluster without_fusion(Cluster c);

// `spec` is a JSON file path or a preset name ("paper", "server", "nvlink4").
Cluster load_cluster(const std::string& spec);
Cluster cluster_from_json(const nlohmann::json& j, const std::string& file);
nlohmann::json cluster_to_json(const Cluster& c);
std::vector<std::string> cluster_presets();

}  // namespace devplace
