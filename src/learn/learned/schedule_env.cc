#include "learn/learned/schedule_env.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <queue>

#include "graph/op_costs.h"
#include "learn/representation/coarsen.h"
#include "place/placer.h"
#include "util/error.h"

namespace devplace {

namespace {

// Signed log scale: time gaps span orders of magnitude across graphs and devices.
float slog(double x) { return static_cast<float>(x >= 0 ? std::log1p(x) : -std::log1p(-x)); }

// Kahn's algorithm over a DAG of `n` nodes that takes, among the ready ones, the node `first`
// prefers (first(a, b): a goes before b).
template <class Preds, class Succs, class First>
std::vector<int> priority_topological_order(int n, Preds preds, Succs succs, First first) {
  auto later = [&](int a, int b) { return first(b, a); };
  std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
  std::vector<int> waiting(n, 0), order;
  for (int v = 0; v < n; ++v)
    if ((waiting[v] = static_cast<int>(preds(v).size())) == 0) ready.push(v);
  while (!ready.empty()) {
    const int v = ready.top();
    ready.pop();
    order.push_back(v);
    for (int s : succs(v))
      if (--waiting[s] == 0) ready.push(s);
  }
  return order;
}

// Depth-first: the same, but among the ready nodes the one readied last goes first (a branch is
// finished before the next starts); ties among nodes readied together by `first`.
template <class Preds, class Succs, class First>
std::vector<int> depth_first_topological_order(int n, Preds preds, Succs succs, First first) {
  std::vector<int> waiting(n, 0), order, stack, fresh;
  for (int v = 0; v < n; ++v)
    if ((waiting[v] = static_cast<int>(preds(v).size())) == 0) fresh.push_back(v);
  auto push = [&] {  // the preferred one on top
    std::sort(fresh.begin(), fresh.end(), [&](int a, int b) { return first(b, a); });
    stack.insert(stack.end(), fresh.begin(), fresh.end());
    fresh.clear();
  };
  push();
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    order.push_back(v);
    for (int s : succs(v))
      if (--waiting[s] == 0) fresh.push_back(s);
    push();
  }
  return order;
}

}  // namespace

ScheduleEnv::ScheduleEnv(const Problem& p, Objective objective, bool rollout_features)
    : p_(p),
      n_(p.num_ops()),
      D_(p.num_devices()),
      rollout_features_(rollout_features),
      tables_([&] {
        auto t = std::make_shared<Tables>(Tables{EdgeCosts(p), {}, {}});
        t->rank = upward_ranks(p, t->edges);
        if (objective == Objective::simulator) t->oct = optimistic_costs(p, t->edges);
        return t;
      }()),
      edges_(tables_->edges),
      rank_(tables_->rank),
      oct_(tables_->oct) {
  const Graph& g = p.graph();
  // The time unit: the mean over ops of their fastest time (ops with a kernel somewhere).
  double fastest_sum = 0;
  int timed = 0;
  for (int v = n_ - 1; v >= 0; --v) {  // the summation order the shipped policy was trained with
    double fastest = kInfeasibleTime;
    for (int d = 0; d < D_; ++d) fastest = std::min(fastest, p.op_time(v, d));
    if (fastest < kInfeasibleTime && fastest > 0) fastest_sum += fastest, ++timed;
  }
  unit_ = timed ? fastest_sum / timed : 1e-6;
  if (objective == Objective::tarnawski) {
    order_units(g);
  } else {
    for (int v : priority_topological_order(
             n_, [&](int v) -> const std::vector<int>& { return g.preds(v); },
             [&](int v) -> const std::vector<int>& { return g.succs(v); }, [&](int a, int b) { return decides_first(a, b); }))
      if (!is_folded(g, g.op(v))) decisions_.push_back(v);
  }
  kind_cpu_.resize(D_);
  kind_gpu_.resize(D_);
  for (int d = 0; d < D_; ++d) {
    kind_cpu_[d] = p.cluster().devices[d].kind == "cpu";
    kind_gpu_[d] = p.cluster().devices[d].kind == "gpu";
  }
  links_ = objective == Objective::simulator && D_ > 1;
  decides_.assign(n_, 0);
  for (int v : decisions_) decides_[v] = 1;
  for (const auto& unit : unit_ops_)
    for (int v : unit) decides_[v] = 1;
  if (links_) rank_order_ = decisions_;
  cand_.resize(D_);
  if (!oct_.empty() && rollout_features_) heft_placement();  // once, shared by the copies
  const auto& devices = p.cluster().devices;
  if (objective == Objective::simulator &&
      std::any_of(devices.begin(), devices.end(), [](const Device& dev) { return dev.memory_bytes > 0; }))
    live_fresh_.emplace(p);
  reset();
}

