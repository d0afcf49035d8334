// `devplace bench [--quick] [--out docs/results]`: the benchmark report. Runs every placer on every
// bundled model and cluster preset (the paper's main table), the HSDAG feature ablation, the
// cost graphs of Tarnawski et al. under their latency model, a Gantt chart of the best
// placement of each model, and a scale test on synthetic layered DAGs; writes
// <out>/benchmark.md, <out>/benchmark.csv and SVG charts under <out>/img/.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>

#include "benchmark_report/report_run.h"
#include "io/model.h"
#include "learn/hsdag/hsdag.h"
#include "learn/learned_placers.h"
#include "learn/peers/peers.h"
#include "place/compare.h"
#include "place/synthetic.h"
#include "report/gantt.h"
#include "report/plot.h"
#include "report/results.h"
#include "sim/simulator.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace devplace {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Budgets of one run; --quick shrinks every one of them.
struct Budgets {
  bool quick = false;
  bool fusion = true;         // false: --no-fusion, every op its own kernel
  int hsdag_episodes = 0;     // 0: the default preset's (1000)
  int hsdag_refine = -1;      // -1: the preset's
  std::int64_t ls_evals = 0;  // local search; 0: its default (20000)
  // Learned peers: episodes x samples (Placeto samples are whole sweeps, far dearer).
  int peer_episodes = 25, peer_samples = 20, placeto_episodes = 10, placeto_samples = 10;
  int scale_peer_episodes = 1, scale_peer_samples = 2, scale_placeto_episodes = 1, scale_placeto_samples = 2;
  int ablation_episodes = 300, ablation_seeds = 3;
  int tarnawski_hsdag_episodes = 200;
  std::int64_t tarnawski_ls_evals = 20000;
  std::vector<int> scale_sizes = {1000, 10000, 100000};
  int scale_hsdag_episodes = 10, scale_hsdag_max_ops = 100000;
  // The learned peers stop at this size: placeto simulates the graph after every step, so its
  // sweeps cost O(groups x ops) (the report's scale note, written below, says so).
  int scale_peer_max_ops = 10000;
  std::int64_t scale_ls_evals = 1000;
  double scale_cap_s = 300;  // a placer is skipped at a size where its predicted time exceeds this
};

Budgets make_budgets(bool quick, bool fusion) {
  Budgets b;
  b.quick = quick;
  b.fusion = fusion;
  if (!quick) return b;
  b.hsdag_episodes = 100, b.hsdag_refine = 1000, b.ls_evals = 3000;
  b.peer_episodes = 10, b.peer_samples = 10, b.placeto_episodes = 2, b.placeto_samples = 5;
  b.ablation_episodes = 100, b.ablation_seeds = 1;
  b.tarnawski_hsdag_episodes = 30, b.tarnawski_ls_evals = 3000;
  b.scale_sizes = {1000, 10000};
  b.scale_hsdag_episodes = 3, b.scale_ls_evals = 200, b.scale_cap_s = 20;
  b.scale_peer_episodes = 1, b.scale_peer_samples = 2, b.scale_placeto_episodes = 1, b.scale_placeto_samples = 1;
  return b;
}

bool is_peer(const std::string& name) { return name == "rnn" || name == "hierarchical" || name == "placeto"; }

// "gpu-only" on a cluster without a device called gpu means its first GPU (nvlink4: gpu0).
std::string resolve_name(const Problem& pb, const std::string& name) {
  if (name == "gpu-only" && pb.cluster().find_device("gpu") < 0) {
    int g = pb.cluster().first_of_kind("gpu");
    if (g >= 0) return pb.cluster().devices[g].name + "-only";
  }
  return name;
}

// Every placer of a report, classical and learned, from the one registry.
std::unique_ptr<Placer> bench_placer(const Problem& pb, const std::string& name, const PlaceOptions& o) {
  static const PlacerRegistry registry = all_placers();  // immutable once made
  return registry.make(pb, resolve_name(pb, name), o);
}

