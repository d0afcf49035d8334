#include "learn/learned/move_policy.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>

#include "learn/rl/archive_io.h"
#include "learn/learned/move_features.h"
#include "learn/learned/row_scorer.h"
#include "learn/rl/torch_scope.h"
#include "sim/simulator.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {

namespace {

constexpr int kF = MoveFeatures::kFeatures;
// Format of a move-policy archive; other numbers than the list policy's (1, 2) so that neither
// loads the other's file.
constexpr std::int64_t kFormat = 101;
constexpr std::int64_t kEnsembleFormat = 102;  // several scorers, their predictions averaged
// Improvements are regressed in percent of the latency, clipped: a move that makes a placement
// infeasible or 10% slower teaches the same.
constexpr double kClip = 10;
// The search evaluates the best k untried moves together, k adapting like a trust region's
// radius: it starts at 16, doubles after an improvement (up to 256) and falls to a quarter (at
// least 1) after a failure, so it takes many moves per evaluation while the ranking holds.
constexpr int kFirstSetSize = 16;
constexpr int kLargestSet = 256;
// A failed set at most 1% slower than the incumbent becomes the incumbent, at most 4 times per
// search: moves that only pay together each look like a loss alone. The search still returns
// the best placement it evaluated.
constexpr double kSidewaysSlack = 0.01;
constexpr int kSidewaysSteps = 4;
// The search corrects its scorer by the single moves it evaluated (MoveCorrection), each class's
// mean error shrunk by one more error of nothing; sets are no evidence (a failed set says little
// of each move in it).
constexpr double kCorrectionPrior = 1;
// An improvement under 0.3% keeps the moves that failed set aside, so that a negligible change
// (a move of an op with slack gains next to nothing) does not make the search retry them all.
constexpr double kNegligibleGain = 0.003;
// Stuck at a placement no single move improves, with evaluations left, the search goes back to
// the fastest placement evaluated and makes 8 of its best-ranked moves at once (the next 8 at the
// next such stop), keeps the result whatever it costs and searches on from there, rather than
// stop with budget left.
constexpr int kKickMoves = 8;
// The scorer reads a placement's moves 1,024 rows at a time: the hidden layers of ten thousand
// rows at once leave the cache; chunks give the same predictions faster.
constexpr std::int64_t kPredictRows = 1024;
// The search remembers the latency of the last 256 placements it evaluated (memory: 256 x ops).
constexpr std::size_t kRemembered = 256;
// The rows kept for training.
constexpr std::size_t kReplayRows = 200000;

double gain_percent(double before, double after) {
  if (!(after < kInfeasibleTime)) return -kClip;
  return std::clamp(100.0 * (before - after) / before, -kClip, kClip);
}

// Move indices by predicted improvement, best first; ties by op name, then device, so the ops'
// numbering does not change the order.
std::vector<int> ranked(const Problem& p, const std::vector<Move>& moves, const std::vector<float>& pred) {
  std::vector<int> idx(moves.size());
  std::iota(idx.begin(), idx.end(), 0);
  const Graph& g = p.graph();
  std::sort(idx.begin(), idx.end(), [&](int a, int b) {
    if (pred[a] != pred[b]) return pred[a] > pred[b];
    const std::string& na = g.op(moves[a].op).name;
    const std::string& nb = g.op(moves[b].op).name;
    if (na != nb) return na < nb;
    if (moves[a].device != moves[b].device) return moves[a].device < moves[b].device;
    return moves[a].unit < moves[b].unit;
  });
  return idx;
}

// Marks the ops `move` moves on `placement` in `taken`, unless one of them is taken already
// (then false: a set of moves moves every op once).
bool take_ops(const Problem& p, const Placement& placement, const Move& move, std::vector<char>& taken) {
  const std::vector<int> ops = moved_ops(p, placement, move);
  for (int v : ops)
    if (taken[v]) return false;
  for (int v : ops) taken[v] = 1;
  return true;
}

// The kick after the search's kicks-th stop: the moves of `order` that move no op twice, past the
// first kKickMoves x (kicks - 1) of them, kKickMoves at most.
std::vector<Move> kick_moves(const Problem& p, const Placement& placement, const std::vector<Move>& moves,
                             const std::vector<int>& order, int kicks) {
  std::vector<Move> set;
  std::vector<char> op_taken(p.num_ops(), 0);
  int skip = kKickMoves * (kicks - 1);
  for (int i : order) {
    if (!take_ops(p, placement, moves[i], op_taken)) continue;
    if (skip > 0) {
      --skip;
      continue;
    }
    set.push_back(moves[i]);
    if (static_cast<int>(set.size()) == kKickMoves) break;
  }
  return set;
}

// The reward as the move search spends it: a placement evaluated among the last kRemembered
// costs nothing again (different moves often make the same placement: an op's path and its
// chain, a kernel and the op heading it; with a measured reward each evaluation is a real run),
// and such free steps are bounded too, so the search always ends.
class RememberingReward {
 public:
  RememberingReward(Reward& reward, int budget) : reward_(reward), left_(budget), repeats_left_(8 * budget + 64) {}
  int left() const { return left_; }
  // Latency of `pl` (kInfeasibleTime when infeasible), evaluated unless remembered.
  double latency(const Placement& pl) {
    if (const auto it = seen_.find(pl); it != seen_.end()) {
      if (--repeats_left_ < 0) left_ = 0;
      return it->second;
    }
    const Evaluation e = reward_.evaluate(pl);
    --left_;
    const double l = e.feasible ? e.latency : kInfeasibleTime;
    remember(pl, l);
    return l;
  }
  // `pl`, evaluated by the caller.
  void remember(const Placement& pl, double l) {
    order_.push_back(seen_.emplace(pl, l).first);
    if (order_.size() > kRemembered) seen_.erase(order_.front()), order_.pop_front();
  }