bool ScheduleEnv::decides_first(int a, int b) const {
  // The highest rank first (HEFT's order), ties by name: free of the ops' numbering, so a
  // renumbered graph is decided in the same order.
  if (rank_[a] != rank_[b]) return rank_[a] > rank_[b];
  return p_.graph().op(a).name < p_.graph().op(b).name;
}

void ScheduleEnv::order_units(const Graph& g) {
  CoarsenOptions co;
  co.merge_single_predecessor = false;  // co-location only: colour classes and the cycles they close
  const Coarsening c = coarsen(g, co);
  const int U = c.num_groups();
  // A unit's leader: its member decided first.
  std::vector<int> leader(U);
  for (int u = 0; u < U; ++u)
    leader[u] = *std::min_element(c.members[u].begin(), c.members[u].end(),
                                  [&](int a, int b) { return decides_first(a, b); });
  auto preds = [&](int u) -> const std::vector<int>& { return c.preds[u]; };
  auto succs = [&](int u) -> const std::vector<int>& { return c.succs[u]; };
  auto first = [&](int a, int b) { return decides_first(leader[a], leader[b]); };
  auto use = [&](const std::vector<int>& order) {
    decisions_.clear();
    unit_of_decision_.clear();
    unit_ops_.clear();
    for (int u : order) {
      decisions_.push_back(leader[u]);
      unit_of_decision_.push_back(u);
      std::vector<int> ops = {leader[u]};
      for (int v : c.members[u])
        if (v != leader[u]) ops.push_back(v);
      unit_ops_.push_back(std::move(ops));
    }
  };
  use(priority_topological_order(U, preds, succs, first));
  contiguity_.emplace(p_, c);
  if (!rollout_features_) return;
  // With the cut-point features, the units go in whichever of three topological orders can be cut
  // most cheaply (the least cost-to-go from the start): by rank (above), depth-first (a branch
  // before the next) or by depth (layer by layer). Which one suits depends on the graph's shape.
  build_cuts();
  std::shared_ptr<const Cuts> best = cuts_;
  std::vector<int> best_order = unit_of_decision_;
  std::vector<int> depth(U, 0), waiting(U), queue;
  for (int u = 0; u < U; ++u)
    if ((waiting[u] = static_cast<int>(c.preds[u].size())) == 0) queue.push_back(u);
  for (std::size_t h = 0; h < queue.size(); ++h)
    for (int y : c.succs[queue[h]]) {
      depth[y] = std::max(depth[y], depth[queue[h]] + 1);
      if (--waiting[y] == 0) queue.push_back(y);
    }
  for (const std::vector<int>& order :
       {depth_first_topological_order(U, preds, succs, first),
        priority_topological_order(U, preds, succs, [&](int a, int b) { return depth[a] != depth[b] ? depth[a] < depth[b] : first(a, b); })}) {
    use(order);
    cuts_.reset();
    scan_.reset();
    build_cuts();
    if (cuts_->cost.at(0, 0) < best->cost.at(0, 0)) best = cuts_, best_order = order;
  }
  use(best_order);
  cuts_ = best;
  scan_.reset();
  build_cuts();  // the scan of the order chosen
}