// `name`'s options under the report's budgets. hsdag_refine: -1 keeps the preset's polish;
// peer_scale: the scale test's (smaller) budgets for the learned peers.
PlaceOptions bench_options(const std::string& name, const Budgets& b, std::uint64_t seed, Objective objective,
                           std::int64_t ls_evals, int hsdag_episodes, int hsdag_refine, bool peer_scale = false) {
  PlaceOptions o;
  o.seed = seed;
  o.objective = objective;
  if (name == "local-search") o.eval_budget = ls_evals;
  if (is_peer(name)) {
    const bool placeto = name == "placeto";
    o.learned.episodes = peer_scale ? (placeto ? b.scale_placeto_episodes : b.scale_peer_episodes)
                            : (placeto ? b.placeto_episodes : b.peer_episodes);
    o.learned.samples = peer_scale ? (placeto ? b.scale_placeto_samples : b.scale_peer_samples)
                           : (placeto ? b.placeto_samples : b.peer_samples);
  }
  if (name == "hsdag" || name == "hsdag+polish") {
    o.learned.episodes = hsdag_episodes;
    o.learned.polish_evals = hsdag_refine;
  }
  return o;
}

ResultCell to_cell(const ComparisonRow& row, double reference, double lower_bound) {
  ResultCell c;
  c.ran = true;
  c.error = row.error;
  c.verdict = row.verdict;
  c.verdict.feasible = row.error.empty() && row.verdict.feasible;
  const double latency = c.verdict.latency;
  c.speedup = c.verdict.feasible && reference > 0 ? reference / latency : 0;
  c.gap = c.verdict.feasible && lower_bound > 0 ? latency / lower_bound - 1 : NAN;
  c.seconds = row.place_seconds;
  return c;
}

struct Report {
  std::string out_dir;
  std::string md;  // the body, sections in order
  std::string csv = "section,cluster,model,method,latency_ms,feasible,speedup,gap_to_lower_bound,seconds,note\n";
  void csv_row(const std::string& section, const std::string& cluster, const std::string& model,
               const std::string& method, const ResultCell& c) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s,%s,%s,%s,%s,%d,%.4f,%.4f,%.4f,", section.c_str(), cluster.c_str(), model.c_str(),
                  method.c_str(), c.verdict.feasible ? fmt_ms(c.verdict.latency).c_str() : "",
                  c.verdict.feasible ? 1 : 0, c.speedup, std::isfinite(c.gap) ? c.gap : -1.0, c.seconds);
    std::string note = c.error.empty() ? c.verdict.reason : c.error;
    std::replace(note.begin(), note.end(), ',', ';');
    csv += buf + short_error(note, 120) + "\n";
  }
  void svg(const std::string& name, const std::string& content) {
    write_file_atomic(out_dir + "/img/" + name, content);
  }
};

void say(const char* fmt, const std::string& a, double t) { log::infof(fmt, a.c_str(), t); }

// --- The paper's main table ------------------------------------------------------------

struct BestPlacement {
  std::string method;
  double latency = kInfeasibleTime;
  Placement placement;
};

const std::vector<std::string> kMethods = {"cpu-only",     "gpu-only",     "hetero", "placeto",     "rnn",
                                           "hierarchical", "heft",         "m-topo", "m-etf",       "m-sct",
                                           "metis",        "local-search", "hsdag",  "hsdag+polish"};

// The paper cluster's grid is kept for the section that sets it beside the paper's own figures.
void main_tables(Report& rep, const std::vector<std::string>& models, const std::vector<std::string>& presets,
                 const Budgets& b, std::uint64_t seed, std::map<std::string, BestPlacement>& best_paper,
                 std::unique_ptr<ResultGrid>& paper_grid) {
  rep.md += "## Main table: every method on every model\n\n";
  rep.md +=
      "Latency of one inference (batch 1) under our event simulator, in ms; speed-up over cpu-only; gap to "
      "the lower bound (critical path at each op's fastest device, or total work over the devices, whichever "
      "is larger); wall time of the placement (training, for learned methods). Best latency per model in "
      "bold. `hetero` is the OpenVINO HETERO-like baseline (each op on the first device of the priority list "
      "that supports it). `n/a`: the placer refused or is not available in this build (see the notes).\n\n";
  for (const auto& preset : presets) {
    ResultGrid grid(kMethods, models);
    std::vector<double> lbs;
    std::string gpu_label;
    for (std::size_t m = 0; m < models.size(); ++m) {
      auto ctx = load_problem(models[m], {}, preset, "", b.fusion);
      const Problem& pb = *ctx->problem;
      gpu_label = resolve_name(pb, "gpu-only");
      const double lb = makespan_lower_bound(pb);
      lbs.push_back(lb);
      const double ref =
          judge(pb, Placement(pb.num_ops(), pb.host() >= 0 ? pb.host() : 0), Objective::simulator).latency;
      for (std::size_t k = 0; k < kMethods.size(); ++k) {
        const std::string& name = kMethods[k];
        auto t0 = Clock::now();
        const PlaceOptions o =
            bench_options(name, b, seed, Objective::simulator, b.ls_evals, b.hsdag_episodes, b.hsdag_refine);
        ComparisonRow row = run_placer(pb, name, o, [&] { return bench_placer(pb, name, o); });
        grid.at(k, m) = to_cell(row, ref, lb);
        rep.csv_row("main", preset, models[m], name, grid.at(k, m));
        log::infof("  %-8s %-13s %-13s %10s ms  %.2f s%s\n", preset.c_str(), models[m].c_str(), name.c_str(),
                   fmt_ms(row.verdict.latency).c_str(), since(t0), row.error.empty() ? "" : "  (error)");
        if (preset == "paper" && row.error.empty() && row.verdict.feasible &&
            row.verdict.latency < best_paper[models[m]].latency)
          best_paper[models[m]] = {name, row.verdict.latency, row.placement};
      }
    }
    if (gpu_label != "gpu-only") grid.methods[1] = "gpu-only (" + gpu_label.substr(0, gpu_label.size() - 5) + ")";
    const Cluster c = load_cluster(preset);
    rep.md += "### Cluster `" + preset + "`: " + c.description + "\n\n";
    rep.md += grid_markdown(grid);
    if (preset == "paper") paper_grid = std::make_unique<ResultGrid>(grid);
    rep.md += "\nLower bounds (ms):";
    for (std::size_t m = 0; m < models.size(); ++m)
      rep.md += " " + models[m] + " " + fmt_ms(lbs[m]) + (m + 1 < models.size() ? ";" : "");
    rep.md += "\n\n";
  }
}

