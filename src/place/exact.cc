// Exact placement for small graphs (at most kMaxOps ops; larger graphs are refused with an
// Error). The incumbent starts as the better of local search and HEFT (where they run).
//
// Simulator objective: depth-first branch and bound over the ops in topological order, each op
// trying its capable devices in order of its earliest finish. A complete placement is scored by
// the simulator; a partial one (ops 0..k placed) is pruned when a lower bound on the makespan of
// every completion is >= the incumbent. The bound is the largest of
//   - the earliest finish of every op ignoring contention: a placed op's inputs arrive no
//     earlier than their producers' earliest finish plus the transfer between the two placed
//     devices; an unplaced op takes its best device and free transfers from unplaced producers;
//   - the busy time of each device (ops on one device run one after another);
//   - the water level: the placed loads plus the remaining ops at their fastest times, poured
//     over the devices.
// Devices that are interchangeable (same kind, memory, op times and transfer costs, so swapping
// them maps every schedule to an equal one) are used in index order: an op may take a used one
// or the first unused one of its class.
//
// Tarnawski objective: the bound above does not hold (the host runs ops in parallel), so plain
// enumeration, refused above kMaxEnumeration placements.
//
// options.time_budget_s, when set, stops the search early with a warning (result then the best
// found, not proven optimal).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "place/placer.h"
#include "place/reward.h"
#include "util/error.h"
#include "util/log.h"

namespace devplace {

namespace {

constexpr int kMaxOps = 24;
constexpr double kMaxEnumeration = 2e6;
constexpr std::int64_t kIncumbentEvals = 4000;

class BranchAndBound {
 public:
  BranchAndBound(const Problem& p, const PlaceOptions& o, ObjectiveFn& score, Placement incumbent, double cost)
      : p_(p),
        o_(o),
        score_(score),
        n_(p.num_ops()),
        D_(p.num_devices()),
        best_(std::move(incumbent)),
        best_cost_(cost) {
    const Graph& g = p.graph();
    // Inputs as the simulator sees them: distinct tensors made by an op.
    in_.resize(n_);
    for (int i = 0; i < n_; ++i) {
      for (int t : g.op(i).inputs) {
        const int q = g.tensor(t).producer;
        if (q < 0) continue;
        if (std::find_if(in_[i].begin(), in_[i].end(), [&](auto& e) { return e.second == t; }) == in_[i].end())
          in_[i].push_back({q, t});
      }
    }
    suffix_work_.assign(n_ + 1, 0);
    for (int i = n_ - 1; i >= 0; --i) {
      double m = kInfeasibleTime;
      for (int d = 0; d < D_; ++d) m = std::min(m, p.op_time(i, d));
      suffix_work_[i] = suffix_work_[i + 1] + m;
    }
    // Interchangeable devices: classes of devices whose transposition is a symmetry.
    class_of_.assign(D_, -1);
    for (int d = 0; d < D_; ++d) {
      if (class_of_[d] >= 0) continue;
      class_of_[d] = static_cast<int>(classes_.size());
      classes_.push_back({d});
      for (int e = d + 1; e < D_; ++e)
        if (class_of_[e] < 0 && interchangeable(d, e)) {
          class_of_[e] = class_of_[d];
          classes_.back().push_back(e);
        }
    }
    cap_.resize(D_);
    for (int d = 0; d < D_; ++d) cap_[d] = p.cluster().devices[d].memory_bytes;
    place_.assign(n_, 0);
    ef_.assign(n_, 0);
    lb_end_.assign(n_, 0);
    load_.assign(D_, 0);
    weights_.assign(D_, 0);
    used_.assign(D_, 0);
    max_ef_.assign(n_ + 1, 0);
  }

  // Returns the optimum (or the best found when the time budget ran out).
  Placement run() {
    start_ = std::chrono::steady_clock::now();
    dfs(0);
    if (stopped_)
      log::warn("exact-budget", "exact: time budget of " + std::to_string(o_.time_budget_s) +
                                    " s ran out; the placement is the best found, not proven optimal");
    return best_;
  }

