#include "place/segment_search.h"

#include <algorithm>
#include <unordered_set>

#include "place/list_schedule.h"
#include "place/reward.h"
#include "place/tarnawski_placers.h"
#include "util/error.h"

namespace devplace {

namespace {

// Boundary shifts tried between neighbouring segments, in blocks (a whole segment as well).
constexpr int kShifts[] = {1, 2, 4, 8, 16};

std::uint64_t placement_hash(const Placement& pl) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the devices
  for (int d : pl) h = (h ^ static_cast<std::uint64_t>(d + 1)) * 1099511628211ULL;
  return h;
}

struct Segment {
  int begin, end, device;  // units [begin, end) in the order, all on device
};

class SegmentSearch {
 public:
  SegmentSearch(const Problem& p, const std::vector<std::vector<int>>& units, ObjectiveFn& score, Placement start,
                std::int64_t budget)
      : p_(p), units_(units), score_(score), cur_(std::move(start)), budget_(budget) {}

  Placement run() {
    cur_cost_ = evaluate(cur_);
    while (used_ < budget_) {
      if (improve_locally()) continue;
      if (!open_accelerator()) break;
    }
    return cur_;
  }
  std::int64_t used() const { return used_; }

 private:
  int device_of(int u) const { return cur_[units_[u][0]]; }

  std::vector<Segment> segments() const {
    std::vector<Segment> s;
    for (int u = 0; u < static_cast<int>(units_.size()); ++u) {
      const int d = device_of(u);
      if (!s.empty() && s.back().device == d)
        s.back().end = u + 1;
      else
        s.push_back({u, u + 1, d});
    }
    return s;
  }

  double evaluate(const Placement& pl) {
    ++used_;
    return score_(pl);
  }

  // The latency with units [begin, end) on `device` (the incumbent otherwise), or +inf when that
  // placement was scored before or the budget is spent. Leaves the incumbent as it was.
  double try_move(int begin, int end, int device) {
    if (used_ >= budget_) return kInfeasibleTime;
    saved_.clear();
    for (int u = begin; u < end; ++u)
      for (int v : units_[u]) saved_.push_back(cur_[v]), cur_[v] = device;
    double c = kInfeasibleTime;
    if (seen_.insert(placement_hash(cur_)).second) c = evaluate(cur_);
    std::size_t k = 0;
    for (int u = begin; u < end; ++u)
      for (int v : units_[u]) cur_[v] = saved_[k++];
    return c;
  }

  void apply(int begin, int end, int device, double cost) {
    for (int u = begin; u < end; ++u)
      for (int v : units_[u]) cur_[v] = device;
    cur_cost_ = cost;
  }

  // Best improvement over boundary shifts, joins and segments sent to the host.
  bool improve_locally() {
    seen_.insert(placement_hash(cur_));
    const std::vector<Segment> s = segments();
    Segment best{0, 0, -1};
    double best_cost = cur_cost_ * (1 - 1e-12);
    auto consider = [&](int begin, int end, int device) {
      const double c = try_move(begin, end, device);
      if (c < best_cost) best_cost = c, best = {begin, end, device};
    };
    for (std::size_t j = 0; j + 1 < s.size(); ++j) {
      const Segment &a = s[j], &b = s[j + 1];
      consider(b.begin, b.end, a.device);  // b joins a's device
      consider(a.begin, a.end, b.device);  // a joins b's device
      for (int shift : kShifts) {
        if (shift < b.end - b.begin) consider(b.begin, b.begin + shift, a.device);
        if (shift < a.end - a.begin) consider(a.end - shift, a.end, b.device);
      }
    }
    for (const Segment& x : s)
      if (x.device != p_.host()) consider(x.begin, x.end, p_.host());
    if (best.device < 0) return false;
    apply(best.begin, best.end, best.device, best_cost);
    return true;
  }

