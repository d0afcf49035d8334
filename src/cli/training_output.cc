#include "cli/training_output.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/context.h"
#include "report/plot.h"
#include "util/log.h"

namespace devplace::cli {

// Which placements a training run produced and what each cost, as one line of JSON.
std::string result_json(const std::string& model, const std::string& cluster, const std::string& algo,
                        const TrainResult& r, int samples) {
  auto num = [](double seconds) {
    return std::isfinite(seconds) ? nlohmann::json(seconds * 1e3) : nlohmann::json(nullptr);
  };
  nlohmann::json j = {{"model", model},
                      {"cluster", cluster},
                      {"algo", algo},
                      {"episodes", r.episodes},
                      {"samples", samples},
                      {"evaluations", r.evaluations},
                      {"greedy_ms", num(r.greedy_latency)},
                      {"best_sampled_ms", num(r.sampled_latency)},
                      {"polished_ms", num(r.polished_latency)},
                      {"polish_evaluations", r.polish_evaluations},
                      {"greedy_single_device", is_single_device(r.greedy)},
                      {"coarse_nodes", r.coarse_nodes},
                      {"groups", r.groups},
                      {"seconds", r.seconds}};
  return j.dump();
}

// The training outcome in words: every figure under its own name, with its evaluations.
void print_result(const std::string& what, const TrainResult& r) {
  std::printf("%s:\n  policy (greedy)  %s ms%s\n  best sampled     %s ms   (%lld reward evaluations, both)\n",
              what.c_str(), ms(r.greedy_latency).c_str(),
              is_single_device(r.greedy) ? "  [a single-device placement]" : "", ms(r.sampled_latency).c_str(),
              r.evaluations);
  if (r.polish_evaluations > 0)
    std::printf("  + polish         %s ms   (%lld more evaluations; beyond the method)\n",
                ms(r.polished_latency).c_str(), r.polish_evaluations);
}

std::string log_csv(const std::vector<EpisodeLog>& log) {
  std::string out = "episode,mean_latency_ms,best_sampled_ms,mean_reward,entropy,feasible_share,groups,seconds,stay,sibling,join\n";
  char buf[256];
  for (const auto& e : log) {
    std::snprintf(buf, sizeof buf, "%d,%.6f,%.6f,%.6f,%.6f,%.4f,%d,%.4f,%.4f,%.4f,%.4f\n", e.episode,
                  e.mean_latency * 1e3, e.best_latency * 1e3, e.mean_reward, e.entropy, e.feasible_share, e.groups,
                  e.seconds, e.stay, e.sibling, e.join);
    out += buf;
  }
  return out;
}

std::string training_svg(const std::string& title, const std::vector<EpisodeLog>& log) {
  Series mean_s{"mean sampled latency (ms)", {}, {}}, best_s{"best sampled latency (ms)", {}, {}};
  for (const auto& e : log) {
    if (!std::isfinite(e.mean_latency)) continue;
    mean_s.x.push_back(e.episode), mean_s.y.push_back(e.mean_latency * 1e3);
    best_s.x.push_back(e.episode), best_s.y.push_back(e.best_latency * 1e3);
  }
  return two_panel_svg(title, "episode", mean_s, best_s);
}

}  // namespace devplace::cli