 private:
  bool interchangeable(int d, int e) const {
    const auto& a = p_.cluster().devices[d];
    const auto& b = p_.cluster().devices[e];
    if (a.kind != b.kind || a.memory_bytes != b.memory_bytes || a.fusion != b.fusion) return false;
    for (int i = 0; i < n_; ++i)
      if (p_.op_time(i, d) != p_.op_time(i, e) || p_.standalone_time(i, d) != p_.standalone_time(i, e)) return false;
    for (int t = 0; t < p_.graph().num_tensors(); ++t) {
      if (p_.graph().tensor(t).producer < 0) continue;
      if (p_.transfer_time(t, d, e) != p_.transfer_time(t, e, d)) return false;
      for (int x = 0; x < D_; ++x) {
        if (x == d || x == e) continue;
        if (p_.transfer_time(t, d, x) != p_.transfer_time(t, e, x)) return false;
        if (p_.transfer_time(t, x, d) != p_.transfer_time(t, x, e)) return false;
      }
    }
    return true;
  }

  // Earliest finish of op k on device d given placed producers.
  double earliest_finish(int k, int d) const {
    double ready = 0;
    for (auto [q, t] : in_[k]) ready = std::max(ready, ef_[q] + p_.transfer_time(t, place_[q], d));
    return ready + p_.op_time(k, d);
  }

  // Lower bound on every completion of the placement of ops 0..k.
  double bound(int k) {
    double lb = max_ef_[k + 1];
    for (int d = 0; d < D_; ++d) lb = std::max(lb, load_[d]);
    if (lb >= best_cost_) return lb;
    // Water level of the remaining work over the devices.
    const double rest = suffix_work_[k + 1];
    if (rest > 0) {
      sorted_ = load_;
      std::sort(sorted_.begin(), sorted_.end());
      double sum = 0;
      for (int m = 1; m <= D_; ++m) {
        sum += sorted_[m - 1];
        const double level = (rest + sum) / m;
        if (m == D_ || level <= sorted_[m]) {
          lb = std::max(lb, level);
          break;
        }
      }
    }
    // Earliest finish of the unplaced ops.
    for (int j = k + 1; j < n_ && lb < best_cost_; ++j) {
      double best = kInfeasibleTime;
      for (int d = 0; d < D_; ++d) {
        const double t_op = p_.op_time(j, d);
        if (t_op == kInfeasibleTime) continue;
        double ready = 0;
        for (auto [q, t] : in_[j])
          ready = std::max(ready, q <= k ? ef_[q] + p_.transfer_time(t, place_[q], d) : lb_end_[q]);
        best = std::min(best, ready + t_op);
      }
      lb_end_[j] = best;
      lb = std::max(lb, best);
    }
    return lb;
  }

  void dfs(int k) {
    if (stopped_) return;
    if (o_.time_budget_s > 0 && (++nodes_ & 4095) == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > o_.time_budget_s) {
      stopped_ = true;
      return;
    }
    if (k == n_) {
      const double c = score_(place_);
      if (c < best_cost_) {
        best_cost_ = c;
        best_ = place_;
      }
      return;
    }
    // Candidates: capable devices allowed by symmetry, earliest finish first.
    std::vector<std::pair<double, int>> cand;
    for (int d = 0; d < D_; ++d) {
      if (p_.op_time(k, d) == kInfeasibleTime) continue;
      if (!used_[d]) {
        // Only the first unused device of its class.
        bool first = true;
        for (int e : classes_[class_of_[d]]) {
          if (e == d) break;
          if (!used_[e]) first = false;
        }
        if (!first) continue;
      }
      const std::int64_t w = weights_[d] + p_.weight_bytes(k);
      if (cap_[d] > 0 && w > cap_[d]) continue;  // weights alone overflow the device
      cand.push_back({earliest_finish(k, d), d});
    }
    std::sort(cand.begin(), cand.end());
    for (auto [ef, d] : cand) {
      place_[k] = d;
      ef_[k] = ef;
      max_ef_[k + 1] = std::max(max_ef_[k], ef);
      load_[d] += p_.op_time(k, d);
      weights_[d] += p_.weight_bytes(k);
      ++used_[d];
      if (bound(k) < best_cost_) dfs(k + 1);
      --used_[d];
      weights_[d] -= p_.weight_bytes(k);
      load_[d] -= p_.op_time(k, d);
      if (stopped_) return;
    }
  }

