// `devplace pretrain`: trains devplace's own learned placer (learn/learned/list_policy.h) on the
// synthetic training corpus (learn/learned/training_corpus.h) and writes the policy that
// `place --algo learned` uses (policies/learned.pt by default). docs/design/learned.md has the
// command that made the shipped policy and how long it takes.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "cli/command_list.h"
#include "cost/cost_table.h"
#include "learn/learned/list_policy.h"
#include "learn/learned/move_policy.h"
#include "place/reward.h"
#include "learn/learned/training_corpus.h"
#include "place/placer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace devplace::cli {

namespace {

std::vector<SyntheticFamily> families(const std::vector<std::string>& names) {
  std::vector<SyntheticFamily> out;
  for (const auto& f : names)
    out.push_back(f == "branchy"       ? SyntheticFamily::branchy
                  : f == "transformer" ? SyntheticFamily::transformer
                  : f == "decoder"     ? SyntheticFamily::decoder
                                       : SyntheticFamily::layered);
  return out;
}

// --model specs: a file or bundled name, then its input bindings after colons.
void add_models(CorpusOptions& co, const std::vector<std::string>& specs) {
  for (const auto& spec : specs) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t k = 0; k <= spec.size(); ++k)
      if (k == spec.size() || spec[k] == ':') parts.push_back(spec.substr(start, k - start)), start = k + 1;
    co.models.push_back({parts[0], std::vector<std::string>(parts.begin() + 1, parts.end())});
  }
}

// The options both pretrain commands give the corpus: real models, the clusters they are drawn
// around, and the execution models drawn around calibrated ones.
struct CorpusArgs {
  std::vector<std::string> models, clusters = {"paper", "server", "nvlink4"}, executions;
  int clusters_per_model = 3;
  double execution_share = -1;  // -1: 0.5 with --execution
};

void add_corpus_options(CLI::App* cmd, CorpusArgs& a) {
  cmd->add_option("--model", a.models,
                  "Also train on this model (file or bundled name), with its input bindings after colons: "
                  "m.xml:input_ids=1,128:attention_mask=1,128 (repeatable)");
  cmd->add_option("--clusters-per-model", a.clusters_per_model,
                  "Perturbed clusters per --model, drawn around the --cluster ones in turn (default 3)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--cluster", a.clusters,
                  "Clusters (preset names or files) the --model problems are drawn around, in turn (repeatable; "
                  "default paper, server, nvlink4)");
  cmd->add_option("--execution", a.executions,
                  "A calibrated cost table (devplace calibrate / profile) whose execution model the corpus draws "
                  "around (repeatable; see --execution-share)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--execution-share", a.execution_share,
                  "Share of corpus problems that get an execution model drawn around an --execution one: their "
                  "dispatch, wake-up, op scale and crossing figures scaled by 0.5-2x (default 0.5 with --execution)")
      ->check(CLI::Range(0.0, 1.0));
}

void apply_corpus_options(CorpusOptions& co, const CorpusArgs& a) {
  co.clusters_per_model = a.clusters_per_model;
  co.clusters = a.clusters;
  for (const auto& file : a.executions) {
    const CostTable table = load_cost_table(file);
    if (!table.execution) throw Error(file, "execution", "no execution model in this cost table (run devplace calibrate)");
    co.executions.push_back(*table.execution);
  }
  if (a.executions.empty() && a.execution_share > 0)
    throw Error("", "--execution-share", "needs --execution: the calibrated cost tables to draw around");
  co.execution_share = a.executions.empty() ? 0.0 : a.execution_share < 0 ? 0.5 : a.execution_share;
  add_models(co, a.models);
}

// Held-out check of a move policy: unseen synthetic graphs, each placed at `budget` simulated
// evaluations three ways (as learned-discrepancy, learned-moves and learned-discrepancy-moves);
// prints the geometric mean of each against the list policy's own placement.
void validate_moves(const MovePolicy& moves, const ListPolicy& list, int graphs, int budget, std::uint64_t seed,
                    const std::vector<SyntheticFamily>& families) {
  CorpusOptions co;
  co.graphs = graphs, co.seed = seed, co.min_ops = 100, co.max_ops = 400, co.families = families;
  const auto corpus = make_training_corpus(co);
  const int decode = discrepancy_moves_decoding(budget);
  double log_sum[3] = {0, 0, 0};
  for (const auto& g : corpus) {
    const Problem& p = *g->problem;
    SimulatedReward sim(p), r0(p), r1(p), r2(p);
    const Placement own = list.greedy(p);
    const double base = r1.evaluate(own).latency;  // the move search's first evaluation
    const Placement disc = list.decode_with_discrepancies(p, r0, budget);
    const Placement mv = moves.improve(p, r1, own, budget - 1, base);
    CountingReward counted(r2);
    const Placement first = list.decode_with_discrepancies(p, counted, decode);
    const Placement both = moves.improve(p, counted, first, budget - static_cast<int>(counted.count()));
    const double l[3] = {sim.evaluate(disc).latency, sim.evaluate(mv).latency, sim.evaluate(both).latency};
    for (int k = 0; k < 3; ++k) log_sum[k] += std::log(l[k] / base);
  }
  const double n = static_cast<double>(corpus.size());
  std::printf("validation, %zu unseen graphs, geometric mean vs the list policy's own placement: discrepancy (%d) "
              "%.4f, moves (1 + %d) %.4f, discrepancy (%d) + moves (%d) %.4f\n",
              corpus.size(), budget, std::exp(log_sum[0] / n), budget - 1, std::exp(log_sum[1] / n), decode,
              budget - decode, std::exp(log_sum[2] / n));
}

