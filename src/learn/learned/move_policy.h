// devplace's learned move policy (after GiPH, Lee et al., MLSys 2023): a network that proposes
// improvements of a complete placement. One shared scorer reads every relocation move (one op to
// another device, the rest kept; learn/learned/move_features.h) and predicts the improvement it brings,
// in percent of the placement's latency; it learns that by regression on moves simulated on a
// corpus of graphs and clusters, from the placements its own search visits. Placing is a search
// that, from a start placement (the list policy's: learn/learned/list_policy.h), evaluates the best
// predicted moves together (how many adapts: more after an improvement, fewer after a failure),
// keeps the set if it is faster (or, a few times, nearly as fast) and reads the moves again;
// where no single move helps and evaluations are left, it kicks the fastest placement with a
// few of its best-ranked moves at once and searches on. Nothing it sees names an op or a
// device, so one scorer serves any graph and cluster.
// Simulator objective only. Torch-free header.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "cost/cost_model.h"
#include "learn/learned/move_features.h"
#include "place/reward.h"
#include "sim/schedule.h"

namespace devplace {

struct MovePolicyConfig {
  int hidden = 64;           // width of the scorer's two hidden layers
  int iterations = 2000;     // updates: one placement of one corpus graph each
  // Single moves simulated per update (half the best predicted, half at random), and one more:
  // the 16 best predicted together, whose placement, when faster, joins the states trained on.
  int moves_per_update = 32;
  int steps_per_update = 4;  // Adam steps per update, on rows drawn from everything simulated so far
  int batch = 256;           // rows per step
  double lr = 1e-3;
};

struct MoveTrainingStep {
  int iteration = 0;
  std::string graph;
  double loss = 0;       // Huber loss of the last step (percent^2 scale)
  double best_gain = 0;  // the best simulated move's improvement, percent
  double top_gain = 0;   // the improvement of the move the scorer ranked first, percent
  // The share of the best-ranked half of the simulated moves that improved the placement, and of
  // the half drawn at random (how much better than chance the scorer ranks).
  double ranked_hits = 0, random_hits = 0;
};

class MovePolicy {
 public:
  explicit MovePolicy(int hidden = 64, std::uint64_t seed = 1);
  ~MovePolicy();
  MovePolicy(MovePolicy&&) noexcept;
  MovePolicy& operator=(MovePolicy&&) noexcept;

  // One policy whose prediction is the mean of the members' (each trained alone, on its own
  // corpus seed: on unseen graphs the mean ranks moves better than any one member, whose
  // ranking varies with its seed; docs/design/learned.md). REQUIRES equal widths.
  static MovePolicy ensemble(std::vector<MovePolicy> members);
  int members() const;

  // Throws Error naming the file when it is not a move-policy archive.
  static MovePolicy load(const std::string& path);
  void save(const std::string& path) const;  // atomically

  // Predicted improvement (percent of latency) of each row of MoveFeatures::compute.
  std::vector<float> predict(const std::vector<float>& rows) const;

  // Improves `start` with learned moves, spending at most `budget` evaluations of `reward`
  // (one for `start` itself unless start_latency is given). Returns the best placement evaluated
  // (`start` when nothing was faster).
  Placement improve(const Problem& problem, Reward& reward, const Placement& start, int budget,
                    double start_latency = -1) const;

  struct Impl;

 private:
  friend struct MovePolicyTraining;  // the trainers (move_policy.cc) reach the network
  std::unique_ptr<Impl> impl_;
};

// How MovePolicy::improve corrects its scorer with what it observes: a move's predicted gain is
// shifted by the mean error (observed - predicted, percent) of the single moves of its class it
// evaluated (the head op's type, the unit, the device it leaves and the one it goes to), shrunk as
// if one more had erred by nothing. On graphs unlike the scorer's training ones its ranking can
// be wrong for a whole class (the same move in every layer, all ranked first, all losing).
// It keeps views of the problem's op types: the problem must outlive it.
class MoveCorrection {
 public:
  // `move` of `placement` (before it is made) was predicted to gain `predicted` and gained `observed`.
  void observe(const Problem& problem, const Placement& placement, const Move& move, double predicted,
               double observed);
  // The prediction for `move` of `placement`, corrected.
  float corrected(const Problem& problem, const Placement& placement, const Move& move, float predicted) const;
  bool empty() const { return error_.empty(); }

 private:
  // The op type as a view of the problem's string: no copy per lookup (the search re-ranks every
  // move after each failed single move).
  using Class = std::tuple<std::string_view, MoveUnit, int, int>;
  static Class class_of(const Problem& problem, const Placement& placement, const Move& move);
  std::map<Class, std::pair<double, int>> error_;  // per class: sum of errors, count
};

// Trains `policy` (one scorer) on `corpus` (round-robin, a fresh order each pass) from the start placements
// given per problem (starts[i] for corpus[i], at least one each), by simulating moves. Scoped
// LibTorch state (TorchScope). `on_step` sees every update.
void train_move_policy(MovePolicy& policy, const std::vector<const Problem*>& corpus,
                       const std::vector<std::vector<Placement>>& starts, const MovePolicyConfig& config,
                       std::uint64_t seed, const std::function<void(const MoveTrainingStep&)>& on_step = {});

// The evaluations learned-discrepancy-moves gives the list policy's discrepancy decoding, of its
// `budget`, before the move search spends the rest: an eighth (docs/design/learned.md).
inline int discrepancy_moves_decoding(int budget) { return std::max(1, budget / 8); }

// The pretrained move policy shipped with devplace: policies/learned-moves.pt under home_dir().
std::string default_move_policy_path();

}  // namespace devplace