void ScheduleEnv::reset() {
  step_ = 0;
  device_.assign(n_, 0);
  finish_.assign(n_, 0);
  launched_.assign(n_, 0);
  avail_.assign(D_, 0);
  stream_free_.assign(D_, 0);
  busy_.assign(D_, 0);
  ledger_.emplace(p_, edges_);
  if (live_fresh_) live_.emplace(*live_fresh_);
  if (contiguity_) contiguity_->reset();
  cand_for_ = rollout_for_ = -1;
  run_start_ = -1;
  horizon_ = 0;
  if (links_) {
    link_busy_.assign(static_cast<std::size_t>(D_) * D_, {});
    arrival_.assign(static_cast<std::size_t>(n_) * D_, -1);
    device_busy_.assign(D_, {});
    decisions_ = rank_order_;
    position_.resize(n_);
    for (std::size_t k = 0; k < decisions_.size(); ++k) position_[decisions_[k]] = static_cast<int>(k);
    waiting_.assign(n_, 0);
    frontier_.clear();
    for (int v : decisions_) {
      for (int e = edges_.in_begin(v); e < edges_.in_end(v); ++e) waiting_[v] += decides_[edges_.src(e)];
      if (waiting_[v] == 0) enter_frontier(v);
    }
    advance_order();
  }
}

void ScheduleEnv::enter_frontier(int v) {
  // Its producers are all decided, so when its inputs are made is fixed from now on.
  double made = 0;
  for (int e = edges_.in_begin(v); e < edges_.in_end(v); ++e) made = std::max(made, launched_[edges_.src(e)]);
  frontier_.push_back({made, v});
  std::push_heap(frontier_.begin(), frontier_.end(), [&](const Ready& a, const Ready& b) { return goes_after(a, b); });
}

bool ScheduleEnv::goes_after(const Ready& a, const Ready& b) const {
  return a.made != b.made ? a.made > b.made : decides_first(b.op, a.op);
}

void ScheduleEnv::advance_order() {
  if (frontier_.empty()) return;
  std::pop_heap(frontier_.begin(), frontier_.end(), [&](const Ready& a, const Ready& b) { return goes_after(a, b); });
  const int v = frontier_.back().op;
  frontier_.pop_back();
  // The chosen op swaps places with the one at this step.
  const int here = decisions_[step_], at = position_[v];
  std::swap(decisions_[step_], decisions_[at]);
  position_[v] = step_, position_[here] = at;
}

double ScheduleEnv::kernel_time(int v, int d) const {
  // Fused into its producer's kernel when that producer is on d, else its own kernel.
  const int parent = p_.fusion_parent(v, d);
  return p_.task_time(v, d, parent >= 0 && device_[parent] == d ? p_.op_time(v, d) : p_.standalone_time(v, d));
}

double ScheduleEnv::start_time(int d, double ready) const {
  // Under an execution model a task that finds its worker idle pays the worker's wake-up.
  return std::max(ready, avail_[d]) + (ready > avail_[d] ? p_.wake_time(d) : 0.0);
}

void ScheduleEnv::evaluate_current() const {
  if (cand_for_ == step_) return;
  const int v = current_op();
  for (int d = 0; d < D_; ++d) {
    Candidate& c = cand_[d];
    c.time = kernel_time(v, d);
    c.runs = c.time < kInfeasibleTime;
    c.fits = c.runs && (ledger_->fits(v, d, device_) || (live_ && live_->fits(v, d, device_)));
    c.ready = links_ ? linked_ready(v, d, false) : edges_.data_ready(v, d, device_, finish_);
    const double kernel = c.runs ? stream_part(v, d) : 0.0, launch = c.time - kernel;
    c.start = links_ && c.runs ? earliest_slot(device_busy_[d], c.ready, launch, p_.wake_time(d))
                                          : start_time(d, c.ready);
    if (links_) unbook_copies();
    c.finish = c.runs ? kernel_end(d, c.start + launch, kernel) : kInfeasibleTime;
  }
  cand_for_ = step_;
}

