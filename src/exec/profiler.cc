#include "exec/profiler.h"

#include "util/error.h"

namespace devplace {

CostTable profile_costs(Executor& ex, const Graph& g, const Cluster& c, const ProfileOptions& opt) {
  if (ex.num_workers() != c.num_devices())
    throw Error("", "", "the cluster has " + std::to_string(c.num_devices()) + " devices but the executor " +
                            std::to_string(ex.num_workers()) + " workers");
  CostTable table;
  const int W = ex.num_workers();
  std::vector<double> copy_sum(g.num_tensors(), 0.0);
  std::vector<int> copy_n(g.num_tensors(), 0);
  for (int w = 0; w < W; ++w) {
    // Copies: 0 -> 1 and 1 -> 0 (other pairs cost the same on one host).
    const int to = W > 1 && w < 2 ? 1 - w : -1;
    Profile p = ex.profile(w, to, opt.runs);
    for (int op = 0; op < g.num_ops(); ++op) table.op_time[g.op(op).name][c.devices[w].name] = p.op_seconds[op];
    for (int t = 0; t < g.num_tensors(); ++t)
      if (p.copy_seconds[t] >= 0) copy_sum[t] += p.copy_seconds[t], ++copy_n[t];
  }
  for (int t = 0; t < g.num_tensors(); ++t)
    if (copy_n[t]) table.transfer_time[g.tensor(t).name] = copy_sum[t] / copy_n[t];
  return table;
}

}  // namespace devplace
