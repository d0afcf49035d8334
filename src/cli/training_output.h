// What `train` and `demo` print and write about a training run: every placement under its own
// name with the reward evaluations behind it (text and JSON), the per-episode CSV log and the
// learning-curve plot.
#pragma once

#include <string>
#include <vector>

#include "learn/hsdag/hsdag.h"

namespace devplace::cli {

// One line of JSON: greedy_ms, best_sampled_ms, polished_ms (null when absent), evaluations...
std::string result_json(const std::string& model, const std::string& cluster, const std::string& algo,
                        const TrainResult& r, int samples);
// The same in words, on stdout, headed by `what`.
void print_result(const std::string& what, const TrainResult& r);
std::string log_csv(const std::vector<EpisodeLog>& log);
// Mean sampled latency (the policy's expected placement) above, best sampled below.
std::string training_svg(const std::string& title, const std::vector<EpisodeLog>& log);

}  // namespace devplace::cli