 private:
  Reward& reward_;
  int left_, repeats_left_;
  std::map<Placement, double> seen_;
  std::deque<std::map<Placement, double>::iterator> order_;  // oldest first
};

}  // namespace

MoveCorrection::Class MoveCorrection::class_of(const Problem& p, const Placement& placement, const Move& m) {
  return {p.graph().op(m.op).type, m.unit, placement[m.op], m.device};
}

void MoveCorrection::observe(const Problem& p, const Placement& placement, const Move& move, double predicted,
                             double observed) {
  auto& [sum, count] = error_[class_of(p, placement, move)];
  sum += observed - predicted, ++count;
}

float MoveCorrection::corrected(const Problem& p, const Placement& placement, const Move& move, float predicted) const {
  const auto it = error_.find(class_of(p, placement, move));
  if (it == error_.end()) return predicted;
  return predicted + static_cast<float>(it->second.first / (it->second.second + kCorrectionPrior));
}

struct MovePolicy::Impl {
  int hidden;
  // One shared scorer for every move's row; an ensemble averages the predictions of several,
  // each trained alone (`pretrain-moves --members`).
  std::vector<RowScorer> nets;
  Impl(int h, int members) : hidden(h) {
    for (int i = 0; i < members; ++i) nets.emplace_back(kF, h);
  }
};

MovePolicy::MovePolicy(int hidden, std::uint64_t seed) {
  TorchScope scope(seed);
  impl_ = std::make_unique<Impl>(hidden, 1);
}
MovePolicy::~MovePolicy() = default;
MovePolicy::MovePolicy(MovePolicy&&) noexcept = default;
MovePolicy& MovePolicy::operator=(MovePolicy&&) noexcept = default;

MovePolicy MovePolicy::ensemble(std::vector<MovePolicy> members) {
  if (members.empty()) throw Error("", "", "MovePolicy::ensemble: no members");
  MovePolicy out(std::move(members[0]));
  for (std::size_t i = 1; i < members.size(); ++i) {
    if (members[i].impl_->hidden != out.impl_->hidden)
      throw Error("", "", "MovePolicy::ensemble: members of different widths");
    for (auto& net : members[i].impl_->nets) out.impl_->nets.push_back(net);
  }
  return out;
}

int MovePolicy::members() const { return static_cast<int>(impl_->nets.size()); }

void MovePolicy::save(const std::string& path) const {
  torch::serialize::OutputArchive ar;
  const auto hidden = static_cast<std::int64_t>(impl_->hidden);
  if (impl_->nets.size() == 1) {  // the single-scorer format, which earlier files have
    impl_->nets[0]->save(ar);
    ar.write("format", torch::tensor({kFormat, hidden}));
  } else {
    for (std::size_t i = 0; i < impl_->nets.size(); ++i) {
      torch::serialize::OutputArchive member;
      impl_->nets[i]->save(member);
      ar.write("member" + std::to_string(i), member);
    }
    ar.write("format", torch::tensor({kEnsembleFormat, hidden, static_cast<std::int64_t>(impl_->nets.size())}));
  }
  save_archive_atomically(ar, path);
}

