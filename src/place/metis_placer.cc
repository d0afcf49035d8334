// METIS placement: cut the op graph into balanced parts with few crossing bytes, then give the
// parts devices. The graph is undirected; a vertex weighs its op's mean compute time over the
// devices that run it, an edge the mean transfer time of the tensors between its two ops. For
// every part count k' = 1..k (k = devices; fewer parts lets a slow device stay idle) we cut
// twice, once into equal parts and once into parts sized to the devices' speeds, and try every
// injective map of parts to devices (k <= 6; a greedy map plus pairwise swaps above that),
// keeping the placement with the best objective. An op whose part lands on a device that cannot
// run it moves to its fastest capable device. Deterministic: METIS gets options.seed.
// options.eval_budget, when set, caps the evaluations: each cut's speed-ordered map (heaviest
// part on the fastest device) is tried first, then the other maps in the usual order while the
// budget lasts; given enough budget the answer is the unbudgeted one.
#include <metis.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

#include "place/placer.h"
#include "place/reward.h"
#include "util/error.h"
#include "util/log.h"

namespace devplace {

namespace {

constexpr int kMaxPermutedDevices = 6;

// The op graph in METIS's CSR form (symmetric, no self loops, no duplicate edges).
struct Csr {
  std::vector<idx_t> xadj, adjncy, vwgt, adjwgt;
  idx_t total_vwgt = 0;
};

Csr build_csr(const Problem& p) {
  const Graph& g = p.graph();
  const int n = p.num_ops(), D = p.num_devices();
  Csr csr;
  // Vertex weights: mean finite op time, scaled so the weights sum to about 1e6.
  std::vector<double> mean(n, 0.0);
  double total = 0;
  for (int i = 0; i < n; ++i) {
    double s = 0;
    int k = 0;
    for (int d = 0; d < D; ++d)
      if (p.op_time(i, d) < kInfeasibleTime) s += p.op_time(i, d), ++k;
    mean[i] = k ? s / k : 0;
    total += mean[i];
  }
  csr.vwgt.resize(n);
  for (int i = 0; i < n; ++i) {
    csr.vwgt[i] = total > 0 ? static_cast<idx_t>(std::llround(mean[i] / total * 1e6)) : 1;
    csr.total_vwgt += csr.vwgt[i];
  }
  if (csr.total_vwgt == 0) {
    std::fill(csr.vwgt.begin(), csr.vwgt.end(), 1);
    csr.total_vwgt = n;
  }
  // Edge costs: the mean transfer time over ordered device pairs, summed over the tensors
  // between two ops (either direction).
  std::map<std::pair<int, int>, double> cost;
  for (int t = 0; t < g.num_tensors(); ++t) {
    const int u = g.tensor(t).producer;
    if (u < 0) continue;
    double c = 0;
    for (int s = 0; s < D; ++s)
      for (int d = 0; d < D; ++d)
        if (s != d) c += p.transfer_time(t, s, d);
    if (D > 1) c /= D * (D - 1);
    for (int v : g.tensor(t).consumers)
      if (v != u) cost[{std::min(u, v), std::max(u, v)}] += c;
  }
  double max_cost = 0;
  for (auto& [e, c] : cost) max_cost = std::max(max_cost, c);
  std::vector<std::vector<std::pair<int, idx_t>>> adj(n);
  for (auto& [e, c] : cost) {
    // At least 1 so that structure survives for ops joined only by cheap tensors.
    const idx_t w = std::max<idx_t>(1, max_cost > 0 ? static_cast<idx_t>(std::llround(c / max_cost * 1e5)) : 1);
    adj[e.first].push_back({e.second, w});
    adj[e.second].push_back({e.first, w});
  }
  csr.xadj.assign(1, 0);
  for (int i = 0; i < n; ++i) {
    std::sort(adj[i].begin(), adj[i].end());
    for (auto& [v, w] : adj[i]) {
      csr.adjncy.push_back(v);
      csr.adjwgt.push_back(w);
    }
    csr.xadj.push_back(static_cast<idx_t>(csr.adjncy.size()));
  }
  return csr;
}

// Splits the ops into `parts` parts with target weight fractions `target`. Returns false (and
// warns) when METIS reports an error.
bool partition(Csr& csr, int parts, const std::vector<real_t>& target, std::uint64_t seed, std::vector<idx_t>& out) {
  idx_t n = static_cast<idx_t>(csr.vwgt.size());
  out.assign(n, 0);
  if (parts <= 1) return true;
  if (csr.adjncy.empty()) {
    // No edges: METIS has nothing to cut; fill the parts greedily, heaviest op first, to the
    // part furthest below its target.
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return csr.vwgt[a] > csr.vwgt[b]; });
    std::vector<double> load(parts, 0);
    for (int i : order) {
      int best = 0;
      for (int k = 1; k < parts; ++k)
        if ((load[k] + csr.vwgt[i]) / target[k] < (load[best] + csr.vwgt[i]) / target[best]) best = k;
      out[i] = best;
      load[best] += csr.vwgt[i];
    }
    return true;
  }
  idx_t ncon = 1, nparts = parts, edgecut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % static_cast<std::uint64_t>(INT_MAX));
  options[METIS_OPTION_NUMBERING] = 0;
  std::vector<real_t> tp = target;
  const int rc = METIS_PartGraphKway(&n, &ncon, csr.xadj.data(), csr.adjncy.data(), csr.vwgt.data(), nullptr,
                                     csr.adjwgt.data(), &nparts, tp.data(), nullptr, options, &edgecut, out.data());
  if (rc != METIS_OK) {
    const char* why = rc == METIS_ERROR_INPUT ? "bad input" : rc == METIS_ERROR_MEMORY ? "out of memory" : "error";
    log::warn("metis-error", "metis: METIS_PartGraphKway failed (" + std::string(why) + ") for " +
                                 std::to_string(parts) + " parts; skipping that cut");
    return false;
  }
  return true;
}

