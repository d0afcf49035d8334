#include "graph/scc.h"

#include <algorithm>
#include <cstddef>

namespace devplace {

// Tarjan's algorithm, iterative so that deep graphs do not overflow the stack.
std::vector<int> strongly_connected_components(const std::vector<std::vector<int>>& adj, int& count) {
  const int n = static_cast<int>(adj.size());
  std::vector<int> comp(n, -1), index(n, -1), low(n, 0), stack;
  std::vector<char> on_stack(n, 0);
  struct Frame {
    int v;
    std::size_t next;
  };
  std::vector<Frame> calls;
  int next_index = 0;
  count = 0;
  for (int s = 0; s < n; ++s) {
    if (index[s] != -1) continue;
    index[s] = low[s] = next_index++;
    stack.push_back(s);
    on_stack[s] = 1;
    calls.push_back({s, 0});
    while (!calls.empty()) {
      const int v = calls.back().v;
      if (calls.back().next < adj[v].size()) {
        const int w = adj[v][calls.back().next++];
        if (index[w] == -1) {
          index[w] = low[w] = next_index++;
          stack.push_back(w);
          on_stack[w] = 1;
          calls.push_back({w, 0});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        int w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          comp[w] = count;
        } while (w != v);
        ++count;
      }
      calls.pop_back();
      if (!calls.empty()) low[calls.back().v] = std::min(low[calls.back().v], low[v]);
    }
  }
  return comp;
}

}  // namespace devplace
