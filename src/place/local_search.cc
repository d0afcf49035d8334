// Local search, the "best known" reference placement: start from the best of the classical
// placers (each single device, hetero, round-robin, heft, m-etf, metis; any that throws is
// skipped), then simulated annealing scored by the objective. Moves:
//   op     one op to another device;
//   chain  a whole chain (maximal path of single-successor / single-predecessor links) through
//          a random op to another device;
//   swap   exchange the devices of an op and a neighbour on another device;
//   group  an op and its successors within radius 1..3 to another device.
// A move never puts an op on a device that cannot run it. Infeasible scores are +inf, so a move
// from a feasible placement into an infeasible one is never accepted. The temperature falls
// geometrically from T0 (set so a typical uphill step of a probe at the start is accepted half
// the time) to T0/1000 over the budget: options.eval_budget evaluations (default 20000) and/or
// options.time_budget_s, whichever ends first. The evaluations that choose the start count
// against the budget too (METIS, which tries many maps, gets an eighth of it), so the placer
// never spends more than it was given. Deterministic for a seed under an evaluation budget alone.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "place/placer.h"
#include "place/reward.h"
#include "util/error.h"
#include "util/log.h"

namespace devplace {

namespace {

constexpr std::int64_t kDefaultEvalBudget = 20000;
constexpr int kProbeMoves = 64;

class LocalSearch : public Placer {
 public:
  std::string name() const override { return "local-search"; }

  Placement place(const Problem& p, const PlaceOptions& o) override {
    const int n = p.num_ops(), D = p.num_devices();
    if (n == 0) return {};
    SearchReward reward(p, o);
    CountingReward counted(reward.reward());
    ObjectiveFn score = score_with(counted);
    // The whole run's evaluations, the start's included (unbounded under a time budget alone).
    const std::int64_t budget = o.eval_budget > 0 ? o.eval_budget : o.time_budget_s > 0 ? 0 : kDefaultEvalBudget;
    double start_cost = kInfeasibleTime;
    Placement cur = best_start(p, o, score, counted, budget, start_cost);
    if (D == 1) return cur;
    PlaceOptions rest = o;
    if (budget > 0) {
      rest.eval_budget = budget - counted.count();
      if (rest.eval_budget <= 0) return cur;
    }
    return anneal(p, rest, score, std::move(cur), start_cost);
  }

  static Placement anneal(const Problem& p, const PlaceOptions& o, ObjectiveFn& score, Placement start,
                          std::optional<double> start_score) {
    Search s(p, o, score, std::move(start));
    return s.run(start_score);
  }

 private:
  // The best of the classical placers, scored while `budget` (0: unbounded) lasts.
  static Placement best_start(const Problem& p, const PlaceOptions& o, ObjectiveFn& score, CountingReward& spent,
                              std::int64_t budget, double& best_cost) {
    std::vector<std::unique_ptr<Placer>> starts;
    for (int d = 0; d < p.num_devices(); ++d) starts.push_back(make_single_device(d, p.cluster().devices[d].name));
    for (const char* name : {"hetero", "round-robin", "heft", "m-etf", "metis"}) {
      try {
        starts.push_back(make_placer(name));
      } catch (const Error&) {
      }
    }
    PlaceOptions sub = o;
    sub.reward = &spent;  // what METIS evaluates counts here too
    sub.time_budget_s = 0;
    Placement best;
    best_cost = kInfeasibleTime;
    for (auto& placer : starts) {
      // Each start costs one evaluation to score; METIS may spend up to an eighth of the budget
      // choosing among its cuts first (the others spend none).
      const std::int64_t left = budget - spent.count() - 1;
      if (budget > 0 && left < 0) break;
      sub.eval_budget = budget > 0 ? std::min(budget / 8, left) : 0;
      if (budget > 0 && sub.eval_budget < 1 && placer->name() == "metis") continue;
      Placement pl;
      try {
        pl = placer->place(p, sub);
      } catch (const Error&) {
        continue;  // a placer that is not there yet, or refuses this problem
      }
      if (static_cast<int>(pl.size()) != p.num_ops()) continue;
      const double c = score(pl);
      if (best.empty() || c < best_cost) {
        best = std::move(pl);
        best_cost = c;
      }
    }
    if (best.empty()) {
      best.assign(p.num_ops(), 0);
      best_cost = score(best);
    }
    return best;
  }