class MetisPlacer : public Placer {
 public:
  std::string name() const override { return "metis"; }

  Placement place(const Problem& p, const PlaceOptions& o) override {
    const int n = p.num_ops(), D = p.num_devices();
    if (n == 0) return {};
    SearchReward reward(p, o);
    ObjectiveFn score = reward.score();
    // Each op's fastest capable device, where ops go when their part's device cannot run them.
    std::vector<int> fastest(n, 0);
    for (int i = 0; i < n; ++i)
      for (int d = 1; d < D; ++d)
        if (p.op_time(i, d) < p.op_time(i, fastest[i])) fastest[i] = d;
    // Devices by speed (inverse of the total time of the ops they can run), fastest first.
    std::vector<double> speed(D, 0);
    for (int d = 0; d < D; ++d) {
      double s = 0;
      for (int i = 0; i < n; ++i)
        if (p.op_time(i, d) < kInfeasibleTime) s += p.op_time(i, d);
      speed[d] = 1.0 / std::max(s, 1e-12);
    }
    std::vector<int> by_speed(D);
    std::iota(by_speed.begin(), by_speed.end(), 0);
    std::stable_sort(by_speed.begin(), by_speed.end(), [&](int a, int b) { return speed[a] > speed[b]; });

    Csr csr = build_csr(p);
    // The cuts: for every part count, equal parts and parts sized to the devices' speeds.
    std::vector<std::vector<idx_t>> cuts;
    std::vector<int> cut_parts;
    for (int parts = 1; parts <= std::min(D, n); ++parts) {
      std::vector<std::vector<real_t>> targets = {std::vector<real_t>(parts, real_t(1.0) / parts)};
      if (parts > 1) {
        double sum = 0;
        for (int k = 0; k < parts; ++k) sum += speed[by_speed[k]];
        std::vector<real_t> sized(parts);
        for (int k = 0; k < parts; ++k) sized[k] = static_cast<real_t>(speed[by_speed[k]] / sum);
        // METIS wants the fractions to sum to 1 exactly enough; put the rounding in the last.
        real_t acc = 0;
        for (int k = 0; k + 1 < parts; ++k) acc += sized[k];
        sized[parts - 1] = 1 - acc;
        targets.push_back(sized);
      }
      for (const auto& target : targets) {
        std::vector<idx_t> part;
        if (!partition(csr, parts, target, o.seed, part)) continue;
        cuts.push_back(std::move(part));
        cut_parts.push_back(parts);
      }
    }

    const std::int64_t budget = o.eval_budget > 0 ? o.eval_budget : std::numeric_limits<std::int64_t>::max();
    std::int64_t spent = 0;
    std::map<std::pair<int, std::vector<int>>, double> tried_first;  // (cut, map) -> objective
    Placement best(n, by_speed[0]), trial(n);
    double best_cost = kInfeasibleTime;
    bool have = false, first_pass = true;
    // Scores cut `cut` mapped by `dev` (+inf once the budget is spent); in the second pass it also
    // keeps the best, in the unbudgeted order, so ties resolve as without a budget.
    auto consider = [&](int cut, const std::vector<int>& dev) {
      for (int i = 0; i < n; ++i) {
        const int d = dev[cuts[cut][i]];
        trial[i] = p.op_time(i, d) < kInfeasibleTime ? d : fastest[i];
      }
      double c;
      if (auto it = tried_first.find({cut, dev}); it != tried_first.end()) {
        c = it->second;
      } else if (spent < budget) {
        c = score(trial);
        ++spent;
        if (first_pass) tried_first[{cut, dev}] = c;
      } else {
        return kInfeasibleTime;
      }
      if (!first_pass && (!have || c < best_cost)) {
        best = trial;
        best_cost = c;
        have = true;
      }
      return c;
    };

    if (o.eval_budget > 0)
      for (int cut = 0; cut < static_cast<int>(cuts.size()); ++cut) consider(cut, speed_map(cut_parts[cut], by_speed, csr, cuts[cut]));
    first_pass = false;
    for (int cut = 0; cut < static_cast<int>(cuts.size()); ++cut) {
      auto consider_cut = [&](const std::vector<int>& dev) { return consider(cut, dev); };
      if (D <= kMaxPermutedDevices)
        map_by_permutation(cut_parts[cut], D, consider_cut);
      else
        map_greedily(cut_parts[cut], by_speed, csr, cuts[cut], consider_cut);
    }
    return best;
  }

