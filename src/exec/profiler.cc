#include "exec/profiler.h"

#include "util/error.h"
#include "util/stats.h"

namespace devplace {

CostTable profile_costs(Executor& ex, const Graph& g, const Cluster& c, const ProfileOptions& opt) {
  if (ex.num_workers() != c.num_devices())
    throw Error("", "",
                "the cluster has " + std::to_string(c.num_devices()) + " devices but the executor " +
                    std::to_string(ex.num_workers()) + " workers");
  CostTable table;
  const int W = ex.num_workers();
  if (opt.runs < 1) throw Error("", "", "profiling needs at least one run");
  std::vector<double> copy_sum(g.num_tensors(), 0.0);
  std::vector<int> copy_n(g.num_tensors(), 0);
  // Rounds over the workers rather than one worker after the other: a shared machine's speed
  // drifts over minutes, and each worker's column must see the same drift.
  std::vector<std::vector<std::vector<double>>> samples(W, std::vector<std::vector<double>>(g.num_ops()));
  for (int r = 0; r < opt.runs; ++r)
    for (int w = 0; w < W; ++w) {
      // Copies, in the last round: 0 -> 1 and 1 -> 0 (other pairs cost the same on one host).
      const int to = r == opt.runs - 1 && W > 1 && w < 2 ? 1 - w : -1;
      Profile p = ex.profile(w, to, r == 0 ? 1 : 0, 1);
      for (int op = 0; op < g.num_ops(); ++op) samples[w][op].push_back(p.op_seconds[op]);
      for (int t = 0; t < g.num_tensors(); ++t)
        if (p.copy_seconds[t] >= 0) copy_sum[t] += p.copy_seconds[t], ++copy_n[t];
      if (w == W - 1 && opt.after_round) opt.after_round(r);
    }
  for (int w = 0; w < W; ++w)
    for (int op = 0; op < g.num_ops(); ++op) table.op_time[g.op(op).name][c.devices[w].name] = median(samples[w][op]);
  for (int t = 0; t < g.num_tensors(); ++t)
    if (copy_n[t]) table.transfer_time[g.tensor(t).name] = copy_sum[t] / copy_n[t];
  return table;
}

}  // namespace devplace