// --- Beside the paper's reported figures ---------------------------------------------------

// HSDAG's per-model improvement over CPU-only as the paper reports it (second-hand, from
// shared/paper-notes.md), measured with OpenVINO on an i9-12900K + Flex 170.
const std::map<std::string, double> kPaperHsdagOverCpu = {
    {"inception_v3", 0.179}, {"resnet50", 0.521}, {"bert_base", 0.582}};

void paper_figures_section(Report& rep, const ResultGrid& grid) {
  auto method = [&](const std::string& name) {
    for (std::size_t k = 0; k < grid.methods.size(); ++k)
      if (grid.methods[k] == name || grid.methods[k].rfind(name + " ", 0) == 0) return static_cast<int>(k);
    return -1;
  };
  const int cpu = method("cpu-only"), gpu = method("gpu-only"), hsdag = method("hsdag");
  if (cpu < 0 || gpu < 0 || hsdag < 0) return;
  rep.md += "## Beside the paper's reported figures (cluster `paper`)\n\n";
  rep.md +=
      "The paper measured HSDAG's placements with OpenVINO on an Intel Core i9-12900K and a Data Center GPU "
      "Flex 170 and reports, per model, how much faster they ran than CPU-only (second-hand figures, "
      "shared/paper-notes.md). Our sources do not say whether a figure is a latency reduction "
      "(1 - T/T_cpu) or a speed-up minus one (T_cpu/T - 1), so both readings of ours are shown. Ours are "
      "simulated on the `paper` preset, whose devices are calibrated to published figures for that "
      "hardware (docs/design/cost-model.md), not measured on it.\n\n";
  MarkdownTable t;
  t.header = {"model",
              "paper: HSDAG over CPU-only",
              "ours: HSDAG, 1 - T/T_cpu",
              "ours: HSDAG, T_cpu/T - 1",
              "ours: GPU-only, 1 - T/T_cpu",
              "ours: HSDAG over GPU-only"};
  t.align = "lrrrrr";
  for (std::size_t m = 0; m < grid.models.size(); ++m) {
    const ResultCell &c = grid.at(cpu, m), &g = grid.at(gpu, m), &h = grid.at(hsdag, m);
    auto it = kPaperHsdagOverCpu.find(grid.models[m]);
    if (it == kPaperHsdagOverCpu.end() || !c.ran || !g.ran || !h.ran || !h.verdict.feasible) continue;
    char paper[32], red[32], up[32], gred[32], over[32];
    std::snprintf(paper, sizeof paper, "%.1f%%", it->second * 100);
    std::snprintf(red, sizeof red, "%.1f%%", (1 - h.verdict.latency / c.verdict.latency) * 100);
    std::snprintf(up, sizeof up, "%.1f%%", (c.verdict.latency / h.verdict.latency - 1) * 100);
    std::snprintf(gred, sizeof gred, "%.1f%%", (1 - g.verdict.latency / c.verdict.latency) * 100);
    std::snprintf(over, sizeof over, "%.1f%%", (1 - h.verdict.latency / g.verdict.latency) * 100);
    t.rows.push_back({grid.models[m], paper, red, up, gred, over});
  }
  rep.md += t.render() + "\n";
  rep.md +=
      "Read as latency reductions, ours are close to the paper's on BERT-base and ResNet-50 and far larger on "
      "Inception-V3. Most of our gain is the GPU's alone (GPU-only column): the preset's GPU is 2.0-2.5x faster "
      "than its CPU on these models, as published device benchmarks say (docs/design/cost-model.md). The paper's 17.9% "
      "on Inception-V3, with HSDAG beating GPU-only there, means its GPU ran that model at most 1.18-1.22x "
      "faster than its CPU; from here we cannot tell why (driver, precision, the GPU plugin). What a placement "
      "adds beyond the best single device is the last column.\n\n";
}

