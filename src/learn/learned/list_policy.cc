#include "learn/learned/list_policy.h"

#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <random>
#include <set>

#include "learn/rl/archive_io.h"
#include "learn/rl/ppo.h"
#include "learn/learned/row_scorer.h"
#include "learn/learned/schedule_env.h"
#include "learn/rl/torch_scope.h"
#include "place/placer.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {

namespace {

constexpr int kF = ScheduleEnv::kFeatures;
constexpr std::int64_t kFormat = 1;  // bump when the features or the network change

// The graph around every op, as a vector per op: its static features (ScheduleEnv::op_features)
// through rounds of mean message passing from its producers and from its consumers (separate
// weights), so decisions alike in the partial schedule can differ by where the op sits.
struct ContextImpl : torch::nn::Module {
  static constexpr int kRounds = 2;
  torch::nn::Linear in{nullptr};
  std::vector<torch::nn::Linear> self, from_producers, from_consumers;
  explicit ContextImpl(int width) {
    in = register_module("op_features", torch::nn::Linear(ScheduleEnv::kOpFeatures, width));
    for (int r = 0; r < kRounds; ++r) {
      self.push_back(register_module("own" + std::to_string(r), torch::nn::Linear(width, width)));
      from_producers.push_back(register_module("producers" + std::to_string(r), torch::nn::Linear(width, width)));
      from_consumers.push_back(register_module("consumers" + std::to_string(r), torch::nn::Linear(width, width)));
    }
  }
  // x [n, kOpFeatures]; edges src -> dst [E]; in/out degrees [n, 1] (at least 1) -> [n, width]
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& src, const torch::Tensor& dst,
                        const torch::Tensor& in_degree, const torch::Tensor& out_degree) {
    auto h = torch::relu(in(x));
    for (int r = 0; r < kRounds; ++r) {
      auto producers = torch::zeros_like(h).index_add(0, dst, h.index_select(0, src)) / in_degree;
      auto consumers = torch::zeros_like(h).index_add(0, src, h.index_select(0, dst)) / out_degree;
      h = torch::relu(self[r](h) + from_producers[r](producers) + from_consumers[r](consumers));
    }
    return h;
  }
};
TORCH_MODULE(Context);

// What the context network reads of one problem.
struct GraphInputs {
  torch::Tensor x, src, dst, in_degree, out_degree;
};

GraphInputs graph_inputs(const Problem& p, const ScheduleEnv& env) {
  const Graph& g = p.graph();
  const int n = p.num_ops();
  GraphInputs in;
  in.x = torch::from_blob(env.op_features().data(), {n, ScheduleEnv::kOpFeatures}, torch::kFloat).clone();
  std::vector<std::int64_t> src, dst;
  std::vector<float> in_degree(n, 0), out_degree(n, 0);
  for (int v = 0; v < n; ++v)
    for (int u : g.preds(v)) src.push_back(u), dst.push_back(v), ++in_degree[v], ++out_degree[u];
  for (int v = 0; v < n; ++v) in_degree[v] = std::max(1.f, in_degree[v]), out_degree[v] = std::max(1.f, out_degree[v]);
  in.src = torch::tensor(src, torch::kLong);
  in.dst = torch::tensor(dst, torch::kLong);
  in.in_degree = torch::tensor(in_degree).unsqueeze(1);
  in.out_degree = torch::tensor(out_degree).unsqueeze(1);
  return in;
}

torch::Tensor masked_log_softmax(const torch::Tensor& scores, const torch::Tensor& allowed) {
  return torch::log_softmax(scores.masked_fill(allowed.logical_not(), -1e9), -1);
}

// K episodes on one problem in lockstep (the decision order is the same for all), with every
// observation kept for the update: features [K, T, D, F], allowed [K, T, D], actions [K, T].
struct Rollout {
  torch::Tensor features, allowed, actions;
  std::vector<Placement> placements;
  torch::Tensor ops;   // [K, T] the op of every decision (the order follows the choices)
  GraphInputs graph;   // for the context network, when the policy has one
};

enum class Choice { greedy_then_sample, greedy, teacher };

// Per rollout and op: a device the op's decision must take, or -1 (decide as `Choice` says).
using Forced = std::vector<std::vector<int>>;

// Episode k's ops in decision order.
std::vector<int> decision_order(const Rollout& r, int k) {
  const torch::Tensor row = r.ops[k].contiguous();
  return std::vector<int>(row.data_ptr<std::int64_t>(), row.data_ptr<std::int64_t>() + row.numel());
}

}  // namespace