void ScheduleEnv::observe(float* f, std::uint8_t* allowed) const {
  evaluate_current();
  const int v = current_op();
  double min_time = kInfeasibleTime, min_finish = kInfeasibleTime, min_ready = kInfeasibleTime,
         min_avail = kInfeasibleTime, busy_total = 0, max_pred_finish = 0, min_look = kInfeasibleTime;
  const double* oct = oct_row(v);
  double min_rollout = kInfeasibleTime;
  const int rolled_to = (oct || contiguity_) && rollout_features_ ? rollout_device() : -1;  // evaluates them
  if (rolled_to >= 0)
    for (double m : rollout_) min_rollout = std::min(min_rollout, m);
  for (int d = 0; d < D_; ++d) {
    const Candidate& c = cand_[d];
    min_time = std::min(min_time, c.time);
    min_finish = std::min(min_finish, c.finish);
    if (oct && c.runs) min_look = std::min(min_look, c.finish + oct[d]);
    min_ready = std::min(min_ready, c.ready);
    min_avail = std::min(min_avail, avail_[d]);
    busy_total += busy_[d];
  }
  int preds = 0;
  std::vector<int> preds_on(D_, 0);
  for (int e = edges_.in_begin(v); e < edges_.in_end(v); ++e) {
    const int u = edges_.src(e);
    ++preds;
    ++preds_on[device_[u]];
    max_pred_finish = std::max(max_pred_finish, finish_[u]);
  }
  const double u = unit_;
  for (int d = 0; d < D_; ++d) {
    const Candidate& c = cand_[d];
    allowed[d] = is_allowed(d);
    float* r = f + static_cast<std::size_t>(d) * kFeatures;
    const bool timed = c.runs && min_time < kInfeasibleTime;
    const int parent = p_.fusion_parent(v, d);
    const std::int64_t free = ledger_->free_bytes(d), cap = p_.cluster().devices[d].memory_bytes;
    r[0] = timed ? slog((c.time - min_time) / std::max(min_time, 0.01 * u)) : 10.f;
    r[1] = timed ? slog((c.finish - min_finish) / u) : 10.f;
    r[2] = slog((c.ready - min_ready) / u);
    r[3] = slog((avail_[d] - min_avail) / u);
    r[4] = slog(std::max(0.0, c.ready - max_pred_finish) / u);
    r[5] = preds ? static_cast<float>(preds_on[d]) / preds : 0.f;
    r[6] = parent >= 0 && device_[parent] == d ? 1.f : 0.f;
    r[7] = busy_total > 0 ? static_cast<float>(busy_[d] / busy_total) : 0.f;
    r[8] = cap > 0 ? static_cast<float>(std::clamp(1.0 - static_cast<double>(free) / cap, 0.0, 1.0)) : 0.f;
    r[9] = timed && c.finish == min_finish ? 1.f : 0.f;
    r[10] = timed && c.time == min_time ? 1.f : 0.f;
    r[11] = static_cast<float>(step_) / std::max<int>(1, num_decisions());
    r[12] = slog(rank_[v] / u);
    r[13] = timed ? slog(c.time / u) : 10.f;
    r[14] = kind_cpu_[d];
    r[15] = kind_gpu_[d];
    r[16] = !kind_cpu_[d] && !kind_gpu_[d];
    double slower = 0;
    int consumers = 0;
    bool heads = false;
    for (int k = edges_.out_begin(v); k < edges_.out_end(v); ++k) {
      const int s = edges_.dst(edges_.out_edge(k));
      double fastest = kInfeasibleTime;
      for (int x = 0; x < D_; ++x) fastest = std::min(fastest, p_.op_time(s, x));
      const double t = p_.op_time(s, d);
      slower += t < kInfeasibleTime ? (t - fastest) / u : 10.0;
      ++consumers;
      heads |= p_.fusion_parent(s, d) == v;
    }
    r[17] = consumers ? slog(slower / consumers) : 0.f;
    r[18] = heads ? 1.f : 0.f;
    const double look = oct ? c.finish + oct[d] : 0.0;
    r[19] = !oct ? 0.f : timed ? slog((look - min_look) / u) : 10.f;
    r[20] = oct && timed && look == min_look ? 1.f : 0.f;
    const bool rolled = rolled_to >= 0 && rollout_[d] < kInfeasibleTime;
    r[21] = rolled_to < 0 ? 0.f : rolled ? slog((rollout_[d] - min_rollout) / u) : 10.f;
    r[22] = d == rolled_to ? 1.f : 0.f;
  }
}