 private:
  // The heaviest part on the fastest device, the next on the next, and so on.
  static std::vector<int> speed_map(int parts, const std::vector<int>& by_speed, const Csr& csr,
                                    const std::vector<idx_t>& part) {
    std::vector<double> weight(parts, 0);
    for (std::size_t i = 0; i < part.size(); ++i) weight[part[i]] += csr.vwgt[i];
    std::vector<int> order(parts);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return weight[a] > weight[b]; });
    std::vector<int> dev(parts);
    for (int k = 0; k < parts; ++k) dev[order[k]] = by_speed[k];
    return dev;
  }

  // Every injective map of `parts` parts onto D devices.
  template <class Consider>
  static void map_by_permutation(int parts, int D, Consider& consider) {
    std::vector<int> dev(parts);
    std::vector<char> used(D, 0);
    auto rec = [&](auto& self, int k) -> void {
      if (k == parts) {
        consider(dev);
        return;
      }
      for (int d = 0; d < D; ++d) {
        if (used[d]) continue;
        used[d] = 1;
        dev[k] = d;
        self(self, k + 1);
        used[d] = 0;
      }
    };
    rec(rec, 0);
  }

  // Heaviest part to the fastest device, and so on; then pairwise swaps of devices between
  // parts (and moves of a part to an unused device) while the objective improves.
  template <class Consider>
  static void map_greedily(int parts, const std::vector<int>& by_speed, const Csr& csr, const std::vector<idx_t>& part,
                           Consider& consider) {
    const int D = static_cast<int>(by_speed.size());
    std::vector<int> dev = speed_map(parts, by_speed, csr, part);
    double cur = consider(dev);
    for (bool improved = true; improved;) {
      improved = false;
      for (int a = 0; a < parts; ++a) {
        for (int b = a + 1; b < parts; ++b) {
          std::swap(dev[a], dev[b]);
          const double c = consider(dev);
          if (c < cur) {
            cur = c;
            improved = true;
          } else {
            std::swap(dev[a], dev[b]);
          }
        }
        for (int d = 0; d < D; ++d) {
          if (std::find(dev.begin(), dev.end(), d) != dev.end()) continue;
          const int old = dev[a];
          dev[a] = d;
          const double c = consider(dev);
          if (c < cur) {
            cur = c;
            improved = true;
          } else {
            dev[a] = old;
          }
        }
      }
    }
  }
};

}  // namespace

std::unique_ptr<Placer> make_metis_placer() { return std::make_unique<MetisPlacer>(); }

}  // namespace devplace