  // One annealing run: state, move generators, schedule.
  class Search {
   public:
    Search(const Problem& p, const PlaceOptions& o, ObjectiveFn& score, Placement start)
        : p_(p),
          g_(p.graph()),
          o_(o),
          score_(score),
          n_(p.num_ops()),
          D_(p.num_devices()),
          rng_(o.seed),
          cur_(std::move(start)) {
      ok_.resize(n_);
      for (int i = 0; i < n_; ++i)
        for (int d = 0; d < D_; ++d)
          if (p.op_time(i, d) < kInfeasibleTime) ok_[i].push_back(d);
      for (int i = 0; i < n_; ++i)
        if (ok_[i].size() > 1) movable_.push_back(i);
      // Chains: i -> j is a link when j is i's only successor and i is j's only predecessor.
      chain_of_.assign(n_, -1);
      for (int i = 0; i < n_; ++i) {
        if (chain_of_[i] >= 0) continue;
        chain_of_[i] = static_cast<int>(chains_.size());
        chains_.push_back({i});
        for (int k = i; g_.succs(k).size() == 1 && g_.preds(g_.succs(k)[0]).size() == 1;) {
          k = g_.succs(k)[0];
          chain_of_[k] = chain_of_[i];
          chains_.back().push_back(k);
        }
      }
      mark_.assign(n_, 0);
    }

    // `start_score`: the start's score when the caller has it (else one evaluation here).
    Placement run(std::optional<double> start_score) {
      if (start_score) {
        cur_cost_ = *start_score;
      } else {
        cur_cost_ = score_(cur_);
        ++evals_;
      }
      best_ = cur_;
      best_cost_ = cur_cost_;
      if (movable_.empty()) return best_;
      const std::int64_t budget = o_.eval_budget > 0     ? o_.eval_budget
                                  : o_.time_budget_s > 0 ? std::numeric_limits<std::int64_t>::max()
                                                         : kDefaultEvalBudget;
      const auto t0 = std::chrono::steady_clock::now();
      auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };

      // Probe: the mean uphill step of random moves from the start sets T0.
      double up = 0;
      int ups = 0;
      const std::int64_t probes = std::min<std::int64_t>(kProbeMoves, std::max<std::int64_t>(1, budget / 4));
      for (int k = 0; k < probes && evals_ < budget; ++k) {
        if (!propose()) continue;
        const double c = score_(cur_);
        ++evals_;
        if (std::isfinite(c) && std::isfinite(cur_cost_) && c > cur_cost_) up += c - cur_cost_, ++ups;
        note(c);
        undo();
      }
      const double scale = std::isfinite(best_cost_) && best_cost_ > 0 ? best_cost_ : 1.0;
      const double t_start = ups ? up / ups / std::log(2.0) : 1e-3 * scale;
      const double t_end = t_start * 1e-3;

      log::Progress bar("local-search", 1000);
      double frac = 0;
      std::int64_t since_best = 0;
      while (evals_ < budget) {
        if ((evals_ & 63) == 0) {
          frac = o_.eval_budget > 0 || o_.time_budget_s <= 0 ? static_cast<double>(evals_) / budget : 0;
          if (o_.time_budget_s > 0) {
            const double tf = elapsed() / o_.time_budget_s;
            if (tf >= 1) break;
            frac = std::max(frac, tf);
          }
          if ((evals_ & 1023) == 0)
            bar.update(static_cast<std::size_t>(frac * 1000), "best " + std::to_string(best_cost_ * 1e3) + " ms");
        }
        const double temp = t_start * std::pow(t_end / t_start, frac);
        if (!propose()) {
          ++stalls_;
          if (stalls_ > 1000 * n_) break;  // nothing can move
          continue;
        }
        const double c = score_(cur_);
        ++evals_;
        if (note(c)) since_best = 0;
        bool accept;
        if (!std::isfinite(cur_cost_))
          accept = true;  // wander until feasible
        else if (!std::isfinite(c))
          accept = false;
        else
          accept = c <= cur_cost_ || uniform_(rng_) < std::exp(-(c - cur_cost_) / temp);
        if (accept)
          cur_cost_ = c;
        else
          undo();
        // Long without progress: go back to the best placement seen.
        if (++since_best > 2000 + 20 * n_ && cur_cost_ > best_cost_) {
          cur_ = best_;
          cur_cost_ = best_cost_;
          since_best = 0;
        }
      }
      bar.finish();
      return best_;
    }