// --- HSDAG ablation --------------------------------------------------------------------

void ablation_table(Report& rep, const std::vector<std::string>& models, const Budgets& b) {
  struct Variant {
    std::string name;
    std::function<void(FeatureOptions&)> edit;
  };
  const std::vector<Variant> variants = {
      {"all paper features", [](FeatureOptions&) {}},
      {"- output shape", [](FeatureOptions& f) { f.output_shape = false; }},
      {"- node id", [](FeatureOptions& f) { f.node_id = false; }},
      {"- structure (degree, position, fractal)", [](FeatureOptions& f) { f.degree = f.position = f.fractal = false; }},
      {"+ cost (our default)", [](FeatureOptions& f) { f.cost = true; }},
  };
  rep.md += "## HSDAG ablation: feature groups removed one at a time (cluster `paper`)\n\n";
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "HSDAG, our default preset but with the paper's feature set (no cost block) as the base; each row "
                "switches one group off (or the cost block on). %d episodes x 32 samples, no refinement (the policy's "
                "own best placement), seeds 1..%d; cells: mean latency over seeds in ms (best of the seeds), and the "
                "change of the mean against the base row.\n\n",
                b.ablation_episodes, b.ablation_seeds);
  rep.md += buf;
  MarkdownTable t;
  t.header = {"features"};
  t.align = "l";
  for (const auto& m : models) t.header.insert(t.header.end(), {m + " (ms)", "vs base"}), t.align += "rr";
  t.header.push_back("time (s)"), t.align += "r";
  std::vector<double> base(models.size(), 0);
  std::vector<std::unique_ptr<LoadedProblem>> ctxs;
  for (const auto& m : models) {
    ctxs.push_back(load_problem(m, {}, "paper", "", b.fusion));
  }
  for (std::size_t v = 0; v < variants.size(); ++v) {
    std::vector<std::string> row = {variants[v].name};
    double secs = 0;
    for (std::size_t m = 0; m < models.size(); ++m) {
      const Problem& pb = *ctxs[m]->problem;
      double sum = 0, best = kInfeasibleTime;
      int ok = 0;
      for (int s = 1; s <= b.ablation_seeds; ++s) {
        HsdagConfig c = hsdag_preset("default");
        c.features.cost = false;
        variants[v].edit(c.features);
        c.episodes = b.ablation_episodes, c.refine_evals = 0, c.seed = static_cast<std::uint64_t>(s);
        SimulatedReward reward(pb);
        auto t0 = Clock::now();
        try {
          TrainResult r = train_hsdag(pb, reward, c);
          if (std::isfinite(r.greedy_latency)) sum += r.greedy_latency, best = std::min(best, r.greedy_latency), ++ok;
        } catch (const std::exception& e) {
          log::warn("bench-ablation", std::string("ablation run failed: ") + e.what());
        }
        secs += since(t0);
      }
      const double mean = ok ? sum / ok : kInfeasibleTime;
      if (v == 0) base[m] = mean;
      row.push_back(fmt_ms(mean) + " (" + fmt_ms(best) + ")");
      row.push_back(v == 0 ? "base" : fmt_gap(mean / base[m] - 1));
      say("  ablation %-40s %.1f s\n", variants[v].name + " " + models[m], secs);
    }
    row.push_back(fmt_seconds(secs));
    t.rows.push_back(std::move(row));
  }
  rep.md += t.render() + "\n";
}

// --- Tarnawski cost graphs -------------------------------------------------------------

