// Strongly connected components of a directed graph given as adjacency lists, used to keep
// quotient graphs acyclic (coarsening, Tarnawski blocks).
#pragma once

#include <vector>

namespace devplace {

// Returns the component of every node (numbered 0..count-1 in the order Tarjan's algorithm
// closes them) and sets `count`. O(nodes + edges), no recursion.
std::vector<int> strongly_connected_components(const std::vector<std::vector<int>>& adj, int& count);

}  // namespace devplace
