// The graphs and clusters devplace's own learned placer trains on: seeded synthetic graphs
// (place/synthetic.h) of three families (layered DAGs of varied width, skip connections and
// activation size; Inception/ResNet-like CNNs; BERT-like encoders of varied width and
// sequence length), drawn in turn, and any
// model files the caller adds, each on a perturbed cluster (synthetic: 1-3 GPUs beside the host;
// models: the presets; device speeds, launch overheads and link bandwidths scaled by 0.5-2x;
// fusion on or off). A pure function of its inputs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "cost/execution_model.h"
#include "place/synthetic.h"

namespace devplace {

struct CorpusOptions {
  int graphs = 64;  // synthetic graphs
  int min_ops = 60, max_ops = 400;
  std::uint64_t seed = 1;
  // Model files (or bundled names), each with its "name=1,128" input bindings, and how many
  // perturbed clusters each gets, drawn around `clusters` (below) in turn.
  std::vector<std::pair<std::string, std::vector<std::string>>> models;
  int clusters_per_model = 3;
  // Synthetic families, drawn in turn; {layered} alone draws the corpus of the first shipped policy.
  std::vector<SyntheticFamily> families = {SyntheticFamily::layered, SyntheticFamily::branchy,
                                           SyntheticFamily::transformer};
  // Synthetic graphs get 2-6 accelerators, each holding 1/2 to 1/6 of the graph's weights, so
  // that a good placement must split the model (for training under Tarnawski's model, where
  // the host's memory is unlimited). Off: 1-3 GPUs of 16 GiB, the draws of the default corpus.
  bool split_memory = false;
  // The share of synthetic graphs whose links are also slowed by a factor drawn log-uniformly in
  // [1, 100], so that a corpus also holds graphs where a transfer costs many ops' time (as on
  // Tarnawski et al.'s layer graphs). 0 draws nothing (the corpora of the shipped policies).
  double slow_links = 0;
  // The share of synthetic graphs recast in the form of Tarnawski et al.'s cost graphs: a host
  // and 2-12 accelerators ("accel", as their importer makes them) with every op's time in a
  // table: its roofline time on the host, an accelerator 3-30x faster (per graph), and each
  // tensor's transfer its size over a bandwidth drawn so that a median transfer costs 0.1-10x a
  // median op's host time. Their layer graphs sit at the far end of that range (a transfer up to
  // twice the op that produced it), which the roofline corpus rarely reaches. 0: none.
  double cost_tables = 0;
  // Execution models fitted to measured runs (cost/execution_model.h, e.g. the "execution" of a
  // calibrated cost table) and the share of corpus problems, synthetic and model ones, that get
  // one drawn around them: a base picked at random, its host (synchronous) device's dispatch,
  // wake-up and op scale on the cluster's CPUs, its asynchronous device's on the others, its
  // host -> device and device -> host crossings on every such pair (device -> device as host ->
  // device), each figure scaled by a factor in [0.5, 2]. So that a policy learns where the
  // executor's crossings and idle wake-ups make a split placement lose. 0: none.
  std::vector<ExecutionModel> executions = {};
  double execution_share = 0;
  // The clusters (preset names or files) the models' problems are drawn around, in turn.
  std::vector<std::string> clusters = {"paper", "server", "nvlink4"};
};

struct CorpusGraph {
  std::shared_ptr<const Graph> graph;  // shared by the problems made from one model
  std::unique_ptr<Problem> problem;    // the graph on its perturbed cluster
};

// Throws Error naming the file for a model that does not load.
std::vector<std::unique_ptr<CorpusGraph>> make_training_corpus(const CorpusOptions& options);

}  // namespace devplace