void tarnawski_table(Report& rep, const Budgets& b, std::uint64_t seed) {
  namespace fs = std::filesystem;
  rep.md += "## Cost graphs of Tarnawski et al. (NeurIPS 2020) under their latency model\n\n";
  const std::string dir = shared_dir() + "/data/dnn-partitioning/latency-inputs";
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_directory(dir, ec))
    for (const auto& sub : fs::recursive_directory_iterator(dir, ec))
      if (sub.is_regular_file() && sub.path().extension() == ".json") files.push_back(sub.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    rep.md += "Skipped: `" + dir + "` (msr-fiddle/dnn-partitioning latency inputs) was not found.\n\n";
    return;
  }
  const std::vector<std::string> methods = {"cpu-only", "tarnawski-greedy", "tarnawski-dp", "local-search", "hsdag"};
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "Graphs and costs from msr-fiddle/dnn-partitioning (`latency-inputs/`), imported with times read as "
                "ms; latency = their model (`--objective tarnawski`: contiguous accelerator sets, serial "
                "accelerators, CPU with unlimited parallelism; docs/design/tarnawski.md). `tarnawski-greedy` is our "
                "reconstruction of their greedy baseline, `tarnawski-dp` ours. local-search: simulated annealing "
                "under their model, %lld evaluations; hsdag: %d episodes under their model. `exact` refuses graphs "
                "over 24 ops, so it has no column (every graph here is larger).\n\n"
                "**Their published figures are not given here**: docs/design/tarnawski.md records that the paper's Table 4 "
                "(latency, ms) could not be retrieved in this environment, so no column compares with them.\n\n",
                static_cast<long long>(b.tarnawski_ls_evals), b.tarnawski_hsdag_episodes);
  rep.md += buf;
  MarkdownTable t;
  t.header = {"graph", "ops", "edges", "accelerators"};
  t.align = "lrrr";
  for (const auto& m : methods) t.header.push_back(m + " (ms)"), t.align += "r";
  t.header.push_back("dp vs greedy"), t.align += "r";
  t.header.push_back("time dp / ls / hsdag (s)"), t.align += "r";
  std::string notes;
  for (const auto& f : files) {
    std::unique_ptr<LoadedProblem> ctx;
    try {
      ctx = load_problem(f, {}, "", "");
    } catch (const std::exception& e) {
      notes += "- " + f + ": " + short_error(e.what()) + "\n";
      continue;
    }
    const Problem& pb = *ctx->problem;
    std::string name = fs::path(f).parent_path().filename().string() + "/" + fs::path(f).stem().string();
    if (name.size() > 10 && name.compare(name.size() - 10, 10, "_inference") == 0) name.resize(name.size() - 10);
    std::vector<std::string> row = {name, std::to_string(pb.num_ops()), std::to_string(pb.graph().num_edges()),
                                    std::to_string(pb.num_devices() - 1)};
    std::map<std::string, ComparisonRow> rows;
    for (const auto& m : methods) {
      const PlaceOptions o =
          bench_options(m, b, seed, Objective::tarnawski, b.tarnawski_ls_evals, b.tarnawski_hsdag_episodes, 0);
      ComparisonRow r = run_placer(pb, m, o, [&] { return bench_placer(pb, m, o); });
      ResultCell cell = to_cell(r, 0, 0);
      rep.csv_row("tarnawski", pb.cluster().name, name, m, cell);
      row.push_back(!r.error.empty() ? "n/a" : r.verdict.feasible ? fmt_ms(r.verdict.latency) : "infeasible");
      if (!r.error.empty()) notes += "- " + m + " on " + name + ": " + short_error(r.error) + "\n";
      rows[m] = std::move(r);
    }
    const double g = rows["tarnawski-greedy"].verdict.latency, d = rows["tarnawski-dp"].verdict.latency;
    row.push_back(std::isfinite(g) && std::isfinite(d) ? fmt_gap(d / g - 1) : "-");
    row.push_back(fmt_seconds(rows["tarnawski-dp"].place_seconds) + " / " +
                  fmt_seconds(rows["local-search"].place_seconds) + " / " + fmt_seconds(rows["hsdag"].place_seconds));
    say("  tarnawski %-30s %.1f s\n", name, rows["tarnawski-dp"].place_seconds + rows["hsdag"].place_seconds);
    t.rows.push_back(std::move(row));
  }
  rep.md += t.render();
  if (!notes.empty()) rep.md += "\n" + notes;
  rep.md += "\n";
}

// --- Gantt charts ----------------------------------------------------------------------