// `devplace pretrain-moves`: the learned move policy (learn/learned/move_policy.h), from the list
// policy's placements of the corpus.
void add_pretrain_moves_command(CLI::App& app) {
  struct Args {
    std::string out, log, policy;
    std::vector<std::string> families = {"layered", "branchy", "transformer"}, validate_families;
    CorpusArgs corpus;
    int graphs = 64, starts = 4, validate = 0, validate_budget = 64, members = 4;
    MovePolicyConfig config;
    std::uint64_t seed = 1;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "pretrain-moves", "Train the learned move policy (it improves a placement) on synthetic graphs; write it");
  cmd->add_option("-o,--output", a->out, "Move-policy file (default: policies/learned-moves.pt in the devplace tree)");
  cmd->add_option("--policy", a->policy, "List policy whose placements the moves start from (default: the shipped one)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--starts", a->starts, "Start placements per graph: the policy's own and samples (default 4)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--graphs", a->graphs, "Graphs in the synthetic corpus (default 64)");
  cmd->add_option("--iterations", a->config.iterations, "Updates, one placement each (default 2000)")
      ->check(CLI::Range(0, 100000000));
  cmd->add_option("--moves-per-update", a->config.moves_per_update, "Moves simulated per update (default 32)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--hidden", a->config.hidden, "Width of the scorer's hidden layers (default 64)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--lr", a->config.lr, "Adam learning rate (default 1e-3)");
  cmd->add_option("--seed", a->seed, "Seed of the corpus, the network and the moves (default 1)");
  cmd->add_option("--members", a->members,
                  "Scorers trained alone, member j on corpus seed SEED + 10 j, whose predictions the policy "
                  "averages (default 4)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--families", a->families, "Synthetic graph families: layered, branchy, transformer, decoder (default the first three)")
      ->delimiter(',')
      ->check(CLI::IsMember({"layered", "branchy", "transformer", "decoder"}));
  add_corpus_options(cmd, a->corpus);
  cmd->add_option("--log", a->log, "Write the training log as CSV");
  cmd->add_option("--validate", a->validate,
                  "Then place this many unseen synthetic graphs (another corpus seed) at --validate-budget simulated evaluations: "
                  "the list policy's own placement, its discrepancy decoding, the move search from the first and "
                  "after an eighth of the budget on the second (learned-discrepancy-moves; default 0)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--validate-budget", a->validate_budget, "Evaluations per --validate graph (default 64)")
      ->check(CLI::Range(2, 1000000));
  cmd->add_option("--validate-families", a->validate_families,
                  "Families of the --validate graphs (default those of --families; others test transfer to "
                  "graphs unlike any trained on)")
      ->delimiter(',')
      ->check(CLI::IsMember({"layered", "branchy", "transformer", "decoder"}));
  cmd->callback([a] {
    const std::string out = a->out.empty() ? default_move_policy_path() : a->out;
    const auto t0 = std::chrono::steady_clock::now();
    const ListPolicy list = ListPolicy::load(a->policy.empty() ? default_list_policy_path() : a->policy);
    std::string csv = "member,iteration,graph,loss,best_gain_pct,top_gain_pct,ranked_hits,random_hits\n";
    std::vector<MovePolicy> members;
    std::size_t graphs = 0;
    for (int j = 0; j < a->members; ++j) {
      // Each member alone is what `pretrain-moves --members 1 --seed SEED+10j` trains.
      const std::uint64_t seed = a->seed + 10 * static_cast<std::uint64_t>(j);
      CorpusOptions co;
      co.graphs = a->graphs, co.seed = seed;
      co.families = families(a->families);
      apply_corpus_options(co, a->corpus);
      auto corpus = make_training_corpus(co);
      graphs = corpus.size();
      std::vector<const Problem*> problems;
      std::vector<std::vector<Placement>> starts;
      for (auto& g : corpus) {
        problems.push_back(g->problem.get());
        starts.push_back(list.sample(*g->problem, a->starts, seed));
      }
      MovePolicy policy(a->config.hidden, seed);
      const std::string label = a->members == 1 ? "pretrain-moves"
                                                : "pretrain-moves " + std::to_string(j + 1) + "/" + std::to_string(a->members);
      log::Progress bar(label, static_cast<std::size_t>(a->config.iterations));
      double ranked = 0, random = 0;
      int counted = 0;
      train_move_policy(policy, problems, starts, a->config, seed, [&](const MoveTrainingStep& s) {
        char line[256];
        std::snprintf(line, sizeof line, "%d,%d,%s,%.5f,%.4f,%.4f,%.4f,%.4f\n", j, s.iteration, s.graph.c_str(), s.loss,
                      s.best_gain, s.top_gain, s.ranked_hits, s.random_hits);
        csv += line;
        ranked += s.ranked_hits, random += s.random_hits, ++counted;
        if (s.iteration % 50 == 0) {
          char status[128];
          std::snprintf(status, sizeof status, "moves that help: %.1f%% of the best ranked, %.1f%% at random (last %d)",
                        100 * ranked / counted, 100 * random / counted, counted);
          bar.update(static_cast<std::size_t>(s.iteration), status);
          ranked = random = 0, counted = 0;
        }
      });
      bar.finish();
      members.push_back(std::move(policy));
    }
    const MovePolicy policy = MovePolicy::ensemble(std::move(members));
    policy.save(out);
    if (!a->log.empty()) write_file_atomic(a->log, csv);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("wrote %s (%d member%s, %zu graphs and %d updates each, %.0f s)\n", out.c_str(), a->members,
                a->members == 1 ? "" : "s", graphs, a->config.iterations, secs);
    if (a->validate > 0)
      validate_moves(policy, list, a->validate, a->validate_budget, a->seed + 1000,
                     families(a->validate_families.empty() ? a->families : a->validate_families));
  });
}

}  // namespace