MovePolicy MovePolicy::load(const std::string& path) {
  torch::serialize::InputArchive ar;
  const torch::Tensor format =
      open_policy_archive(path, ar, "no such move-policy file (devplace pretrain-moves writes one)",
                          "not a learned move policy (a LibTorch archive with a 'format' entry)");
  const bool single = format.numel() == 2 && format[0].item<std::int64_t>() == kFormat;
  const bool several = format.numel() == 3 && format[0].item<std::int64_t>() == kEnsembleFormat &&
                        format[2].item<std::int64_t>() >= 1 && format[2].item<std::int64_t>() <= 1024;
  if (!single && !several)
    throw Error(path, "", "not a move policy of this devplace's format (a list policy? retrain with pretrain-moves)");
  const int hidden = static_cast<int>(format[1].item<std::int64_t>());
  // One scorer's weights, from the archive itself or from one member's sub-archive.
  auto load_member = [&](torch::serialize::InputArchive& from) {
    MovePolicy member(hidden, 1);  // initial weights, replaced by the file's
    member.impl_->nets[0]->load(from);
    return member;
  };
  try {
    if (single) return load_member(ar);
    std::vector<MovePolicy> members;
    for (std::int64_t i = 0; i < format[2].item<std::int64_t>(); ++i) {
      torch::serialize::InputArchive member;
      ar.read("member" + std::to_string(i), member);
      members.push_back(load_member(member));
    }
    return ensemble(std::move(members));
  } catch (const c10::Error&) {
    throw Error(path, "", "the move policy's weights are missing or do not match its declared size");
  }
}

std::vector<float> MovePolicy::predict(const std::vector<float>& rows) const {
  const auto n = static_cast<std::int64_t>(rows.size() / kF);
  if (n == 0) return {};
  torch::NoGradGuard no_grad;
  std::vector<float> out(static_cast<std::size_t>(n));
  for (std::int64_t at = 0; at < n; at += kPredictRows) {
    const std::int64_t m = std::min(kPredictRows, n - at);
    auto x = torch::from_blob(const_cast<float*>(rows.data()) + at * kF, {m, kF}, torch::kFloat);
    torch::Tensor y = impl_->nets[0]->forward(x);
    for (std::size_t i = 1; i < impl_->nets.size(); ++i) y = y + impl_->nets[i]->forward(x);
    if (impl_->nets.size() > 1) y = y / static_cast<double>(impl_->nets.size());
    y = y.contiguous();
    std::copy(y.data_ptr<float>(), y.data_ptr<float>() + m, out.begin() + at);
  }
  return out;
}

