// Chained decisions (beyond the paper; HsdagConfig::stay): every coarse node picks its device
// given the device of its main parent, of its earlier siblings (lower-index nodes with the same
// main parent) and of its other inputs, p(d | parent on e) proportional to
//   exp(logit(d) + stay_v * [d == e] + sibling_v * (earlier siblings on d)
//       + join_v * (other inputs on d)),
// stay_v the node's stay bonus, sibling_v its sibling term (HsdagConfig::learn_siblings; a
// negative one spreads parallel branches over devices) and join_v its join term
// (HsdagConfig::learn_joins; a positive one lets a join follow an input other than its main
// parent). A sample is then made of regions that share a device rather than of independent
// choices per node, whose every early sample crosses between devices at about half the edges.
// Without sibling and join terms the parents form a forest, so the joint probability factorises
// and its most likely assignment is exact. Torch-free: logits are plain row-major floats.
#pragma once

#include <random>
#include <vector>

#include "graph/graph.h"
#include "learn/representation/coarsen.h"

namespace devplace {

// The main parent of every coarse node: the predecessor group that sends it the most bytes
// (ties: the later group), or -1 for a node without predecessors. Always a lower index.
std::vector<int> main_parents(const Graph& graph, const Coarsening& coarse);

// The other inputs of every coarse node: its predecessors besides its main parent.
std::vector<std::vector<int>> other_inputs_of(const Coarsening& coarse, const std::vector<int>& parent);

// Every coarse node's terms in the chained model.
struct ChainTerms {
  std::vector<double> stay;     // on the parent's device
  std::vector<double> sibling;  // per earlier sibling on a device; empty: none
  std::vector<double> join;     // per other input on a device; empty: none
  std::vector<std::vector<int>> other_inputs;  // with `join`: each node's other inputs (other_inputs_of)
};

// The log-probabilities of node v's devices given its parent's device `parent_device` (-1: no
// parent) and, where `siblings_on` is given, how many of its earlier siblings are on each device
// (and where `inputs_on` is given, how many of its other inputs):
// log_softmax(logits[row] + stay * onehot(parent_device) + sibling * siblings_on + join * inputs_on),
// written to `out` (devices).
void chained_log_probs(const float* row, int devices, double stay, int parent_device, double* out,
                       double sibling = 0, const int* siblings_on = nullptr, double join = 0,
                       const int* inputs_on = nullptr);

// For every node v and device d, how many of v's earlier siblings `device` puts on d:
// [nodes * devices], row-major.
std::vector<int> earlier_siblings_on(const std::vector<int>& device, const std::vector<int>& parent, int devices);

// For every node v and device d, how many of v's other inputs `device` puts on d: [nodes * devices].
std::vector<int> other_inputs_on(const std::vector<int>& device, const std::vector<std::vector<int>>& other_inputs,
                                 int devices);

// One device per coarse node, drawn in index order (a topological order): node v from the row
// logits[row_of[v] * devices ...] with its terms added.
std::vector<int> sample_chained(const float* logits, const std::vector<int>& row_of, const std::vector<int>& parent,
                                int devices, const ChainTerms& terms, std::mt19937_64& rng);

// The joint log-probability of `device` under the model.
double chained_log_prob(const float* logits, const std::vector<int>& row_of, const std::vector<int>& parent,
                        int devices, const ChainTerms& terms, const std::vector<int>& device);

// Every node's log-probabilities given the devices `device` puts the nodes before it on (its
// parent, earlier siblings and other inputs): [nodes * devices], row-major.
std::vector<double> conditional_log_probs(const float* logits, const std::vector<int>& row_of,
                                          const std::vector<int>& parent, int devices, const ChainTerms& terms,
                                          const std::vector<int>& device);

// The most likely joint assignment under the same model: exact (max-product over the forest)
// without sibling and join terms. With them the exact maximum is out of reach, and of two
// assignments decided in index order it returns the more likely: each node taking its most likely
// device given the devices already chosen, plus (the first) the best its descendants can add as
// the forest without those terms sees them, or (the second) alone.
std::vector<int> most_likely_chained(const float* logits, const std::vector<int>& row_of,
                                     const std::vector<int>& parent, int devices, const ChainTerms& terms);

}  // namespace devplace
