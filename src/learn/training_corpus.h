// The graphs and clusters devplace's own learned placer pretrains on: seeded synthetic layered
// DAGs (place/synthetic.h) of varied size, width, skip connections and activation size, each on
// a perturbed cluster (1-3 GPUs beside the host; device speeds, launch overheads and link
// bandwidths scaled by 0.5-2x; fusion on or off). No bundled or shared model is in it, so every
// real graph is unseen by a policy trained on it. A pure function of the options.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cost/cost_model.h"
#include "place/synthetic.h"

namespace devplace {

struct CorpusOptions {
  int graphs = 64;
  int min_ops = 60, max_ops = 400;
  std::uint64_t seed = 1;
};

struct CorpusGraph {
  std::unique_ptr<SyntheticProblem> source;  // owns the graph
  std::unique_ptr<Problem> problem;          // the graph on its perturbed cluster
};

std::vector<std::unique_ptr<CorpusGraph>> make_training_corpus(const CorpusOptions& options);

}  // namespace devplace
