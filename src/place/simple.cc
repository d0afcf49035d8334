// The floors every method must beat: one device for everything, a seeded random placement,
// round-robin over the topological order, and the makespan lower bound.
#include <algorithm>

#include "place/placer.h"
#include "place/random_placement.h"
#include "place/reward.h"

namespace devplace {

namespace {

class SingleDevice : public Placer {
 public:
  SingleDevice(int d, std::string n) : device_(d), name_(std::move(n)) {}
  std::string name() const override { return name_ + "-only"; }
  Placement place(const Problem& p, const PlaceOptions&) override { return Placement(p.num_ops(), device_); }

 private:
  int device_;
  std::string name_;
};

// Random over the devices that can run each op, so the floor is feasible where possible.
class RandomPlacer : public Placer {
 public:
  std::string name() const override { return "random"; }
  Placement place(const Problem& p, const PlaceOptions& o) override { return RandomPlacements(o.seed).runnable(p); }
};

// The uniform random policy at a budget: the best of eval_budget (default 64) runnable random
// placements, judged under the objective. The control every learned placer is measured against.
class RandomBest : public Placer {
 public:
  std::string name() const override { return "random-best"; }
  Placement place(const Problem& p, const PlaceOptions& o) override {
    RandomPlacements draw(o.seed);
    SearchReward reward(p, o);
    const std::int64_t n = o.eval_budget > 0 ? o.eval_budget : 64;
    Placement best;
    double best_latency = kInfeasibleTime;
    for (std::int64_t k = 0; k < n; ++k) {
      Placement pl = draw.runnable(p);
      const double l = reward.reward().latency(pl);
      if (best.empty() || l < best_latency) best_latency = l, best = std::move(pl);
    }
    return best;
  }
};

class RoundRobin : public Placer {
 public:
  std::string name() const override { return "round-robin"; }
  Placement place(const Problem& p, const PlaceOptions&) override {
    Placement out(p.num_ops());
    int next = 0;
    for (int i = 0; i < p.num_ops(); ++i) {
      // Skip devices that cannot run the op; fall back to the cyclic choice if none can.
      int d = next;
      for (int k = 0; k < p.num_devices(); ++k) {
        int c = (next + k) % p.num_devices();
        if (p.op_time(i, c) < kInfeasibleTime) {
          d = c;
          break;
        }
      }
      out[i] = d;
      next = (d + 1) % p.num_devices();
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Placer> make_single_device(int device, const std::string& device_name) {
  return std::make_unique<SingleDevice>(device, device_name);
}
std::unique_ptr<Placer> make_random_placer() { return std::make_unique<RandomPlacer>(); }
std::unique_ptr<Placer> make_random_best_placer() { return std::make_unique<RandomBest>(); }
std::unique_ptr<Placer> make_round_robin_placer() { return std::make_unique<RoundRobin>(); }

double makespan_lower_bound(const Problem& p) {
  const Graph& g = p.graph();
  std::vector<double> finish(p.num_ops(), 0.0);
  double path = 0, work = 0;
  for (int i = 0; i < p.num_ops(); ++i) {  // ops are in topological order
    double best = kInfeasibleTime;
    for (int d = 0; d < p.num_devices(); ++d) best = std::min(best, p.op_time(i, d));
    double start = 0;
    for (int q : g.preds(i)) start = std::max(start, finish[q]);
    finish[i] = start + best;
    path = std::max(path, finish[i]);
    work += best;
  }
  return std::max(path, work / p.num_devices());
}

}  // namespace devplace
