// `devplace compare MODEL`: every placer on one model and cluster, one row each.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command_list.h"
#include "place/compare.h"
#include "service/placing.h"
#include "util/error.h"

namespace devplace::cli {

namespace {

std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::stringstream ss(item);
    std::string part;
    while (std::getline(ss, part, ','))
      if (!part.empty()) out.push_back(part);
  }
  return out;
}

}  // namespace

void add_compare_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    SearchArgs search;
    std::vector<std::string> algos;
    bool json = false, csv = false;
    std::string policy;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("compare", "Run every placer on one model and cluster; one row per placer");
  add_model_options(*cmd, a->model);
  cmd->add_option("--algos", a->algos,
                  "Comma-separated algorithms (default: single devices, the classical set (with tarnawski-greedy and "
                  "tarnawski-dp under --objective tarnawski), hsdag, hsdag+polish and learned)");
  add_search_options(*cmd, a->search);
  cmd->add_option("--policy", a->policy, "Policy file for the learned* rows (default: the shipped one)");
  cmd->add_flag("--json", a->json, "Print JSON");
  cmd->add_flag("--csv", a->csv, "Print CSV");
  cmd->callback([a] {
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    std::vector<std::string> algos = split_list(a->algos);
    PlaceOptions options = place_options(a->search);
    options.learned.policy_file = a->policy;
    if (algos.empty()) {
      algos = default_algorithms(pb, options.objective);
      algos.push_back("hsdag");
      algos.push_back("hsdag+polish");
      algos.push_back("learned");  // the shipped policy of the objective, zero-shot
    }
    if (!a->policy.empty())
      for (const auto& name : algos)
        if (name.rfind("hsdag", 0) == 0 || name == "placeto")
          throw Error(a->policy, "",
                      "--policy is for the learned* rows; list them with --algos and compare " + name + " apart");
    Comparison cmp = compare_placers(pb, algos, options, [](const Problem& p, const std::string& name) { return make_any_placer(p, name); });
    // 0 = no figure: the row is infeasible, or no single device is (memory-limited problems).
    auto speedup = [](double ref, double v) {
      return std::isfinite(v) && v > 0 && std::isfinite(ref) && ref > 0 ? ref / v : 0.0;
    };
    auto ratio_cell = [](double x) {
      char cell[32] = "-";
      if (x > 0) std::snprintf(cell, sizeof cell, "%.2fx", x);
      return std::string(cell);
    };
    if (a->json) {
      nlohmann::json j = {{"model", pb.graph().name()},
                          {"cluster", pb.cluster().name},
                          {"objective", a->search.objective},
                          {"lower_bound_ms", cmp.lower_bound * 1e3}};
      for (const auto& r : cmp.rows)
        j["rows"].push_back({{"algorithm", r.algorithm},
                             // Infeasible rows have no latency: null, not a number a script could sort.
                             {"latency_ms", r.verdict.feasible ? nlohmann::json(r.verdict.latency * 1e3) : nullptr},
                             {"feasible", r.verdict.feasible},
                             {"speedup_vs_slowest_single", speedup(cmp.slowest_single, r.verdict.latency)},
                             {"speedup_vs_best_single", speedup(cmp.best_single, r.verdict.latency)},
                             {"gap_to_lower_bound",
                              r.verdict.feasible ? nlohmann::json(r.verdict.latency / cmp.lower_bound - 1) : nullptr},
                             {"place_seconds", r.place_seconds},
                             {"evaluations", r.evaluations},
                             {"note", r.verdict.feasible ? "" : r.verdict.reason}});
      std::printf("%s\n", j.dump(2).c_str());
      return;
    }
    if (a->csv) {
      std::printf(
          "model,cluster,algorithm,latency_ms,feasible,speedup_vs_slowest_single,speedup_vs_best_single,"
          "gap_to_lower_bound,place_seconds,evaluations\n");
      for (const auto& r : cmp.rows)
        std::printf("%s,%s,%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%lld\n", pb.graph().name().c_str(), pb.cluster().name.c_str(),
                    r.algorithm.c_str(), r.error.empty() ? ms(r.verdict.latency).c_str() : "error", r.verdict.feasible ? 1 : 0,
                    speedup(cmp.slowest_single, r.verdict.latency), speedup(cmp.best_single, r.verdict.latency),
                    r.verdict.feasible ? r.verdict.latency / cmp.lower_bound - 1 : -1.0, r.place_seconds,
                    static_cast<long long>(r.evaluations));
      return;
    }
    std::printf("%s on %s (%d ops, %d devices), objective %s; lower bound %s ms\n\n", pb.graph().name().c_str(),
                pb.cluster().name.c_str(), pb.num_ops(), pb.num_devices(), a->search.objective.c_str(),
                ms(cmp.lower_bound).c_str());
    int w = 9;  // "algorithm"
    for (const auto& r : cmp.rows) w = std::max(w, static_cast<int>(r.algorithm.size()));
    std::printf("| %-*s | %12s | %12s | %12s | %8s | %10s | %11s | %-8s |\n", w, "algorithm", "latency (ms)",
                "vs slowest 1", "vs best 1", "gap LB", "place (s)", "evaluations", "feasible");
    std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|\n", std::string(w + 2, '-').c_str(), std::string(14, '-').c_str(),
                std::string(14, '-').c_str(), std::string(14, '-').c_str(), std::string(10, '-').c_str(),
                std::string(12, '-').c_str(), std::string(13, '-').c_str(), std::string(10, '-').c_str());
    for (const auto& r : cmp.rows) {
      if (!r.error.empty()) {
        std::printf("| %-*s | %12s | %12s | %12s | %8s | %10s | %11s | %-8s |  %s\n", w, r.algorithm.c_str(), "-", "-",
                    "-", "-", "-", "-", "error", r.error.c_str());
        continue;
      }
      char gap[32] = "-";
      if (r.verdict.feasible) std::snprintf(gap, sizeof gap, "%.1f%%", 100 * (r.verdict.latency / cmp.lower_bound - 1));
      std::printf("| %-*s | %12s | %12s | %12s | %8s | %10.3f | %11lld | %-8s |\n", w, r.algorithm.c_str(),
                  ms(r.verdict.latency).c_str(), ratio_cell(speedup(cmp.slowest_single, r.verdict.latency)).c_str(),
                  ratio_cell(speedup(cmp.best_single, r.verdict.latency)).c_str(), gap, r.place_seconds,
                  static_cast<long long>(r.evaluations), r.verdict.feasible ? "yes" : "NO");
    }
    for (const auto& r : cmp.rows)
      if (r.error.empty() && !r.verdict.feasible)
        std::printf("\n%s: %s", r.algorithm.c_str(), r.verdict.reason.c_str());
    std::printf("\n");
  });
}

}  // namespace devplace::cli