std::vector<float> ScheduleEnv::op_features() const {
  std::vector<float> x(static_cast<std::size_t>(n_) * kOpFeatures, 0.f);
  const double u = unit_;
  for (int v = 0; v < n_; ++v) {
    float* r = &x[static_cast<std::size_t>(v) * kOpFeatures];
    double fastest = kInfeasibleTime, slowest = 0;
    for (int d = 0; d < D_; ++d) {
      const double t = p_.op_time(v, d);
      if (t < kInfeasibleTime) fastest = std::min(fastest, t), slowest = std::max(slowest, t);
    }
    double out_cost = 0;
    const int outs = edges_.out_end(v) - edges_.out_begin(v);
    for (int k = edges_.out_begin(v); k < edges_.out_end(v); ++k) out_cost += edges_.mean_cost(edges_.out_edge(k));
    if (fastest < kInfeasibleTime) {
      r[0] = slog(fastest / u);
      r[1] = slog((slowest - fastest) / std::max(fastest, 0.01 * u));
    }
    r[2] = slog(rank_[v] / u);
    r[3] = outs ? slog(out_cost / outs / u) : 0.f;
    r[4] = slog(edges_.in_end(v) - edges_.in_begin(v));
    r[5] = slog(outs);
    r[6] = decides_[v];
  }
  return x;
}

bool ScheduleEnv::is_allowed(int d) const {
  if (contiguity_) return (contiguity_->allowed(unit_of_decision_[step_]) >> d) & 1;
  bool any_fits = false, any_runs = false;
  for (const Candidate& c : cand_) any_fits |= c.fits, any_runs |= c.runs;
  return any_fits ? cand_[d].fits : any_runs ? cand_[d].runs : d == 0;
}

int ScheduleEnv::least_allowed(const double* extra) const {
  evaluate_current();
  auto key = [&](int d) { return cand_[d].finish + (extra ? extra[d] : 0.0); };
  int best = -1;
  for (int d = 0; d < D_; ++d)
    if (is_allowed(d) && (best < 0 || key(d) < key(best))) best = d;
  return best < 0 ? 0 : best;
}

int ScheduleEnv::earliest_finish_device() const { return least_allowed(nullptr); }

int ScheduleEnv::lookahead_device() const { return least_allowed(oct_row(current_op())); }

void ScheduleEnv::evaluate_rollouts() const {
  if (rollout_for_ == step_) return;
  rollout_.assign(D_, kInfeasibleTime);
  evaluate_current();
  int allowed = 0;
  for (int d = 0; d < D_; ++d) allowed += is_allowed(d);
  for (int d = 0; d < D_; ++d) {
    if (!is_allowed(d)) continue;
    if (allowed == 1) {  // no choice to make: no episode to play
      rollout_[d] = 0;
      continue;
    }
    for (const bool stay : {false, true}) {  // the two bases: the lookahead choice, and staying on d
      ScheduleEnv episode(*this);
      episode.step(d);
      for (int h = 0; h < kRolloutHorizon && !episode.done(); ++h) {
        const int next = episode.lookahead_device();
        episode.step(stay && episode.is_allowed(d) ? d : next);
      }
      rollout_[d] = std::min(rollout_[d], episode.horizon_);
    }
    if (const Placement& heft = heft_placement(); !heft.empty()) {  // the third base: HEFT's devices
      ScheduleEnv episode(*this);
      episode.step(d);
      for (int h = 0; h < kRolloutHorizon && !episode.done(); ++h) episode.step(episode.follow_or_lookahead(heft));
      rollout_[d] = std::min(rollout_[d], episode.horizon_);
    }
  }
  rollout_for_ = step_;
}