  // First improvement: a stretch of a host segment to the first accelerator no op uses.
  bool open_accelerator() {
    std::vector<char> used(p_.num_devices(), 0);
    for (int d : cur_) used[d] = 1;
    int fresh = -1;
    for (int d = 0; d < p_.num_devices() && fresh < 0; ++d)
      if (d != p_.host() && !used[d]) fresh = d;
    if (fresh < 0) return false;
    for (const Segment& x : segments()) {
      if (x.device != p_.host()) continue;
      for (int length = 2; length <= x.end - x.begin; length *= 2)
        for (int at = x.begin; at + length <= x.end; at += length / 2) {
          if (used_ >= budget_) return false;
          const double c = try_move(at, at + length, fresh);
          if (c < cur_cost_ * (1 - 1e-12)) {
            apply(at, at + length, fresh, c);
            return true;
          }
        }
    }
    return false;
  }

  const Problem& p_;
  const std::vector<std::vector<int>>& units_;
  ObjectiveFn& score_;
  Placement cur_;
  double cur_cost_ = kInfeasibleTime;
  std::int64_t budget_, used_ = 0;
  std::unordered_set<std::uint64_t> seen_;
  std::vector<int> saved_;
};

class SegmentSearchPlacer : public Placer {
 public:
  std::string name() const override { return "segment-search"; }
  Placement place(const Problem& p, const PlaceOptions& o) override {
    if (o.objective != Objective::tarnawski)
      throw Error(p.graph().source(), "", "segment-search: for --objective tarnawski only", ErrorKind::unsupported);
    if (p.host() < 0) throw Error(p.graph().source(), "", "segment-search: the cluster has no cpu (host) device", ErrorKind::unsupported);
    if (p.num_ops() == 0) return {};
    SearchReward reward(p, o);
    ObjectiveFn score = reward.score();
    const std::int64_t budget = o.eval_budget > 0 ? o.eval_budget : 2000;
    Placement start(p.num_ops(), p.host());
    const Placement greedy = tarnawski_greedy_placement(p);
    if (score(greedy) < score(start)) start = greedy;
    return segment_search(p, segment_units(p), score, std::move(start), std::max<std::int64_t>(1, budget - 2));
  }
};

}  // namespace

std::vector<std::vector<int>> segment_units(const Problem& p) {
  const TarnawskiBlocks b = tarnawski_blocks(p);
  const int B = b.size();
  const std::vector<double> rank = upward_ranks(p, EdgeCosts(p));
  // A block's leader: its member of highest rank (ties by name).
  auto first = [&](int x, int y) {
    if (rank[x] != rank[y]) return rank[x] > rank[y];
    return p.graph().op(x).name < p.graph().op(y).name;
  };
  std::vector<int> leader(B);
  for (int x = 0; x < B; ++x) leader[x] = *std::min_element(b.members[x].begin(), b.members[x].end(), first);
  // Depth first (Kahn's algorithm with a stack): a branch is followed to its join before the next
  // one starts, so a branch forms one stretch of the order. The newly ready blocks go on the
  // stack worst first, the best (highest leader rank) on top. A placement good under this model
  // is a few such stretches, so a branch should be one segment, not interleaved with its siblings.
  std::vector<int> waiting(B), stack, ready;
  auto push = [&] {
    std::sort(ready.begin(), ready.end(), [&](int x, int y) { return first(leader[y], leader[x]); });
    stack.insert(stack.end(), ready.begin(), ready.end());
    ready.clear();
  };
  for (int x = 0; x < B; ++x)
    if ((waiting[x] = static_cast<int>(b.preds[x].size())) == 0) ready.push_back(x);
  push();
  std::vector<std::vector<int>> units;
  units.reserve(B);
  while (!stack.empty()) {
    const int x = stack.back();
    stack.pop_back();
    units.push_back(b.members[x]);
    for (int y : b.succs[x])
      if (--waiting[y] == 0) ready.push_back(y);
    push();
  }
  return units;
}

Placement segment_search(const Problem& p, const std::vector<std::vector<int>>& units, ObjectiveFn& score,
                         Placement start, std::int64_t budget, std::int64_t* evaluations) {
  SegmentSearch s(p, units, score, std::move(start), budget);
  Placement best = s.run();
  if (evaluations) *evaluations = s.used();
  return best;
}

std::unique_ptr<Placer> make_segment_search_placer() { return std::make_unique<SegmentSearchPlacer>(); }

}  // namespace devplace