void gantt_section(Report& rep, const std::vector<std::string>& models,
                   const std::map<std::string, BestPlacement>& best, bool fusion) {
  rep.md += "## Timelines of the best placements (cluster `paper`)\n\n";
  rep.md +=
      "One lane per device, ops coloured by class, transfers as grey bands from the sending to the receiving "
      "lane (hover for names and times).\n\n";
  for (const auto& m : models) {
    auto it = best.find(m);
    if (it == best.end() || it->second.placement.empty()) {
      rep.md += "- " + m + ": no feasible placement, no chart.\n";
      continue;
    }
    auto ctx = load_problem(m, {}, "paper", "", fusion);
    Simulator sim(*ctx->problem);
    Schedule s = sim.run(it->second.placement);
    GanttOptions go;
    go.title = m + " on paper, best placement (" + it->second.method + "): " + fmt_ms(s.makespan) + " ms";
    rep.svg("gantt_" + m + ".svg", gantt_svg(*ctx->problem, s, go));
    rep.md += "### " + m + ": " + it->second.method + ", " + fmt_ms(s.makespan) + " ms, " +
              std::to_string(s.transfers.size()) + " transfers\n\n![" + m + "](img/gantt_" + m + ".svg)\n\n";
  }
  rep.md += "\n";
}

// --- Scale -----------------------------------------------------------------------------