  const Problem& p_;
  const PlaceOptions& o_;
  ObjectiveFn& score_;
  const int n_, D_;
  Placement best_;
  double best_cost_;
  std::vector<std::vector<std::pair<int, int>>> in_;  // op -> (producer, tensor)
  std::vector<double> suffix_work_;
  std::vector<int> class_of_;
  std::vector<std::vector<int>> classes_;
  std::vector<std::int64_t> cap_, weights_;
  Placement place_;
  std::vector<double> ef_, lb_end_, load_, sorted_, max_ef_;
  std::vector<int> used_;
  std::chrono::steady_clock::time_point start_;
  std::int64_t nodes_ = 0;
  bool stopped_ = false;
};

// Every placement with each op on a capable device; REQUIRES their count <= kMaxEnumeration.
Placement enumerate(const Problem& p, ObjectiveFn& score, Placement best, double best_cost) {
  const int n = p.num_ops();
  std::vector<std::vector<int>> ok(n);
  for (int i = 0; i < n; ++i) {
    for (int d = 0; d < p.num_devices(); ++d)
      if (p.op_time(i, d) < kInfeasibleTime) ok[i].push_back(d);
    if (ok[i].empty()) return best;  // nothing is feasible
  }
  std::vector<int> idx(n, 0);
  Placement pl(n);
  for (int i = 0; i < n; ++i) pl[i] = ok[i][0];
  while (true) {
    const double c = score(pl);
    if (c < best_cost) best_cost = c, best = pl;
    int i = 0;
    for (; i < n; ++i) {
      if (++idx[i] < static_cast<int>(ok[i].size())) {
        pl[i] = ok[i][idx[i]];
        break;
      }
      idx[i] = 0;
      pl[i] = ok[i][0];
    }
    if (i == n) break;
  }
  return best;
}

class Exact : public Placer {
 public:
  std::string name() const override { return "exact"; }

  Placement place(const Problem& p, const PlaceOptions& o) override {
    const int n = p.num_ops(), D = p.num_devices();
    if (n > kMaxOps)
      throw Error(p.graph().source(), "",
                  "exact placement handles at most " + std::to_string(kMaxOps) + " ops; this graph has " +
                      std::to_string(n) + " (use local-search)");
    if (n == 0) return {};
    SearchReward reward(p, o);
    ObjectiveFn score = reward.score();
    // Incumbent: the better of local search and HEFT, else everything on device 0.
    Placement best(n, 0);
    double best_cost = score(best);
    PlaceOptions sub = o;
    sub.eval_budget = kIncumbentEvals;
    sub.time_budget_s = 0;
    for (const char* name : {"local-search", "heft"}) {
      try {
        Placement pl = make_placer(name)->place(p, sub);
        const double c = score(pl);
        if (static_cast<int>(pl.size()) == n && c < best_cost) best = std::move(pl), best_cost = c;
      } catch (const Error&) {
      }
    }
    if (o.objective == Objective::simulator) {
      BranchAndBound bb(p, o, score, std::move(best), best_cost);
      return bb.run();
    }
    double count = 1;
    for (int i = 0; i < n; ++i) {
      int k = 0;
      for (int d = 0; d < D; ++d) k += p.op_time(i, d) < kInfeasibleTime;
      count *= std::max(k, 1);
    }
    if (count > kMaxEnumeration)
      throw Error(p.graph().source(), "",
                  "exact placement under the tarnawski objective enumerates every placement; this graph has " +
                      std::to_string(static_cast<long long>(count)) + ", more than the limit of " +
                      std::to_string(static_cast<long long>(kMaxEnumeration)));
    return enumerate(p, score, std::move(best), best_cost);
  }
};

}  // namespace

std::unique_ptr<Placer> make_exact_placer() { return std::make_unique<Exact>(); }

}  // namespace devplace