void add_pretrain_command(CLI::App& app) {
  add_pretrain_moves_command(app);
  struct Args {
    std::string out, log, init, objective = "sim";
    std::vector<std::string> families = {"layered", "branchy", "transformer"};
    CorpusArgs corpus;
    std::string imitate;
    long long imitate_budget = 0;
    int graphs = 64, imitation = 400, iterations = 1500, expert = 0, expert_budget = 32, expert_steps = 1, samples = 16,
        hidden = 64, context = 0;
    double lr = 1e-3, slow_links = 0, cost_tables = 0;
    std::uint64_t seed = 1;
  };
  auto a = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("pretrain", "Train the learned placer on synthetic graphs and clusters; write its policy");
  cmd->add_option("-o,--output", a->out,
                  "Policy file (default: policies/learned.pt in the devplace tree; learned-tarnawski.pt under "
                  "--objective tarnawski)");
  cmd->add_option("--graphs", a->graphs, "Graphs in the synthetic corpus (default 64)");
  cmd->add_option("--imitation", a->imitation,
                  "Updates imitating the rollout choice: each op on the device where the estimated schedule, "
                  "played 32 decisions ahead by PEFT's lookahead rule, by staying there or by HEFT's placement, ends "
                  "first (default 400)");
  cmd->add_option("--imitate", a->imitate,
                  "Imitate, per graph, this classical placer's placement (e.g. local-search; tarnawski-dp under "
                  "--objective tarnawski) where it beats the rollout choice, instead of the rollout choice "
                  "(default: not)");
  cmd->add_option("--imitate-budget", a->imitate_budget,
                  "Simulated evaluations of the --imitate placer per graph (default: the placer's own)")
      ->check(CLI::Range(0LL, 1000000000LL));
  cmd->add_option("--iterations", a->iterations, "Policy-gradient updates after imitation (default 1500)");
  cmd->add_option("--expert", a->expert,
                  "Expert-iteration updates after policy gradient: search a graph with the policy, imitate the best "
                  "placement found for it so far (default 0)");
  cmd->add_option("--expert-budget", a->expert_budget,
                  "Simulated evaluations per expert-iteration search (default 32)");
  cmd->add_option("--expert-steps", a->expert_steps, "Imitation steps per expert-iteration search (default 1)");
  cmd->add_option("--samples", a->samples, "Placements sampled per update (default 16)");
  cmd->add_option("--hidden", a->hidden, "Width of the scorer's hidden layers (default 64)");
  cmd->add_option("--context", a->context,
                  "Width of a network reading the graph around each op (message passing over producers and "
                  "consumers), 0 for none (default 0)")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--lr", a->lr, "Adam learning rate (default 1e-3)");
  cmd->add_option("--seed", a->seed, "Seed of the corpus, the network and the samples (default 1)");
  cmd->add_option("--families", a->families,
                  "Synthetic graph families, drawn in turn: layered, branchy (Inception/ResNet-like), "
                  "transformer (BERT-like), decoder (LLaMA-like) (default the first three)")
      ->delimiter(',')
      ->check(CLI::IsMember({"layered", "branchy", "transformer", "decoder"}));
  cmd->add_option("--objective", a->objective,
                  "Latency model to train under: sim (the simulator) or tarnawski (Tarnawski et al.'s, with its "
                  "feasibility mask; synthetic accelerators then hold only part of a graph's weights) (default sim)")
      ->check(CLI::IsMember({"sim", "tarnawski"}));
  cmd->add_option("--init", a->init, "Start from this policy instead of a fresh network (e.g. to add expert iteration)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--slow-links", a->slow_links,
                  "Share of synthetic graphs whose links are slowed 1-100x (default 0)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--cost-tables", a->cost_tables,
                  "Share of synthetic graphs recast as cost graphs in the form of Tarnawski et al.'s (a host and 2-12 "
                  "accelerators 3-30x faster, transfers 0.1-10x a median op) (default 0)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--log", a->log, "Write the training log as CSV");
  add_corpus_options(cmd, a->corpus);
  cmd->callback([a] {
    const Objective objective = a->objective == "tarnawski" ? Objective::tarnawski : Objective::simulator;
    const std::string out = a->out.empty() ? default_list_policy_path(objective) : a->out;
    const auto t0 = std::chrono::steady_clock::now();
    CorpusOptions co;
    co.graphs = a->graphs, co.seed = a->seed;
    co.split_memory = objective == Objective::tarnawski;
    co.slow_links = a->slow_links, co.cost_tables = a->cost_tables;
    co.families = families(a->families);
    apply_corpus_options(co, a->corpus);
    auto corpus = make_training_corpus(co);
    std::vector<const Problem*> problems;
    for (auto& g : corpus) problems.push_back(g->problem.get());
    ListPolicyConfig c;
    c.hidden = a->hidden, c.samples = a->samples, c.lr = a->lr;
    c.imitation_iterations = a->imitation, c.iterations = a->iterations;
    c.imitation_placer = a->imitate, c.imitation_budget = a->imitate_budget;
    if (!c.imitation_placer.empty() && !classical_placers().contains(c.imitation_placer))
      throw Error("", "", "--imitate " + c.imitation_placer + ": not a classical placer (devplace place --help lists them)", ErrorKind::not_found);
    c.expert_iterations = a->expert, c.expert_budget = a->expert_budget, c.expert_steps = a->expert_steps;
    c.objective = objective;
    c.pg.entropy_start = 0.01, c.pg.entropy_end = 0.0, c.pg.lr_end_share = 0.1;
    ListPolicy policy = a->init.empty() ? ListPolicy(c.hidden, a->seed, a->context) : ListPolicy::load(a->init);
    std::string csv = "iteration,graph,stage,greedy_ms,mean_ms,best_ms,reference_ms,entropy,loss\n";
    log::Progress bar("pretrain", static_cast<std::size_t>(c.imitation_iterations + c.iterations + c.expert_iterations));
    double recent = 0;
    int counted = 0;
    train_list_policy(policy, problems, c, a->seed, [&](const ListTrainingStep& s) {
      char line[256];
      std::snprintf(line, sizeof line, "%d,%s,%s,%.6f,%.6f,%.6f,%.6f,%.5f,%.5f\n", s.iteration, s.graph.c_str(),
                    stage_name(s.stage), s.greedy_latency * 1e3, s.mean_latency * 1e3,
                    s.best_latency * 1e3, s.reference * 1e3, s.entropy, s.loss);
      csv += line;
      recent += s.reference / s.greedy_latency, ++counted;
      if (s.iteration % 50 == 0) {
        char status[96];
        std::snprintf(status, sizeof status, "%s: greedy %.3fx best single device (mean of last %d)",
                      stage_name(s.stage), recent / counted, counted);
        bar.update(static_cast<std::size_t>(s.iteration), status);
        recent = 0, counted = 0;
      }
    });
    bar.finish();
    policy.save(out);
    if (!a->log.empty()) write_file_atomic(a->log, csv);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("wrote %s (%zu graphs, %d imitation + %d policy-gradient + %d expert-iteration updates, %.0f s)\n",
                out.c_str(), corpus.size(), c.imitation_iterations, c.iterations, c.expert_iterations, secs);
  });
}

}  // namespace devplace::cli