void scale_section(Report& rep, const Budgets& b, std::uint64_t seed) {
  rep.md += "## Scale: synthetic layered DAGs\n\n";
  const std::vector<std::string> methods = {"cpu-only", "gpu0-only", "hetero",      "heft",         "m-topo",
                                            "m-etf",    "m-sct",     "metis",       "local-search", "hsdag",
                                            "placeto",  "rnn",       "hierarchical"};
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "`make_synthetic_problem` (src/place/synthetic.h): layers of 4 ops, each reading a random op of the "
                "previous layer and with probability 0.2 one up to 8 layers back; MatMul / Add / Relu / "
                "LayerNormalization / Softmax with [512, 128..512] f32 activations; cluster `synthetic-2gpu` (host cpu "
                "+ 2 GPUs over PCIe, in code); seed %llu. Placement time = wall time of `place()`; local-search with "
                "%lld evaluations; hsdag with %d episodes x 32 samples up to %d ops, no refinement; rnn and "
                "hierarchical %d episodes x %d samples, placeto %d episodes x %d sweeps. A placer is skipped at a size "
                "where its time, extrapolated from the "
                "smaller sizes, would exceed %.0f s. Simulator: mean time of one `makespan()` of the hetero "
                "placement and of one full `run()` (schedule with timeline).\n\n",
                static_cast<unsigned long long>(seed), static_cast<long long>(b.scale_ls_evals), b.scale_hsdag_episodes,
                b.scale_hsdag_max_ops, b.scale_peer_episodes, b.scale_peer_samples, b.scale_placeto_episodes,
                b.scale_placeto_samples, b.scale_cap_s);
  rep.md += buf;
  MarkdownTable t;
  t.header = {"method"};
  t.align = "l";
  for (int n : b.scale_sizes) {
    t.header.push_back(std::to_string(n) + " ops: time (s)");
    t.header.push_back("latency (ms)");
    t.align += "rr";
  }
  std::vector<std::vector<std::string>> cells(methods.size() + 2);
  std::vector<Series> series(methods.size());
  for (std::size_t k = 0; k < methods.size(); ++k) series[k].name = methods[k];
  Series sim_series{"simulator makespan() (1 eval)", {}, {}}, run_series{"simulator run() (1 eval)", {}, {}};
  std::vector<std::vector<std::pair<double, double>>> history(methods.size());  // (ops, seconds)
  std::vector<char> failed(methods.size(), 0);
  std::string notes;
  for (int n : b.scale_sizes) {
    SyntheticOptions so;
    so.ops = n, so.seed = seed;
    auto t0 = Clock::now();
    auto sp = make_synthetic_problem(so);
    const Problem& pb = *sp->problem;
    say("  scale %s ops: generated in %.2f s\n", std::to_string(n), since(t0));
    for (std::size_t k = 0; k < methods.size(); ++k) {
      const std::string& name = methods[k];
      std::string skip;
      if (name == "hsdag" && n > b.scale_hsdag_max_ops) skip = "not run";
      if (is_peer(name) && n > b.scale_peer_max_ops) skip = "not run (see below)";
      if (skip.empty() && failed[k]) skip = "n/a";
      if (skip.empty() && !history[k].empty()) {
        // Predict from the growth seen so far (at least linear).
        auto [n1, t1] = history[k].back();
        double expo = 2;  // one point: assume quadratic growth, to be safe
        if (history[k].size() >= 2) {
          auto [n0, t0s] = history[k][history[k].size() - 2];
          expo = t0s > 1e-3 && t1 > 1e-3 ? std::max(1.0, std::log(t1 / t0s) / std::log(n1 / n0)) : 1.0;
        }
        const double predicted = t1 * std::pow(n / n1, expo);
        if (predicted > b.scale_cap_s) {
          std::snprintf(buf, sizeof buf, "skipped (predicted %.0f s)", predicted);
          skip = buf;
        }
      }
      if (!skip.empty()) {
        cells[k].insert(cells[k].end(), {skip, "-"});
        continue;
      }
      const PlaceOptions o =
          bench_options(name, b, seed, Objective::simulator, b.scale_ls_evals, b.scale_hsdag_episodes, 0, true);
      ComparisonRow r = run_placer(pb, name, o, [&] { return bench_placer(pb, name, o); });
      if (!r.error.empty()) {
        cells[k].insert(cells[k].end(), {"n/a", "-"});
        notes += "- " + name + " at " + std::to_string(n) + " ops: " + short_error(r.error) + "\n";
        failed[k] = 1;  // do not retry larger sizes
        continue;
      }
      history[k].push_back({static_cast<double>(n), r.place_seconds});
      series[k].x.push_back(n), series[k].y.push_back(std::max(r.place_seconds, 1e-6));
      cells[k].push_back(fmt_seconds(r.place_seconds));
      cells[k].push_back(r.verdict.feasible ? fmt_ms(r.verdict.latency) : "infeasible");
      ResultCell cell = to_cell(r, 0, 0);
      rep.csv_row("scale", pb.cluster().name, std::to_string(n), name, cell);
      say("  scale %-22s %.2f s\n", std::to_string(n) + " " + name, r.place_seconds);
      if (name == "hsdag") {
        std::snprintf(buf, sizeof buf, "- hsdag at %d ops: %.2f s per episode (%d episodes x 32 samples)\n", n,
                      r.place_seconds / b.scale_hsdag_episodes, b.scale_hsdag_episodes);
        notes += buf;
      }
    }
    // Simulator cost per evaluation.
    Simulator sim(pb);
    Placement hetero = make_placer("hetero")->place(pb, {});
    // At least 3 repetitions and 0.3 s each, so a busy machine skews the mean less.
    double sink = 0;
    int reps = 0;
    for (t0 = Clock::now(); reps < 3 || since(t0) < 0.3; ++reps) sink += sim.makespan(hetero);
    const double per_eval = since(t0) / reps;
    reps = 0;
    for (t0 = Clock::now(); reps < 3 || since(t0) < 0.3; ++reps) sink += sim.run(hetero).makespan;
    const double per_run = since(t0) / reps;
    if (sink < 0) std::fprintf(stderr, "?");  // keeps the loops
    sim_series.x.push_back(n), sim_series.y.push_back(per_eval);
    run_series.x.push_back(n), run_series.y.push_back(per_run);
    std::snprintf(buf, sizeof buf, "%.3g", per_eval * 1e3);
    cells[methods.size()].insert(cells[methods.size()].end(), {buf, "ms per eval"});
    std::snprintf(buf, sizeof buf, "%.3g", per_run * 1e3);
    cells[methods.size() + 1].insert(cells[methods.size() + 1].end(), {buf, "ms per run"});
  }
  for (std::size_t k = 0; k < methods.size(); ++k) {
    std::vector<std::string> row = {methods[k]};
    row.insert(row.end(), cells[k].begin(), cells[k].end());
    t.rows.push_back(row);
  }
  t.rows.push_back({"simulator makespan()"});
  t.rows.back().insert(t.rows.back().end(), cells[methods.size()].begin(), cells[methods.size()].end());
  t.rows.push_back({"simulator run()"});
  t.rows.back().insert(t.rows.back().end(), cells[methods.size() + 1].begin(), cells[methods.size() + 1].end());
  rep.md += t.render();
  std::snprintf(
      buf, sizeof buf,
      "\nThe learned peers (rnn, hierarchical, placeto) run up to %d ops here. rnn and placeto place at most "
      "256 groups (consecutive co-location groups merged): rnn's attention decoder is quadratic in the group count, "
      "and without the cap it was killed by the OOM killer at 24 GB resident at 10,000 ops; placeto simulates the "
      "graph after every step, so a sweep costs O(groups x ops) and 100,000 ops would take hours.\n",
      b.scale_peer_max_ops);
  rep.md += buf;
  if (!notes.empty()) rep.md += "\n" + notes;
  std::vector<Series> plotted;
  for (auto& s : series)
    if (!s.x.empty()) plotted.push_back(s);
  plotted.push_back(sim_series);
  plotted.push_back(run_series);
  ChartOptions co;
  co.title = "Placement and simulation time against graph size (synthetic DAGs)";
  co.x_label = "ops", co.y_label = "seconds", co.log_x = co.log_y = true, co.width = 760, co.height = 480;
  rep.svg("scale.svg", line_chart_svg(plotted, co));
  rep.md += "\n![scale](img/scale.svg)\n\n";
}

}  // namespace