const Placement& ScheduleEnv::heft_placement() const {
  if (!heft_) {
    Placement heft;
    try {
      heft = make_heft_placer()->place(p_, PlaceOptions{});
    } catch (const Error&) {
      heft.clear();  // no third base
    }
    if (static_cast<int>(heft.size()) != n_) heft.clear();
    heft_ = std::make_shared<const Placement>(std::move(heft));
  }
  return *heft_;
}

void ScheduleEnv::build_cuts() const {
  if (scan_) return;
  std::vector<std::vector<int>> units = unit_ops_;
  for (auto& u : units) std::sort(u.begin(), u.end());  // op index is topological
  scan_.emplace(p_, std::move(units));
  run_scan_.reset();
  run_scan_.emplace(*scan_);
  run_start_ = -1;
  if (cuts_) return;
  auto c = std::make_shared<Cuts>();
  c->acc_index.assign(D_, -1);
  for (int k = 0; k < static_cast<int>(scan_->acc().size()); ++k) c->acc_index[scan_->acc()[k]] = k;
  c->cost = segment_cost_to_go(*scan_);
  cuts_ = std::move(c);
}

void ScheduleEnv::evaluate_cuts() const {
  if (rollout_for_ == step_) return;
  build_cuts();
  const Cuts& c = *cuts_;
  const SegmentCostToGo& rest = c.cost;
  const int U = num_decisions(), i = step_, host = p_.host();
  // The decisions so far as runs of the unit order: the run that the last one ends (its device
  // `cur` and first decision `s`) and the accelerators used.
  std::uint64_t used = 0;
  for (int j = 0; j < i; ++j)
    if (const int d = device_[decisions_[j]]; d != host) used |= std::uint64_t{1} << d;
  const int k = std::popcount(used), cur = i > 0 ? device_[decisions_[i - 1]] : -1;
  int s = i;
  while (s > 0 && device_[decisions_[s - 1]] == cur) --s;
  rollout_.assign(D_, kInfeasibleTime);
  // A run's serial cost, and a lower bound of it for every longer run.
  auto cost = [&](const SegmentScan& scan, int d) { return d == host ? scan.cpu() : scan.accel(c.acc_index[d]); };
  auto floor = [&](const SegmentScan& scan, int d) {
    const int a = c.acc_index[d];
    return d == host ? scan.cpu() : scan.fits(a) ? scan.accel_floor(a) : kInfeasibleTime;
  };
  double close = 0;  // the current run's cost if it ends before unit i
  if (cur >= 0) {    // keep the current run going through unit i and beyond
    SegmentScan& run = *run_scan_;
    if (run_start_ != s || run_device_ != cur || run_used_ != k) {
      run.start(s);
      run_start_ = s, run_device_ = cur, run_used_ = k;
      run_cost_.clear();
    }
    while (run.end() < i) run.extend(), run_cost_.push_back(cost(run, cur));
    close = run_cost_[i - 1 - s];
    double& best = rollout_[cur];
    for (int l = i; l < run.end(); ++l)
      if (run_cost_[l - s] < kInfeasibleTime && rest.at(l + 1, k) < kInfeasibleTime)
        best = std::min(best, run_cost_[l - s] + rest.at(l + 1, k));
    while (run.end() < U && floor(run, cur) < best) {
      run.extend();
      const double v = cost(run, cur);
      run_cost_.push_back(v);
      if (v < kInfeasibleTime && rest.at(run.end(), k) < kInfeasibleTime) best = std::min(best, v + rest.at(run.end(), k));
    }
  }
  // Or end it and start a run at unit i on the host or on an accelerator not used yet.
  std::vector<int> fresh;
  if (cur != host) fresh.push_back(host);
  for (int d = 0; d < D_; ++d)
    if (d != host && !((used >> d) & 1)) fresh.push_back(d);
  if (rest.per_accel) {  // from the tables
    for (int d : fresh) {
      const double v = d == host ? rest.host(i, k) : rest.accel(i, k, c.acc_index[d]);
      if (v < kInfeasibleTime) rollout_[d] = close + v;
    }
  } else {  // too many accelerators for the table: scan
    SegmentScan& scan = *scan_;
    std::vector<double> best(D_, kInfeasibleTime);
    scan.start(i);
    for (bool live = true; live && scan.end() < U;) {
      scan.extend();
      live = false;
      for (int d : fresh) {
        if (!(floor(scan, d) < best[d])) continue;
        live = true;
        const double after = rest.at(scan.end(), d == host ? k : k + 1);
        if (const double v = cost(scan, d); v < kInfeasibleTime && after < kInfeasibleTime)
          best[d] = std::min(best[d], v + after);
      }
    }
    for (int d : fresh)
      if (best[d] < kInfeasibleTime) rollout_[d] = close + best[d];
  }
  evaluate_current();
  for (int d = 0; d < D_; ++d)
    if (!is_allowed(d)) rollout_[d] = kInfeasibleTime;
  rollout_for_ = step_;
}