struct ListPolicy::Impl {
  int hidden, context;
  // Whether the scorer reads the rollout features (a policy saved before them reads them with
  // zero weights, so its environments skip computing them).
  bool rollout_features = true;
  RowScorer net;  // one shared scorer for every (op, device) row, with its op's context vector
  Context ctx{nullptr};
  Impl(int h, int c) : hidden(h), context(c), net(kF + c, h) {
    if (c > 0) ctx = Context(c);
  }
  std::vector<torch::Tensor> parameters() {
    auto all = net->parameters();
    if (context > 0)
      for (auto& t : ctx->parameters()) all.push_back(t);
    return all;
  }
  // Per op, the context network's vector [n, context] (undefined without one).
  torch::Tensor embed(const GraphInputs& g) {
    if (context == 0) return {};
    return ctx->forward(g.x, g.src, g.dst, g.in_degree, g.out_degree);
  }
  // Scores of feature rows [..., D, F], with each decision's op context rows [..., c] (broadcast
  // over the devices; ignored without a context network).
  torch::Tensor scores(const torch::Tensor& features, const torch::Tensor& rows) {
    if (context == 0) return net->forward(features);
    auto sizes = features.sizes().vec();
    sizes.back() = context;
    return net->forward(torch::cat({features, rows.unsqueeze(-2).expand(sizes)}, -1));
  }

  // `fresh`: a fresh environment of the problem to copy (a search makes one and shares its
  // per-problem tables with every rollout); by default each call makes its own.
  Rollout rollout(const Problem& p, int K, Choice how, std::mt19937_64& rng,
                  Objective objective = Objective::simulator, const Forced* forced = nullptr,
                  const ScheduleEnv* fresh = nullptr) {
    torch::NoGradGuard no_grad;
    std::vector<ScheduleEnv> envs;
    envs.reserve(K);
    if (fresh) envs.push_back(*fresh);
    else envs.emplace_back(p, objective, rollout_features);
    for (int k = 1; k < K; ++k) envs.push_back(envs[0]);  // the same order and units; copies are cheaper
    const int T = envs[0].num_decisions(), D = p.num_devices();
    Rollout r;
    if (context > 0) r.graph = graph_inputs(p, envs[0]);
    const torch::Tensor emb = embed(r.graph);
    std::vector<std::int64_t> ops(static_cast<std::size_t>(K) * T), now(K);
    r.features = torch::zeros({K, T, D, kF});
    r.allowed = torch::zeros({K, T, D}, torch::kBool);
    r.actions = torch::zeros({K, T}, torch::kLong);
    float* f = r.features.data_ptr<float>();
    bool* a = r.allowed.data_ptr<bool>();
    auto act = r.actions.accessor<std::int64_t, 2>();
    std::vector<std::uint8_t> allowed(D);
    std::uniform_real_distribution<double> uniform(0, 1);
    for (int t = 0; t < T; ++t) {
      for (int k = 0; k < K; ++k) {
        const std::size_t row = (static_cast<std::size_t>(k) * T + t) * D;
        envs[k].observe(f + row * kF, allowed.data());
        for (int d = 0; d < D; ++d) a[row + d] = allowed[d] != 0;
        ops[static_cast<std::size_t>(k) * T + t] = now[k] = envs[k].current_op();
      }
      torch::Tensor probs;  // [K, D]
      if (how != Choice::teacher) {
        const torch::Tensor rows = context > 0 ? emb.index_select(0, torch::tensor(now, torch::kLong)) : torch::Tensor();
        probs = torch::softmax(
            scores(r.features.select(1, t), rows).masked_fill(r.allowed.select(1, t).logical_not(), -1e9), -1);
      }
      for (int k = 0; k < K; ++k) {
        int d = 0;
        const bool* ok = a + (static_cast<std::size_t>(k) * T + t) * D;
        const int must = forced ? (*forced)[k][now[k]] : -1;
        if (must >= 0 && ok[must]) {
          d = must;
        } else if (how == Choice::teacher) {
          d = envs[k].rollout_device();
        } else {
          auto pk = probs.accessor<float, 2>()[k];
          d = -1;
          if (how == Choice::greedy || (how == Choice::greedy_then_sample && k == 0)) {
            for (int j = 0; j < D; ++j)
              if (ok[j] && (d < 0 || pk[j] > pk[d])) d = j;
          } else {
            const double x = uniform(rng);
            double acc = 0;
            for (int j = 0; j < D; ++j) {
              if (!ok[j]) continue;
              acc += pk[j];
              d = j;
              if (x < acc) break;
            }
          }
          if (d < 0) d = 0;
        }
        act[k][t] = d;
        envs[k].step(d);
      }
    }
    for (auto& e : envs) r.placements.push_back(e.placement());
    r.ops = torch::tensor(ops, torch::kLong).view({K, T});
    return r;
  }

  // Per episode and decision, its op's context rows [K, T, c] (undefined without a context network).
  torch::Tensor op_rows(const Rollout& r) {
    if (context == 0) return {};
    return embed(r.graph).index_select(0, r.ops.flatten()).view({r.ops.size(0), r.ops.size(1), context});
  }
  torch::Tensor log_probs(const Rollout& r) { return masked_log_softmax(scores(r.features, op_rows(r)), r.allowed); }

