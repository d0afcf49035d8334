// The execution model against real runs: fitted on part of the measurements of the shared H200
// machine (../shared/data/h200-2026-12-04: one CPU worker + one H200, devplace's executor with
// blocking copies; the data's README names its build), it must predict the rest. The figures
// are printed (docs/design/cost-model.md quotes them).
#include "sim/calibrate.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "io/measured_runs.h"
#include "io/model.h"
#include "sim/simulator.h"
#include "sim/test_graphs.h"
#include "util/files.h"

namespace devplace {
namespace {

struct Split {
  std::vector<Placement> fit, predict;
  std::vector<double> fit_ms, predict_ms;
  std::vector<std::string> predict_labels;
};

// Fit on what `profile` runs itself (single devices, random placements); predict what placers chose.
Split split_runs(const std::vector<MeasuredRun>& runs) {
  Split s;
  for (const MeasuredRun& r : runs) {
    const bool fit = r.label.rfind("all on ", 0) == 0 || r.label.find("random") != std::string::npos;
    (fit ? s.fit : s.predict).push_back(r.placement);
    (fit ? s.fit_ms : s.predict_ms).push_back(r.median);
    if (!fit) s.predict_labels.push_back(r.label);
  }
  return s;
}

void print(const char* model, const char* what, const Fidelity& f) {
  std::printf("%-13s %-30s n=%2d  median |err| %5.1f%%  worst %5.1f%%  median signed %+6.1f%%  optimistic %2d  "
              "pairs ordered %d/%d\n",
              model, what, f.placements, f.median_abs_error * 100, f.worst_abs_error * 100,
              f.median_signed_error * 100, f.optimistic, f.pairs_ordered, f.pairs);
}

// Fits the execution model to the single devices and random placements of `run_file` and checks
// its predictions of the placers' placements against the link model's.
void check_series(const std::string& name, const std::string& model, const std::string& cluster,
                  const std::string& costs, const std::string& run_file,
                  ExecutionModel::Copies copies = ExecutionModel::Copies::blocking) {
  auto lp = load_problem(model, {}, cluster, costs);
  Problem& pb = *lp->problem;
  std::vector<MeasuredRun> runs = read_measured_runs(run_file, pb.graph(), pb.cluster());
  const int dropped = drop_unsettled_rounds(runs);
  std::printf("%-22s %d leading rounds dropped as unsettled\n", name.c_str(), dropped);
  const Split s = split_runs(runs);
  ASSERT_GE(s.fit.size(), 8u) << name;
  ASSERT_GE(s.predict.size(), 6u) << name;
  const Fidelity before = fidelity(pb, s.predict, s.predict_ms);
  const ExecutionModel fitted = fit_execution_model(
      pb, s.fit, s.fit_ms, default_execution_model(pb.cluster(), copies));
  const Fidelity after_fit = fidelity(pb, s.fit, s.fit_ms);
  const Fidelity after = fidelity(pb, s.predict, s.predict_ms);
  print(name.c_str(), "link model, placers", before);
  print(name.c_str(), "executor model, fitted set", after_fit);
  print(name.c_str(), "executor model, placers", after);
  for (std::size_t k = 0; k < s.predict.size(); ++k)
    std::printf("    %-40s measured %7.3f ms  error %+6.1f%% (link model %+6.1f%%)\n",
                s.predict_labels[k].substr(s.predict_labels[k].rfind('/') + 1).c_str(), s.predict_ms[k] * 1e3,
                after.errors[k] * 100, before.errors[k] * 100);
  EXPECT_EQ(fitted.fitted_on, static_cast<int>(s.fit.size()));
  // The noise floor: the same placement measured in several rows of one run (the placers often
  // chose one device alone) differs by this much; no model predicts below it.
  std::map<Placement, std::pair<double, double>> range;
  for (const MeasuredRun& r : runs) {
    auto [it, fresh] = range.try_emplace(r.placement, r.median, r.median);
    it->second.first = std::min(it->second.first, r.median);
    it->second.second = std::max(it->second.second, r.median);
  }
  double floor = 0;
  for (const auto& [p, mm] : range) floor = std::max(floor, mm.second / mm.first - 1);
  int mixed = 0, mixed_optimistic = 0;
  for (std::size_t k = 0; k < s.predict.size(); ++k)
    if (!is_single_device(s.predict[k])) ++mixed, mixed_optimistic += after.errors[k] < -0.05 ? 1 : 0;
  std::printf("%-22s noise floor %.1f%% (one placement's medians in one run); optimistic by over 5%% on %d of %d "
              "mixed placements held out\n",
              name.c_str(), floor * 100, mixed_optimistic, mixed);
  EXPECT_LT(after.median_abs_error, before.median_abs_error) << name;
  EXPECT_LT(after.median_abs_error, std::max(0.12, floor / 2)) << name;
  EXPECT_LE(2 * mixed_optimistic, mixed) << name;  // the link model on the H200: optimistic on nearly all
  EXPECT_GE(after.pairs_ordered, before.pairs_ordered) << name;
}

TEST(Calibrate, FittedOnRandomPlacementsPredictsThePlacersOnTheH200) {
  const std::string dir = shared_dir() + "/data/h200-2026-12-04";
  if (!file_exists(dir + "/h200.toml")) GTEST_SKIP() << "no shared H200 data at " << dir;
  for (const char* model : {"resnet50", "inception_v3", "bert_base"}) {
    const std::string m = dir + "/" + model;
    check_series(std::string("h200 ") + model, model, dir + "/h200.toml", m + "/costs.json", m + "/run.json");
  }
}

// Again on the H200, with the executor's asynchronous copies (tests/data/execution/h200-async-*,
// measured by tools/gpu_execution_checks.sh's steps; docs/results/gpu-checks-2026-12-04.log). Inception-V3
// only: on ResNet-50 the link model already predicts within the noise, and on BERT-base the model
// is still optimistic with these copies (docs/design/cost-model.md).
TEST(Calibrate, FittedOnRandomPlacementsPredictsThePlacersOnTheH200WithAsyncCopies) {
  const std::string root = DEVPLACE_SOURCE_DIR;
  for (const char* model : {"inception_v3"}) {
    const std::string d = root + "/tests/data/execution/h200-async-" + model;
    check_series(std::string("h200 async ") + model, model, root + "/tests/data/execution/h200-async.toml",
                 d + "/costs.json", d + "/run.json", ExecutionModel::Copies::async);
  }
}

// The same on this machine's two CPU workers (tools/execution_series.sh MODEL clusters/local2.toml).
TEST(Calibrate, FittedOnRandomPlacementsPredictsThePlacersOnLocal2) {
  const std::string root = DEVPLACE_SOURCE_DIR;
  for (const char* model : {"resnet50", "inception_v3"}) {
    const std::string d = root + "/tests/data/execution/local2-" + model;
    check_series(std::string("local2 ") + model, model, root + "/clusters/local2.toml", d + "/costs.json",
                 d + "/run.json");
  }
}

}  // namespace
}  // namespace devplace