int ScheduleEnv::rollout_device() const {
  if (contiguity_) {
    evaluate_cuts();
    int best = -1;
    for (int d = 0; d < D_; ++d)
      if (rollout_[d] < kInfeasibleTime && (best < 0 || rollout_[d] < rollout_[best])) best = d;
    return best < 0 ? earliest_finish_device() : best;
  }
  if (oct_.empty()) return earliest_finish_device();
  evaluate_rollouts();
  int best = lookahead_device();
  for (int d = 0; d < D_; ++d)
    if (rollout_[d] < rollout_[best]) best = d;
  return best;
}

int ScheduleEnv::follow_or_lookahead(const Placement& follow) const {
  const int next = lookahead_device();  // evaluates the current op's candidates, which is_allowed reads
  const int d = follow[current_op()];
  return is_allowed(d) ? d : next;
}

double ScheduleEnv::earliest_slot(const std::vector<Interval>& timeline, double ready, double length, double wake) {
  // The first interval that ends after `ready`; the ones before it cannot delay the task.
  auto it = std::upper_bound(timeline.begin(), timeline.end(), ready,
                             [](double t, const Interval& iv) { return t < iv.end; });
  double idle_from = it == timeline.begin() ? 0.0 : std::prev(it)->end;
  for (;; ++it) {
    const double start = ready > idle_from ? ready + wake : idle_from;
    if (it == timeline.end() || start + length <= it->start) return start;
    idle_from = it->end;
  }
}

bool ScheduleEnv::occupy(std::vector<Interval>& timeline, double start, double end) {
  if (!(end > start)) return false;  // takes no time: nothing to book
  auto it = std::upper_bound(timeline.begin(), timeline.end(), start,
                             [](double t, const Interval& iv) { return t < iv.start; });
  timeline.insert(it, {start, end});
  return true;
}