  struct Searched {
    Rollout best;  // one rollout: the best placement's decisions and observations
    double latency = 0;
    double own_latency = 0;  // the policy's own placement's, the search's start
  };
  // Decisions (op, device) forced on top of an incumbent; the others decided greedily after
  // them, or, with keep_rest, as the incumbent decided them (where its mask still allows).
  struct Change {
    std::vector<std::pair<int, int>> forced;
    bool keep_rest = false;
    auto operator<=>(const Change&) const = default;
  };
  // The changes already tried on top of one start placement (the policy's own), so that repeated
  // searches from the same start try new ones.
  struct Tried {
    Placement start;
    std::set<Change> changes;
  };
  // start: per op, a device its decision must take (-1: free), held through the search.
  // `fresh`: a fresh environment of the problem that every rollout copies (made here if null).
  Searched search(const Problem& p, Reward& reward, int budget, int rounds, Objective objective,
                  Tried* memory = nullptr, const std::vector<int>* start = nullptr,
                  const ScheduleEnv* fresh = nullptr);
  Searched search_portfolio(const Problem& p, Reward& reward, int budget, Objective objective);
};

// Under Tarnawski's model, about one candidate in kRunEvery of limited-discrepancy decoding forces a
// run of kRunLengths[i] decisions (in turn) to one device, in turn the doubtful decision's second
// device and the host, keeping the incumbent's other decisions: the contiguous accelerator sets
// and host stretches that single changes rarely reach, while most candidates stay single changes.
constexpr std::size_t kRunEvery = 4;
constexpr std::array<int, 3> kRunLengths = {4, 16, 64};
// Under Tarnawski's model, from this budget on the decoding is a portfolio of two searches
// (search_portfolio); below it one search does better than two of half the budget each.
constexpr int kPortfolioBudget = 1000;