Placement MovePolicy::improve(const Problem& p, Reward& reward, const Placement& start, int budget,
                              double start_latency) const {
  TorchScope scope(0);
  RememberingReward memo(reward, budget);
  Placement best = start;  // the incumbent; `top` below is the fastest placement evaluated
  double best_latency = start_latency;
  if (best_latency < 0) {
    if (memo.left() <= 0) return best;
    best_latency = memo.latency(best);
  } else {
    memo.remember(best, best_latency);
  }
  Placement top = best;
  double top_latency = best_latency;
  int sideways_left = kSidewaysSteps;
  MoveFeatures features(p);
  std::set<Move> tried;  // single moves that led nowhere from the incumbent
  bool singles = false;  // every set failed from the incumbent: moves one at a time
  std::vector<Move> moves;
  std::vector<float> rows;
  std::vector<float> predicted;  // the scorer's gain for each of the incumbent's moves, percent
  std::vector<int> order;        // the incumbent's moves, best first (predicted and corrected)
  bool read = false;             // whether moves and order belong to the incumbent
  MoveCorrection correction;  // from the single moves evaluated
  auto rank_moves = [&] {
    std::vector<float> corrected = predicted;
    if (!correction.empty())
      for (std::size_t i = 0; i < moves.size(); ++i) corrected[i] = correction.corrected(p, best, moves[i], predicted[i]);
    order = ranked(p, moves, corrected);
  };
  int set_size = kFirstSetSize;
  int kicks = 0;       // stops at a local optimum so far
  bool kick = false;   // the incumbent is the fastest placement, to be kicked once read
  while (memo.left() > 0) {
    if (!read) {  // once per incumbent: a failed round changes what is set aside and the correction
      const std::optional<Schedule> trace = reward.trace(best);  // best has been evaluated
      features.compute(best, moves, rows, trace ? &*trace : nullptr);
      predicted = predict(rows);
      rank_moves();
      read = true;
    }
    if (kick) {  // made together and kept whatever it costs
      kick = false;
      const std::vector<Move> set = kick_moves(p, best, moves, order, kicks);
      if (set.empty()) break;  // no moves left to kick with
      const Placement candidate = apply_moves(p, best, set);
      const double l = memo.latency(candidate);
      if (l < top_latency) top = candidate, top_latency = l;
      best = candidate, best_latency = l;
      tried.clear();
      singles = false;
      read = false;
      set_size = kFirstSetSize;
      continue;
    }
    // The best untried moves that move no op twice, best first.
    std::vector<Move> chosen;
    int first = -1;  // the index of chosen[0] in moves
    std::vector<char> op_taken(p.num_ops(), 0);
    for (int i : order)
      if (!tried.count(moves[i]) && take_ops(p, best, moves[i], op_taken)) {
        if (chosen.empty()) first = i;
        chosen.push_back(moves[i]);
      }
    if (chosen.empty()) {
      // Every set from this incumbent failed: the best-ranked moves one at a time, once; then,
      // every single move having failed too, a kick from the fastest placement.
      if (singles) {
        ++kicks, kick = true;
        best = top, best_latency = top_latency;
        tried.clear();
        read = false;
        continue;
      }
      singles = true;
      tried.clear();
      continue;
    }
    // The best k moves together: the ranking is what is learned, k how far to trust it now.
    // Once every set from the incumbent has failed, single moves.
    const int k = singles ? 1 : std::min<int>(set_size, static_cast<int>(chosen.size()));
    const Placement candidate = apply_moves(p, best, std::vector<Move>(chosen.begin(), chosen.begin() + k));
    const double l = memo.latency(candidate);
    if (k == 1) correction.observe(p, best, chosen[0], predicted[first], gain_percent(best_latency, l));
    if (l < top_latency) top = candidate, top_latency = l;
    if (l < best_latency * (1 - kNegligibleGain)) {
      best = candidate, best_latency = l;
      tried.clear();
      singles = false;
      read = false;
      set_size = std::min(2 * set_size, kLargestSet);
    } else if (l < best_latency) {
      // Faster by a negligible margin: kept (and read again), but what failed from the incumbent
      // stays set aside and the set size stays.
      best = candidate, best_latency = l;
      read = false;
    } else if (!singles && sideways_left > 0 && l < best_latency * (1 + kSidewaysSlack)) {
      // Nearly as fast: go on from there (a few times per search), as moves that only pay
      // together (the same change in several layers) each look like a loss alone.
      --sideways_left;
      best = candidate, best_latency = l;
      tried.clear();
      read = false;
      set_size = std::max(1, set_size / 4);
    } else {
      // The best-ranked quarter of the set does not help now: try others next, fewer at once.
      for (int i = 0; i < std::max(1, k / 4); ++i) tried.insert(chosen[i]);
      if (!singles) set_size = std::max(1, set_size / 4);
      if (k == 1) rank_moves();
    }
  }
  return top;
}

// The trainer's way to the network (MovePolicy keeps it private).
struct MovePolicyTraining {
  static MovePolicy::Impl& impl(MovePolicy& policy) { return *policy.impl_; }
};