double ScheduleEnv::linked_ready(int v, int d, bool book) const {
  double ready = 0;
  std::vector<int>& sends = sends_;
  sends.clear();
  for (int e = edges_.in_begin(v); e < edges_.in_end(v); ++e) {
    const int u = edges_.src(e);
    const double arrived = arrival_[static_cast<std::size_t>(u) * D_ + d];
    if (device_[u] == d) ready = std::max(ready, launched_[u]);
    else if (arrived >= 0) ready = std::max(ready, arrived);
    else sends.push_back(e);
  }
  // The copies go in the order their producers finish (ties by name: free of the numbering).
  const Graph& g = p_.graph();
  std::sort(sends.begin(), sends.end(), [&](int a, int b) {
    const int ua = edges_.src(a), ub = edges_.src(b);
    if (finish_[ua] != finish_[ub]) return finish_[ua] < finish_[ub];
    return g.op(ua).name < g.op(ub).name;
  });
  // Each copy takes the first gap on its link from when its producer finishes; under an execution
  // model a copy between two host devices is a task of the destination's worker (sim/simulator.h)
  // and takes the first gap there instead. Copies only estimated are taken back afterwards
  // (unbook_copies).
  booked_.clear();
  const Problem::Execution* x = p_.execution();
  const bool on_worker = x && !x->async[d];
  for (int e : sends) {
    const int u = edges_.src(e), s = device_[u];
    const double cost = edges_.cost(e, s, d);
    const bool worker = on_worker && !x->async[s];
    const int timeline = worker ? -1 - d : s * D_ + d;  // booked_'s key: a worker (< 0) or a link
    std::vector<Interval>& busy = worker ? device_busy_[d] : link_busy_[timeline];
    const double start = earliest_slot(busy, finish_[u], cost, worker ? p_.wake_time(d) : 0.0);
    if (occupy(busy, start, start + cost)) booked_.push_back({timeline, start});
    ready = std::max(ready, start + cost);
    if (book) arrival_[static_cast<std::size_t>(u) * D_ + d] = start + cost;
  }
  if (book) booked_.clear();
  return ready;
}

void ScheduleEnv::unbook_copies() const {
  for (const auto& [key, start] : booked_) {
    auto& timeline = key < 0 ? device_busy_[-1 - key] : link_busy_[key];
    timeline.erase(std::find_if(timeline.begin(), timeline.end(), [&](const Interval& iv) { return iv.start == start; }));
  }
  booked_.clear();
}

double ScheduleEnv::stream_part(int v, int d) const {
  const Problem::Execution* x = p_.execution();
  return links_ && x && x->async[d] && !p_.folded(v) ? p_.stream_time(v, d) : 0.0;
}

double ScheduleEnv::kernel_end(int d, double launched, double kernel) const {
  return kernel > 0 ? std::max(launched, stream_free_[d]) + kernel : launched;
}

void ScheduleEnv::commit(int v, int d, double start, double time) {
  const double kernel = time > 0 ? stream_part(v, d) : 0.0;
  device_[v] = d;
  launched_[v] = start + time - kernel;
  finish_[v] = kernel_end(d, launched_[v], kernel);
  if (kernel > 0) stream_free_[d] = finish_[v];
  avail_[d] = std::max(avail_[d], finish_[v]);
  if (!oct_.empty()) horizon_ = std::max(horizon_, finish_[v] + oct_row(v)[d]);
  if (links_) occupy(device_busy_[d], start, launched_[v]);
  busy_[d] += time;
  ledger_->commit(v, d, device_);
  if (live_) live_->commit(v, d, device_);
}

void ScheduleEnv::step(int d) {
  evaluate_current();
  const Candidate& c = cand_[d];
  if (links_) linked_ready(current_op(), d, true);
  commit(current_op(), d, c.runs ? c.start : c.ready, c.runs ? c.time : 0);
  if (contiguity_) {  // the rest of the unit follows its leader, in op (topological) order
    const std::vector<int>& ops = unit_ops_[step_];
    for (std::size_t k = 1; k < ops.size(); ++k) {
      const int v = ops[k];
      const double time = kernel_time(v, d);
      const double ready = edges_.data_ready(v, d, device_, finish_);
      commit(v, d, time < kInfeasibleTime ? start_time(d, ready) : ready, time < kInfeasibleTime ? time : 0);
    }
    contiguity_->choose(unit_of_decision_[step_], d);
  }
  if (links_) {
    const int v = current_op();
    for (int k = edges_.out_begin(v); k < edges_.out_end(v); ++k) {
      const int s = edges_.dst(edges_.out_edge(k));
      if (decides_[s] && --waiting_[s] == 0) enter_frontier(s);
    }
  }
  ++step_;
  if (links_ && !done()) advance_order();
}

}  // namespace devplace
