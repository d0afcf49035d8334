#include "report/trace.h"

#include <nlohmann/json.hpp>

#include "util/files.h"

namespace devplace {

using nlohmann::json;

std::string chrome_trace_json(const Problem& problem, const Schedule& s) {
  const Graph& g = problem.graph();
  const Cluster& c = problem.cluster();
  const int D = c.num_devices();
  json events = json::array();
  auto name_process = [&](int pid, const std::string& name) {
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", name}}}});
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
  };
  for (int d = 0; d < D; ++d) name_process(d, c.devices[d].name);
  for (int i = 0; i < static_cast<int>(s.ops.size()); ++i) {
    const auto& sp = s.ops[i];
    const Op& op = g.op(i);
    events.push_back({{"ph", "X"},
                      {"name", op.name},
                      {"cat", op.type},
                      {"pid", sp.device},
                      {"tid", 0},
                      {"ts", sp.start * 1e6},
                      {"dur", (sp.end - sp.start) * 1e6},
                      {"args", {{"type", op.type}, {"flops", op.flops}}}});
  }
  // Links get their own lanes after the devices, named "src -> dst".
  std::vector<int> link_pid(static_cast<std::size_t>(D) * D, -1);
  int next = D;
  for (const auto& tr : s.transfers) {
    int& pid = link_pid[tr.src * D + tr.dst];
    if (pid < 0) {
      pid = next++;
      name_process(pid, c.devices[tr.src].name + " -> " + c.devices[tr.dst].name);
    }
    const Tensor& t = g.tensor(tr.tensor);
    events.push_back({{"ph", "X"},
                      {"name", t.name},
                      {"cat", "transfer"},
                      {"pid", pid},
                      {"tid", 0},
                      {"ts", tr.start * 1e6},
                      {"dur", (tr.end - tr.start) * 1e6},
                      {"args", {{"bytes", problem.tensor_bytes(tr.tensor)}}}});
  }
  json j = {{"traceEvents", events},
            {"displayTimeUnit", "ms"},
            {"otherData", {{"model", g.name()}, {"cluster", c.name}, {"makespan_ms", s.makespan * 1e3}}}};
  return j.dump() + "\n";
}

void write_chrome_trace(const std::string& path, const Problem& problem, const Schedule& schedule) {
  write_file_atomic(path, chrome_trace_json(problem, schedule));
}

}  // namespace devplace
