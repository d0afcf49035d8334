#include "io/measured_runs.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "io/placement_io.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/stats.h"

namespace devplace {

namespace fs = std::filesystem;

std::vector<MeasuredRun> read_measured_runs(const std::string& path, const Graph& g, const Cluster& c,
                                            std::string* copies) {
  const nlohmann::json j = read_json_file(path);
  if (!j.is_object() || !j.contains("placements") || !j["placements"].is_array())
    throw Error(path, "", "not a `devplace run --json` file (expected a \"placements\" list)");
  if (copies) {
    const auto it = j.find("copies");
    if (it != j.end() && !it->is_string()) throw Error(path, "copies", "must be \"async\" or \"blocking\"");
    *copies = it == j.end() ? "blocking" : it->get<std::string>();
  }
  std::vector<MeasuredRun> out;
  int row = 0;
  for (const nlohmann::json& r : j["placements"]) {
    const std::string node = "placements[" + std::to_string(row++) + "]";
    if (!r.is_object() || !r.contains("median_ms") || !r["median_ms"].is_number() ||
        !(r["median_ms"].get<double>() > 0))
      throw Error(path, node, "needs a positive \"median_ms\"");
    MeasuredRun m;
    m.label = r.value("label", node);
    m.median = r["median_ms"].get<double>() * 1e-3;
    m.copies = r.value("copies", 0);
    if (auto s = r.find("samples_ms"); s != r.end() && s->is_array())
      for (const auto& v : *s)
        if (v.is_number()) m.samples.push_back(v.get<double>() * 1e-3);
    if (auto p = r.find("placement"); p != r.end()) {
      if (!p->is_object()) throw Error(path, node, "\"placement\" must map op names to device names");
      m.placement.assign(g.num_ops(), -1);
      for (auto& [op, dev] : p->items()) {
        const int i = g.find_op(op);
        if (i < 0) throw Error(path, node + " op " + op, "no such op in model '" + g.name() + "'", ErrorKind::not_found);
        const int d = dev.is_string() ? c.find_device(dev.get<std::string>()) : -1;
        if (d < 0) throw Error(path, node + " op " + op, "names no device of cluster '" + c.name + "'", ErrorKind::not_found);
        m.placement[i] = d;
      }
      for (int i = 0; i < g.num_ops(); ++i)
        if (m.placement[i] < 0) throw Error(path, node + " op " + g.op(i).name, "op is not placed");
    } else if (m.label.rfind("all on ", 0) == 0) {
      const int d = c.find_device(m.label.substr(7));
      if (d < 0) throw Error(path, node, "label '" + m.label + "' names no device of cluster '" + c.name + "'", ErrorKind::not_found);
      m.placement.assign(g.num_ops(), d);
    } else {
      fs::path file = fs::path(path).parent_path() / m.label;
      if (!fs::exists(file)) file = m.label;
      if (!fs::exists(file))
        throw Error(path, node,
                    "no \"placement\" map, and the label '" + m.label + "' is no placement file (looked beside the "
                    "run file and in the working directory)");
      m.placement = read_placement(file.string(), g, c);
    }
    out.push_back(std::move(m));
  }
  if (out.empty()) throw Error(path, "", "has no measured placements", ErrorKind::corrupt);
  return out;
}

int drop_unsettled_rounds(std::vector<MeasuredRun>& runs) {
  if (runs.empty()) return 0;
  const std::size_t rounds = runs.front().samples.size();
  for (const MeasuredRun& r : runs)
    if (r.samples.size() != rounds) return 0;
  std::size_t drop = 0;
  while (drop < rounds / 2) {
    std::vector<double> ratios;
    for (const MeasuredRun& r : runs) ratios.push_back(r.samples[drop] / median(r.samples));
    if (median(ratios) <= 1.10) break;
    ++drop;
  }
  if (drop == 0) return 0;
  for (MeasuredRun& r : runs) {
    r.samples.erase(r.samples.begin(), r.samples.begin() + static_cast<long>(drop));
    r.median = median(r.samples);
  }
  return static_cast<int>(drop);
}

}  // namespace devplace