// Limited-discrepancy decoding (ListPolicy::decode_with_discrepancies): the best rollout found
// and its latency.
ListPolicy::Impl::Searched ListPolicy::Impl::search(const Problem& p, Reward& reward, int budget, int rounds,
                                                    Objective objective, Tried* memory, const std::vector<int>* start,
                                                    const ScheduleEnv* given) {
  std::mt19937_64 rng(0);  // unused: every decision is greedy or forced
  const Forced start_forced = start ? Forced{*start} : Forced{};
  std::optional<ScheduleEnv> made;  // made once: every rollout copies it
  const ScheduleEnv& fresh = given ? *given : made.emplace(p, objective, rollout_features);
  Rollout best_rollout = rollout(p, 1, Choice::greedy, rng, objective, start ? &start_forced : nullptr, &fresh);
  const int T = static_cast<int>(best_rollout.actions.size(1)), D = p.num_devices();
  // The incumbent's forced decisions, per op.
  std::vector<int> forced_best = start ? *start : std::vector<int>(p.num_ops(), -1);
  Placement best = best_rollout.placements[0];
  double best_latency = reward.latency(best);
  const double own_latency = best_latency;
  int left = budget - 1;
  if (rounds <= 0) rounds = std::max(2, budget / 16);
  // Changes (decision, device) already forced on top of the incumbent.
  const Placement first = best;
  std::set<Change> tried, tried_from_start;
  if (memory && memory->start == first) tried = memory->changes;
  bool moved = false;  // whether the incumbent left the start placement
  for (int round = 0; round < rounds && left > 0 && T > 0; ++round) {
    const int K = std::min(T, round + 1 == rounds ? left : left / (rounds - round));
    if (K <= 0) continue;
    // Where the incumbent's policy was least sure: the highest probability of another device.
    torch::Tensor probs;
    {
      torch::NoGradGuard no_grad;
      torch::Tensor rows = op_rows(best_rollout);
      if (rows.defined()) rows = rows[0];
      probs = torch::softmax(
          scores(best_rollout.features[0], rows).masked_fill(best_rollout.allowed[0].logical_not(), -1e9), -1);
    }
    auto pr = probs.accessor<float, 2>();
    auto taken = best_rollout.actions.accessor<std::int64_t, 2>();
    auto ok = best_rollout.allowed.accessor<bool, 3>();
    const std::vector<int> op_at = decision_order(best_rollout, 0);  // the incumbent's op of each decision
    std::vector<std::pair<float, std::pair<int, int>>> doubts;  // (probability, (decision, device))
    for (int t = 0; t < T; ++t) {
      if (forced_best[op_at[t]] >= 0) continue;
      int alt = -1;
      for (int d = 0; d < D; ++d)
        if (d != taken[0][t] && ok[0][t][d] && (alt < 0 || pr[t][d] > pr[t][alt])) alt = d;
      if (alt >= 0) doubts.push_back({pr[t][alt], {t, alt}});
    }
    std::sort(doubts.begin(), doubts.end(),
              [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    // One discrepancy each; once all are tried from this incumbent, two (among the 64 most doubtful,
    // the likeliest pairs first).
    std::vector<std::pair<float, Change>> candidates;
    int runs_made = 0;
    for (const auto& [prob, change] : doubts) {
      if (Change single{{{op_at[change.first], change.second}}}; !tried.count(single))
        candidates.push_back({prob, std::move(single)});
      // Under Tarnawski's model, whenever the candidates reach a multiple of kRunEvery, also a
      // run of units from this one on, in decision (topological) order, to one device (in turn
      // this decision's second device and the host), the incumbent's other decisions kept: a
      // contiguous set, or a stretch moved to the host, which one change and a greedy
      // continuation rarely reach, and which re-deciding everything after it would undo.
      if (objective == Objective::tarnawski && candidates.size() % kRunEvery == 0) {
        const int made = runs_made++;
        const int length = kRunLengths[made % kRunLengths.size()];
        const int device = made % 2 == 1 && p.host() >= 0 ? p.host() : change.second;
        Change run{{}, true};
        for (int t = change.first; t < std::min(T, change.first + length); ++t)
          if (forced_best[op_at[t]] < 0) run.forced.push_back({op_at[t], device});
        if (run.forced.size() > 1 && !tried.count(run)) candidates.push_back({prob, std::move(run)});
      }
    }
    if (candidates.empty()) {
      const int top = std::min<int>(64, static_cast<int>(doubts.size()));
      for (int a = 0; a < top; ++a)
        for (int b = a + 1; b < top; ++b) {
          const auto [ta, da] = doubts[a].second;
          const auto [tb, db] = doubts[b].second;
          Change pair{{{op_at[ta], da}, {op_at[tb], db}}};
          if (!tried.count(pair)) candidates.push_back({doubts[a].first * doubts[b].first, std::move(pair)});
        }
      std::stable_sort(candidates.begin(), candidates.end(),
                       [](const auto& x, const auto& y) { return x.first > y.first; });
    }
    const int n = std::min<int>(K, static_cast<int>(candidates.size()));
    if (n == 0) break;
    Forced forced(n, forced_best);
    Forced forced_only(n, forced_best);  // without the incumbent's kept decisions
    for (int k = 0; k < n; ++k) {
      const Change& c = candidates[k].second;
      if (c.keep_rest)
        for (int t = 0; t < T; ++t) forced[k][op_at[t]] = static_cast<int>(taken[0][t]);
      for (const auto& [v, d] : c.forced) forced[k][v] = forced_only[k][v] = d;
      tried.insert(c);
    }
    Rollout r = rollout(p, n, Choice::greedy, rng, objective, &forced, &fresh);
    int winner = -1;
    for (int k = 0; k < n; ++k) {
      const double l = reward.latency(r.placements[k]);
      if (l < best_latency) best_latency = l, winner = k;
    }
    left -= n;
    if (winner < 0) continue;  // the next round tries the next most doubtful decisions of the same rollout
    if (!moved) tried_from_start = tried;
    tried.clear();
    moved = true;
    best = r.placements[winner];
    forced_best = forced_only[winner];
    best_rollout.features = r.features.narrow(0, winner, 1);
    best_rollout.allowed = r.allowed.narrow(0, winner, 1);
    best_rollout.actions = r.actions.narrow(0, winner, 1);
    best_rollout.ops = r.ops.narrow(0, winner, 1);
  }
  if (memory) memory->start = first, memory->changes = moved ? tried_from_start : tried;
  best_rollout.placements = {best};
  return {std::move(best_rollout), best_latency, own_latency};
}

// Under Tarnawski's model: half the budget searches from the policy's own placement; the rest
// (with what that search did not use) first tries leaving the first 2, 4, 8, ... decisions on the
// host (the policy deciding the rest), then searches from the best of those with that prefix
// held. The greedy, path-dependent search finds different optima from the two starts; the
// second suits graphs whose accelerators cannot hold everything and whose early, large tensors
// are best kept on the host.
ListPolicy::Impl::Searched ListPolicy::Impl::search_portfolio(const Problem& p, Reward& reward, int budget,
                                                              Objective objective) {
  CountingReward counted(reward);
  const ScheduleEnv fresh(p, objective, rollout_features);  // shared by every rollout below
  Searched own = search(p, counted, budget / 2, 0, objective, nullptr, nullptr, &fresh);
  int left = budget - static_cast<int>(counted.count());
  const int T = static_cast<int>(own.best.actions.size(1));
  const std::vector<int> order = decision_order(own.best, 0);  // fixed under Tarnawski's model
  std::mt19937_64 rng(0);  // unused: every decision is greedy or forced
  double best = kInfeasibleTime;
  std::vector<int> best_start;
  for (int length = 2; length < 2 * T && left > 1; length *= 2, --left) {
    std::vector<int> start(p.num_ops(), -1);
    for (int t = 0; t < std::min(T, length); ++t) start[order[t]] = p.host();
    const Forced forced{start};
    const Evaluation e = reward.evaluate(rollout(p, 1, Choice::greedy, rng, objective, &forced, &fresh).placements[0]);
    if (e.feasible && e.latency < best) best = e.latency, best_start = std::move(start);
  }
  if (best_start.empty() || left < 1) return own;
  Searched other = search(p, reward, left, 0, objective, nullptr, &best_start, &fresh);
  return other.latency < own.latency ? other : own;
}

ListPolicy::ListPolicy(int hidden, std::uint64_t seed, int context) {
  TorchScope scope(seed);
  impl_ = std::make_unique<Impl>(hidden, context);
}
ListPolicy::~ListPolicy() = default;
ListPolicy::ListPolicy(ListPolicy&&) noexcept = default;
ListPolicy& ListPolicy::operator=(ListPolicy&&) noexcept = default;

void ListPolicy::save(const std::string& path) const {
  torch::serialize::OutputArchive ar;
  impl_->net->save(ar);
  if (impl_->context > 0) {  // format 2: a context network beside the scorer
    torch::serialize::OutputArchive sub;
    impl_->ctx->save(sub);
    ar.write("context", sub);
    ar.write("format", torch::tensor({kFormat + 1, static_cast<std::int64_t>(impl_->hidden),
                                      static_cast<std::int64_t>(impl_->context)}));
  } else {
    ar.write("format", torch::tensor({kFormat, static_cast<std::int64_t>(impl_->hidden)}));
  }
  save_archive_atomically(ar, path);
}

ListPolicy ListPolicy::load(const std::string& path) {
  torch::serialize::InputArchive ar;
  const torch::Tensor format =
      open_policy_archive(path, ar, "no such policy file (devplace pretrain writes one)",
                          "not a learned-placer policy (a LibTorch archive with a 'format' entry)");
  const bool plain = format.numel() == 2 && format[0].item<std::int64_t>() == kFormat;
  const bool with_context = format.numel() == 3 && format[0].item<std::int64_t>() == kFormat + 1;
  if (!plain && !with_context)
    throw Error(path, "", "a policy of another format version; retrain it with this devplace");
  ListPolicy policy(static_cast<int>(format[1].item<std::int64_t>()), 1,
                    with_context ? static_cast<int>(format[2].item<std::int64_t>()) : 0);
  try {
    Impl& m = *policy.impl_;
    m.net->load(ar);  // takes the archive's shapes
    const std::int64_t width = m.net->l1->weight.size(1);
    // Policies saved before the lookahead features (ScheduleEnv's last four) or before the rollout
    // ones (its last two) read the missing features with zero weights: they decide as they did.
    const std::int64_t old_width = width - m.context;
    if (old_width == kF - 4 || old_width == kF - 2) {
      torch::NoGradGuard no_grad;
      const torch::Tensor old = m.net->l1->weight.clone();
      torch::Tensor w = torch::zeros({old.size(0), kF + m.context});
      w.narrow(1, 0, old_width).copy_(old.narrow(1, 0, old_width));
      if (m.context > 0) w.narrow(1, kF, m.context).copy_(old.narrow(1, old_width, m.context));
      m.net->l1->weight.set_data(w);
      m.rollout_features = false;
    } else if (width != kF + m.context) {
      throw Error(path, "", "the policy reads " + std::to_string(width) + " features per row; this devplace gives " +
                                std::to_string(kF + m.context) + ": retrain it with this devplace");
    }
    if (with_context) {
      torch::serialize::InputArchive sub;
      ar.read("context", sub);
      policy.impl_->ctx->load(sub);
    }
  } catch (const c10::Error&) {
    throw Error(path, "", "the policy's weights do not match its declared size");
  }
  return policy;
}

const char* stage_name(ListTrainingStep::Stage stage) {
  switch (stage) {
    case ListTrainingStep::Stage::imitation: return "imitation";
    case ListTrainingStep::Stage::expert: return "expert";
    default: return "rl";
  }
}

Placement ListPolicy::greedy(const Problem& p, Objective objective) const {
  return sample(p, 1, 0, objective).front();
}

std::vector<Placement> ListPolicy::sample(const Problem& p, int count, std::uint64_t seed, Objective objective) const {
  TorchScope scope(seed);
  std::mt19937_64 rng(seed);
  return impl_->rollout(p, std::max(1, count), Choice::greedy_then_sample, rng, objective).placements;
}

Placement ListPolicy::decode_with_discrepancies(const Problem& p, Reward& reward, int budget, int rounds,
                                                Objective objective) const {
  TorchScope scope(0);
  if (objective == Objective::tarnawski && p.host() >= 0 && rounds <= 0 && budget >= kPortfolioBudget)
    return impl_->search_portfolio(p, reward, budget, objective).best.placements.at(0);
  return impl_->search(p, reward, budget, rounds, objective).best.placements.at(0);
}

namespace {

// One clipped policy-gradient update from a rollout and its advantages; returns the mean entropy.
double update(ListPolicy::Impl& m, torch::optim::Adam& opt, const Rollout& r, const std::vector<float>& adv,
              const ListPolicyConfig& c, double entropy_weight, double& loss_out) {
  torch::Tensor old_logp;
  {
    torch::NoGradGuard no_grad;
    old_logp = m.log_probs(r);
  }
  auto advantages = torch::tensor(adv);
  double entropy = 0;
  for (int epoch = 0; epoch < c.pg.update_epochs; ++epoch) {
    double kl = 0;
    auto loss =
        ppo_loss_per_sample(m.log_probs(r), old_logp, r.actions, advantages, c.pg.clip, entropy_weight, kl, entropy);
    // Per decision: a graph of many decisions must not take larger steps than a small one.
    loss = loss / std::max<std::int64_t>(1, r.actions.size(1));
    opt.zero_grad();
    loss.backward();
    opt.step();
    loss_out = loss.item<double>();
    if (kl > c.pg.target_kl) break;
  }
  return entropy;
}

// One step of imitation of a rollout's decisions (cross-entropy per decision, averaged).
double imitate(ListPolicy::Impl& m, torch::optim::Adam& opt, const Rollout& r) {
  auto logp = m.log_probs(r);                                             // [K, T, D]
  auto loss = -logp.gather(2, r.actions.unsqueeze(2)).squeeze(2).mean();  // the target's actions
  opt.zero_grad();
  loss.backward();
  opt.step();
  return loss.item<double>();
}

struct Scored {
  std::vector<double> latency;
  std::vector<double> reward;
};

Scored score(const std::vector<Placement>& placements, Reward& reward, double reference, double penalty) {
  Scored s;
  for (const Evaluation& e : reward.evaluate_batch(placements)) {
    s.latency.push_back(e.feasible ? e.latency : kInfeasibleTime);
    s.reward.push_back(placement_reward(e, reference, RewardKind::speedup, penalty));
  }
  return s;
}

// The best placement expert iteration has found for one problem, kept as its rollout: a
// rollout's observations depend only on its decisions, not on the policy, so it stays a valid
// imitation target while the policy changes.
struct Expert {
  Rollout rollout;
  double latency = kInfeasibleTime;
  ListPolicy::Impl::Tried tried;  // what the searches from the policy's own placement tried
};
using ExpertMemory = std::vector<Expert>;

struct ExpertStep {
  double greedy_latency = 0, found_latency = 0, loss = 0;
};

// One step of expert iteration on one problem: search with the policy (its own placement first),
// keep the best placement ever found, then c.expert_steps imitation steps towards it.
ExpertStep expert_step(ListPolicy::Impl& m, torch::optim::Adam& opt, const Problem& p, Reward& reward,
                       const ListPolicyConfig& c, Expert& expert, const ScheduleEnv* fresh = nullptr) {
  ExpertStep out;
  const int budget = std::max(1, c.expert_budget);
  CountingReward spent(reward);
  auto found = m.search(p, spent, budget, 0, reward.objective(), &expert.tried, nullptr, fresh);
  out.found_latency = found.latency, out.greedy_latency = found.own_latency;
  if (found.latency < expert.latency) expert.rollout = std::move(found.best), expert.latency = found.latency;
  if (expert.latency >= kInfeasibleTime) return out;
  // Imitation in proportion to the evaluations the search spent: a search that ran short of
  // changes to try (a policy near its best) should not buy a full round of training each time.
  const long long steps = std::max(1, c.expert_steps) * static_cast<long long>(spent.count()) / budget;
  for (long long k = 0; k < std::max(1LL, steps); ++k) out.loss = imitate(m, opt, expert.rollout);
  return out;
}

// The rollout that decides as `target` does (where a decision's mask forbids the target's
// device, the teacher's choice): an imitation target with the policy's own observations.
Rollout follow(ListPolicy::Impl& m, const Problem& p, const Placement& target, Objective objective) {
  const Forced forced{target};
  std::mt19937_64 rng(0);  // unused: every decision is forced or the teacher's
  return m.rollout(p, 1, Choice::teacher, rng, objective, &forced);
}

// Per problem, the imitation stage's target: the teacher's rollout, or the rollout of
// c.imitation_placer's placement where that is faster.
std::vector<Rollout> imitation_targets(ListPolicy::Impl& m, const std::vector<const Problem*>& corpus,
                                       std::vector<std::unique_ptr<Reward>>& rewards, const ListPolicyConfig& c,
                                       std::uint64_t seed, std::mt19937_64& rng) {
  std::vector<Rollout> targets;
  const PlacerRegistry placers = classical_placers();
  for (std::size_t g = 0; g < corpus.size(); ++g) {
    const Problem& p = *corpus[g];
    Rollout teacher = m.rollout(p, 1, Choice::teacher, rng, c.objective);
    const Evaluation own = rewards[g]->evaluate(teacher.placements[0]);
    PlaceOptions o;
    o.objective = c.objective, o.eval_budget = c.imitation_budget, o.seed = seed + g;
    Placement target = placers.make(p, c.imitation_placer, o)->place(p, o);
    // Where the teacher's choice does as well, take it (op by op in decision order; under
    // the simulator, whose ops need not move together): what is left to imitate are the choices
    // that made the placement faster, not the search's arbitrary ones.
    double best = rewards[g]->latency(target);
    const Placement& taught = teacher.placements[0];
    // The teacher's decision order, free of the ops' numbering.
    const std::vector<int> order = c.objective == Objective::simulator ? decision_order(teacher, 0) : std::vector<int>{};
    for (int v : order) {
      if (best >= kInfeasibleTime || target[v] == taught[v]) continue;
      const int mine = target[v];
      target[v] = taught[v];
      const double l = rewards[g]->latency(target);
      if (l <= best) best = l; else target[v] = mine;
    }
    Rollout found = follow(m, p, target, c.objective);
    const Evaluation e = rewards[g]->evaluate(found.placements[0]);
    const bool better = e.feasible && (!own.feasible || e.latency < own.latency);
    targets.push_back(better ? std::move(found) : std::move(teacher));
  }
  return targets;
}

}  // namespace

// The trainers' way to the network (ListPolicy keeps it private).
struct ListPolicyTraining {
  static ListPolicy::Impl& impl(ListPolicy& policy) { return *policy.impl_; }
};

void train_list_policy(ListPolicy& policy, const std::vector<const Problem*>& corpus, const ListPolicyConfig& c,
                       std::uint64_t seed, const std::function<void(const ListTrainingStep&)>& on_step) {
  if (corpus.empty()) throw Error("", "", "training the learned placer needs at least one graph");
  TorchScope scope(seed);
  std::mt19937_64 rng(seed);
  auto& m = ListPolicyTraining::impl(policy);
  torch::optim::Adam opt(m.parameters(), torch::optim::AdamOptions(c.lr));
  // References (best single device) once per graph.
  std::vector<std::unique_ptr<Reward>> rewards;
  std::vector<double> references;
  for (const Problem* p : corpus) {
    rewards.push_back(make_reward(*p, c.objective));
    references.push_back(best_single_device(*p, *rewards.back()).latency);
  }
  std::vector<int> order(corpus.size());
  std::size_t next = order.size();
  auto pick = [&] {
    if (next == order.size()) {
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      next = 0;
    }
    return order[next++];
  };
  const int total = c.imitation_iterations + c.iterations + c.expert_iterations;
  ExpertMemory experts(corpus.size());
  // The imitation targets do not change while the policy learns: made once per problem (each of
  // the teacher's decisions plays 2 D episodes ahead).
  std::vector<Rollout> targets;
  if (c.imitation_iterations > 0) {
    if (!c.imitation_placer.empty()) targets = imitation_targets(m, corpus, rewards, c, seed, rng);
    else
      for (const Problem* p : corpus) targets.push_back(m.rollout(*p, 1, Choice::teacher, rng, c.objective));
  }
  for (int it = 0; it < total; ++it) {
    const int g = pick();
    const Problem& p = *corpus[g];
    ListTrainingStep step;
    step.iteration = it + 1;
    step.graph = p.graph().name();
    step.reference = references[g];
    step.stage = it < c.imitation_iterations                  ? ListTrainingStep::Stage::imitation
                 : it < c.imitation_iterations + c.iterations ? ListTrainingStep::Stage::policy_gradient
                                                              : ListTrainingStep::Stage::expert;
    if (step.stage == ListTrainingStep::Stage::expert) {
      const int episode = it - c.imitation_iterations - c.iterations;
      for (auto& group : opt.param_groups())
        static_cast<torch::optim::AdamOptions&>(group.options())
            .lr(c.lr * lr_share_at(c.pg, episode, c.expert_iterations));
      const ExpertStep e = expert_step(m, opt, p, *rewards[g], c, experts[g]);
      step.greedy_latency = e.greedy_latency, step.best_latency = experts[g].latency;
      step.mean_latency = e.found_latency, step.loss = e.loss;
    } else if (step.stage == ListTrainingStep::Stage::imitation) {
      const Rollout& r = targets[g];
      step.loss = imitate(m, opt, r);
      step.greedy_latency = step.best_latency = step.mean_latency = rewards[g]->evaluate(r.placements[0]).latency;
    } else {
      const int episode = it - c.imitation_iterations;
      for (auto& group : opt.param_groups())
        static_cast<torch::optim::AdamOptions&>(group.options()).lr(c.lr * lr_share_at(c.pg, episode, c.iterations));
      Rollout r = m.rollout(p, c.samples, Choice::greedy_then_sample, rng, c.objective);
      Scored s = score(r.placements, *rewards[g], references[g], c.infeasible_penalty);
      const auto adv = centred_advantages(s.reward, c.pg.advantage_floor);
      step.entropy = update(m, opt, r, adv, c, entropy_weight_at(c.pg, episode, c.iterations), step.loss);
      step.greedy_latency = s.latency[0];
      double sum = 0;
      int feasible = 0;
      step.best_latency = kInfeasibleTime;
      for (double l : s.latency)
        if (l < kInfeasibleTime) sum += l, ++feasible, step.best_latency = std::min(step.best_latency, l);
      step.mean_latency = feasible ? sum / feasible : kInfeasibleTime;
    }
    if (on_step) on_step(step);
  }
}

ListTuneResult fine_tune_list_policy(ListPolicy& policy, const Problem& p, Reward& reward, long long budget,
                                     const ListPolicyConfig& c, std::uint64_t seed,
                                     const std::function<void(const ListTrainingStep&)>& on_update) {
  TorchScope scope(seed);
  std::mt19937_64 rng(seed);
  auto& m = ListPolicyTraining::impl(policy);
  CountingReward counted(reward);
  ListTuneResult out;
  out.best_latency = kInfeasibleTime;
  auto consider = [&](const Placement& pl, double latency) {
    if (latency < out.best_latency) out.best_latency = latency, out.best = pl;
  };
  const double reference = best_single_device(p, counted).latency;
  torch::optim::Adam opt(m.parameters(), torch::optim::AdamOptions(c.lr));
  if (c.tuning == ListPolicyConfig::Tuning::expert) {
    // Searches of c.samples evaluations, each followed by imitation of the best placement so far;
    // one evaluation stays for the final placement.
    Expert expert;
    const ScheduleEnv fresh(p, reward.objective(), m.rollout_features);  // every search copies it
    for (int u = 0; budget - counted.count() - 1 >= 2; ++u) {
      ListPolicyConfig chunk = c;
      chunk.expert_budget = static_cast<int>(std::min<long long>(c.samples, budget - counted.count() - 1));
      chunk.expert_steps = c.tune_steps;
      const long long before = counted.count();
      const ExpertStep e = expert_step(m, opt, p, counted, chunk, expert, &fresh);
      if (expert.latency < kInfeasibleTime) consider(expert.rollout.placements.at(0), expert.latency);
      // The policy places as the best found and its search had no change left to try (it spent
      // only its start): further updates would imitate the same target and search nothing.
      const bool settled = counted.count() - before <= 1 && e.greedy_latency <= expert.latency;
      if (on_update) {
        ListTrainingStep step;
        step.iteration = u + 1;
        step.graph = p.graph().name();
        step.stage = ListTrainingStep::Stage::expert;
        step.greedy_latency = e.greedy_latency, step.mean_latency = e.found_latency;
        step.best_latency = out.best_latency, step.reference = reference, step.loss = e.loss;
        on_update(step);
      }
      if (settled) break;
    }
  }
  const long long per_update = std::max(1, c.samples);
  const long long updates = c.tuning == ListPolicyConfig::Tuning::expert
                                ? 0
                                : std::max(0LL, (budget - counted.count() - 1) / per_update);
  for (long long u = 0; u < updates; ++u) {
    Rollout r = m.rollout(p, c.samples, Choice::greedy_then_sample, rng, reward.objective());
    Scored s = score(r.placements, counted, reference, c.infeasible_penalty);
    for (std::size_t k = 0; k < s.latency.size(); ++k) consider(r.placements[k], s.latency[k]);
    double loss = 0;
    update(m, opt, r, centred_advantages(s.reward, c.pg.advantage_floor), c,
           entropy_weight_at(c.pg, static_cast<int>(u), static_cast<int>(updates)), loss);
    if (on_update) {
      ListTrainingStep step;
      step.iteration = static_cast<int>(u) + 1;
      step.graph = p.graph().name();
      double sum = 0;
      int finite = 0;
      for (double l : s.latency)
        if (std::isfinite(l)) sum += l, ++finite;
      step.mean_latency = finite ? sum / finite : kInfeasibleTime;
      step.best_latency = out.best_latency, step.reference = reference, step.loss = loss;
      on_update(step);
    }
  }
  Rollout last = m.rollout(p, 1, Choice::greedy_then_sample, rng, reward.objective());
  out.policy = last.placements[0];
  const Evaluation e = counted.evaluate(out.policy);
  out.policy_latency = e.feasible ? e.latency : kInfeasibleTime;
  consider(out.policy, out.policy_latency);
  out.evaluations = counted.count();
  return out;
}

std::string default_list_policy_path(Objective objective) {
  return home_dir() + (objective == Objective::tarnawski ? "/policies/learned-tarnawski.pt" : "/policies/learned.pt");
}

}  // namespace devplace