void run_bench_report(BenchReportOptions o) {
  const auto t0 = Clock::now();
  const Budgets b = make_budgets(o.quick, o.fusion);
  if (o.models.empty()) o.models = {"resnet50", "inception_v3", "bert_base"};
  if (o.presets.empty()) o.presets = {"paper", "server", "nvlink4"};
  std::filesystem::create_directories(o.out + "/img");
  Report rep;
  rep.out_dir = o.out;
  std::map<std::string, BestPlacement> best;
  // Taken once, before the first section: the report's own files make the tree dirty later.
  const MachineInfo mi = machine_info(home_dir());
  // The report is rewritten after every section, so a run that dies late keeps what it did.
  auto write = [&](bool done) {
    const double wall = since(t0);

    std::string cmdline = "devplace bench";
    if (o.quick) cmdline += " --quick";
    if (o.scale_only) cmdline += " --scale";
    if (!o.fusion) cmdline += " --no-fusion";
    cmdline += " --out " + o.out;
    if (o.seed != 1) cmdline += " --seed " + std::to_string(o.seed);
    char buf[1024];
    std::string head = "# Benchmark results\n\n";
    head += "Generated by `" + cmdline + "` (src/benchmark_report/report_run.cc); do not edit by hand: rerun the command.\n\n";
    std::snprintf(buf, sizeof buf,
                  "- wall time of the whole run: %.1f s (%s budgets)\n- machine: %d cores, %s\n- commit: %s%s\n"
                  "- seeds: %llu for every placer and the synthetic graphs; ablation seeds 1..%d\n"
                  "- budgets: hsdag %s episodes x 32 samples (refine %s evals), local-search %s evals, rnn and "
                  "hierarchical %d episodes x %d samples, placeto %d episodes x %d sweeps; "
                  "objective: our event simulator unless a section says otherwise\n\n",
                  wall, o.quick ? "quick" : "full", mi.cores, mi.cpu_model.c_str(), mi.commit.c_str(),
                  mi.dirty ? " (with uncommitted changes)" : "", static_cast<unsigned long long>(o.seed),
                  b.ablation_seeds,
                  b.hsdag_episodes ? std::to_string(b.hsdag_episodes).c_str() : "1000 (default preset)",
                  b.hsdag_refine >= 0 ? std::to_string(b.hsdag_refine).c_str() : "5000",
                  b.ls_evals ? std::to_string(b.ls_evals).c_str() : "20000 (default)", b.peer_episodes, b.peer_samples,
                  b.placeto_episodes, b.placeto_samples);
    head += buf;
    if (!done)
      head += "**Partial: the run has not finished (or did not finish); the sections below are complete.**\n\n";
    write_file_atomic(o.out + "/benchmark.md", head + rep.md);
    write_file_atomic(o.out + "/benchmark.csv", rep.csv);
    if (done)
      log::infof("wrote %s/benchmark.md, %s/benchmark.csv and %s/img/*.svg in %.1f s", o.out.c_str(), o.out.c_str(),
                 o.out.c_str(), wall);
  };
  if (!o.scale_only) {
    std::unique_ptr<ResultGrid> paper_grid;
    main_tables(rep, o.models, o.presets, b, o.seed, best, paper_grid);
    if (paper_grid) paper_figures_section(rep, *paper_grid);
    write(false);
    ablation_table(rep, o.models, b);
    write(false);
    tarnawski_table(rep, b, o.seed);
    gantt_section(rep, o.models, best, o.fusion);
    write(false);
  }
  scale_section(rep, b, o.seed);
  write(true);
}

}  // namespace devplace