   private:
    // Records a score of the current placement; returns true on a new best.
    bool note(double c) {
      if (c < best_cost_) {
        best_cost_ = c;
        best_ = cur_;
        return true;
      }
      return false;
    }

    void set(int op, int d) {
      if (cur_[op] == d || p_.op_time(op, d) == kInfeasibleTime) return;
      changed_.push_back({op, cur_[op]});
      cur_[op] = d;
    }
    void undo() {
      for (auto it = changed_.rbegin(); it != changed_.rend(); ++it) cur_[it->first] = it->second;
      changed_.clear();
    }
    int pick(std::size_t n) { return static_cast<int>(rng_() % n); }
    // A device other than `d` that op `i` can run on (any device when i can run on one only).
    int other_device(int i, int d) {
      const auto& ok = ok_[i];
      if (ok.size() <= 1) return (d + 1 + pick(D_ - 1)) % D_;
      int e = ok[pick(ok.size())];
      while (e == d) e = ok[pick(ok.size())];
      return e;
    }

    // Applies a random move to cur_ (recording it in changed_); false if nothing changed.
    bool propose() {
      changed_.clear();
      const int i = movable_[pick(movable_.size())];
      const int kind = pick(8);
      if (kind < 3) {  // op
        set(i, other_device(i, cur_[i]));
      } else if (kind < 5) {  // chain
        const int d = other_device(i, cur_[i]);
        for (int k : chains_[chain_of_[i]]) set(k, d);
      } else if (kind < 6) {  // swap with a neighbour on another device
        const auto& pr = g_.preds(i);
        const auto& su = g_.succs(i);
        const std::size_t deg = pr.size() + su.size();
        if (deg > 0) {
          const std::size_t first = rng_() % deg;
          for (std::size_t k = 0; k < deg; ++k) {
            const std::size_t m = (first + k) % deg;
            const int j = m < pr.size() ? pr[m] : su[m - pr.size()];
            if (cur_[j] == cur_[i]) continue;
            const int di = cur_[i], dj = cur_[j];
            if (p_.op_time(i, dj) == kInfeasibleTime || p_.op_time(j, di) == kInfeasibleTime) continue;
            set(i, dj);
            set(j, di);
            break;
          }
        }
      } else {  // group: i and its successors within a radius
        const int d = other_device(i, cur_[i]);
        const int radius = 1 + pick(3);
        frontier_.assign(1, i);
        group_.assign(1, i);
        mark_[i] = 1;
        for (int r = 0; r < radius; ++r) {
          next_.clear();
          for (int u : frontier_)
            for (int v : g_.succs(u))
              if (!mark_[v]) mark_[v] = 1, next_.push_back(v), group_.push_back(v);
          frontier_.swap(next_);
        }
        for (int u : group_) mark_[u] = 0, set(u, d);
      }
      return !changed_.empty();
    }

    const Problem& p_;
    const Graph& g_;
    const PlaceOptions& o_;
    ObjectiveFn& score_;
    const int n_, D_;
    std::mt19937_64 rng_;
    std::uniform_real_distribution<double> uniform_{0.0, 1.0};
    std::vector<std::vector<int>> ok_, chains_;
    std::vector<int> movable_, chain_of_, frontier_, next_, group_;
    std::vector<char> mark_;
    std::vector<std::pair<int, int>> changed_;
    Placement cur_, best_;
    double cur_cost_ = 0, best_cost_ = 0;
    std::int64_t evals_ = 0, stalls_ = 0;
  };
};

}  // namespace

std::unique_ptr<Placer> make_local_search_placer() { return std::make_unique<LocalSearch>(); }

Placement anneal_placement(const Problem& p, Placement start, const PlaceOptions& o, ObjectiveFn score,
                           std::optional<double> start_score) {
  if (p.num_ops() == 0 || p.num_devices() == 1) return start;
  return LocalSearch::anneal(p, o, score, std::move(start), start_score);
}

}  // namespace devplace