void train_move_policy(MovePolicy& policy, const std::vector<const Problem*>& corpus,
                       const std::vector<std::vector<Placement>>& starts, const MovePolicyConfig& c,
                       std::uint64_t seed, const std::function<void(const MoveTrainingStep&)>& on_step) {
  if (corpus.empty()) throw Error("", "", "train_move_policy: empty corpus");
  if (starts.size() != corpus.size()) throw Error("", "", "train_move_policy: one list of start placements per problem");
  TorchScope scope(seed);
  std::mt19937_64 rng(seed);
  if (policy.members() != 1) throw Error("", "", "train_move_policy: trains one scorer (MovePolicy::ensemble joins several)");
  RowScorer& net = MovePolicyTraining::impl(policy).nets[0];
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(c.lr));
  std::vector<std::unique_ptr<Simulator>> sims(corpus.size());
  std::vector<std::unique_ptr<MoveFeatures>> feats(corpus.size());
  std::vector<std::vector<Placement>> pools = starts;
  for (std::size_t i = 0; i < pools.size(); ++i)
    if (pools[i].empty()) throw Error("", "", "train_move_policy: a problem without a start placement");
  std::vector<float> replay_x;
  std::vector<float> replay_y;
  std::size_t next_row = 0;  // ring position once the replay is full
  std::vector<std::size_t> order(corpus.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<Move> moves;
  std::vector<float> rows;
  for (int it = 0; it < c.iterations; ++it) {
    if (it % static_cast<int>(corpus.size()) == 0) std::shuffle(order.begin(), order.end(), rng);
    const std::size_t pi = order[static_cast<std::size_t>(it) % corpus.size()];
    const Problem& p = *corpus[pi];
    if (!sims[pi]) sims[pi] = std::make_unique<Simulator>(p), feats[pi] = std::make_unique<MoveFeatures>(p);
    std::uniform_int_distribution<std::size_t> pick_state(0, pools[pi].size() - 1);
    const Placement state = pools[pi][pick_state(rng)];
    // Trained on the simulator's trace of each placement, as the search reads it under the simulator.
    const Schedule trace = sims[pi]->run(state);
    const double before = trace.feasible ? trace.makespan : kInfeasibleTime;
    feats[pi]->compute(state, moves, rows, &trace);
    MoveTrainingStep step;
    step.iteration = it + 1;
    step.graph = p.graph().name();
    if (moves.empty() || !(before < kInfeasibleTime)) {
      if (on_step) on_step(step);
      continue;
    }
    // Half the moves the scorer ranks best (what its search would try), half at random.
    const std::vector<float> pred = policy.predict(rows);
    const std::vector<int> rank = ranked(p, moves, pred);
    std::vector<int> picked;
    const int top = std::min<int>(c.moves_per_update / 2, static_cast<int>(rank.size()));
    picked.assign(rank.begin(), rank.begin() + top);
    std::uniform_int_distribution<int> any(0, static_cast<int>(moves.size()) - 1);
    for (int k = top; k < c.moves_per_update && k < static_cast<int>(moves.size()); ++k) picked.push_back(any(rng));
    double best_gain = -kClip;
    Placement best_moved;
    for (std::size_t k = 0; k < picked.size(); ++k) {
      const int i = picked[k];
      Placement moved = apply_moves(p, state, {moves[i]});
      const double g = gain_percent(before, sims[pi]->makespan(moved));
      if (k == 0) step.top_gain = g;
      (static_cast<int>(k) < top ? step.ranked_hits : step.random_hits) += g > 0;
      if (g > best_gain) best_gain = g, best_moved = std::move(moved);
      const float* r = &rows[static_cast<std::size_t>(i) * kF];
      if (replay_y.size() < kReplayRows) {
        replay_x.insert(replay_x.end(), r, r + kF);
        replay_y.push_back(static_cast<float>(g));
      } else {
        std::copy(r, r + kF, replay_x.begin() + static_cast<std::ptrdiff_t>(next_row * kF));
        replay_y[next_row] = static_cast<float>(g);
        next_row = (next_row + 1) % kReplayRows;
      }
    }
    step.best_gain = best_gain;
    step.ranked_hits /= std::max(1, top);
    step.random_hits /= std::max<int>(1, static_cast<int>(picked.size()) - top);
    // The search goes on from an improved placement: train on the states it visits, which its
    // sets of moves reach too (the best 16 distinct ops' moves together, one more simulation).
    {
      std::vector<Move> set;
      std::vector<char> taken(p.num_ops(), 0);
      for (int i : rank) {
        if (set.size() >= 16) break;
        if (take_ops(p, state, moves[i], taken)) set.push_back(moves[i]);
      }
      Placement together = apply_moves(p, state, set);
      const double g = gain_percent(before, sims[pi]->makespan(together));
      if (g > best_gain) best_gain = g, best_moved = std::move(together);
    }
    if (best_gain > 0) {
      if (pools[pi].size() < 16)
        pools[pi].push_back(std::move(best_moved));
      else
        pools[pi][std::uniform_int_distribution<std::size_t>(1, pools[pi].size() - 1)(rng)] = std::move(best_moved);
    }
    const auto n = static_cast<std::int64_t>(replay_y.size());
    auto X = torch::from_blob(replay_x.data(), {n, kF}, torch::kFloat);
    auto Y = torch::from_blob(replay_y.data(), {n}, torch::kFloat);
    for (int s = 0; s < c.steps_per_update; ++s) {
      auto idx = torch::randint(n, {std::min<std::int64_t>(c.batch, n)}, torch::kLong);
      auto loss = torch::smooth_l1_loss(net->forward(X.index_select(0, idx)), Y.index_select(0, idx));
      opt.zero_grad();
      loss.backward();
      opt.step();
      step.loss = loss.item<double>();
    }
    if (on_step) on_step(step);
  }
}

std::string default_move_policy_path() { return home_dir() + "/policies/learned-moves.pt"; }

}  // namespace devplace
