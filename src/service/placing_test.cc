// The placing service (service/placing.h): the one path behind `devplace place`, the C++ API and
// Python, with its checks and the rule for cost tables fitted to measured runs.
#include "service/placing.h"

#include <gtest/gtest.h>

#include "io/model.h"
#include "sim/schedule.h"
#include "util/error.h"

namespace devplace {
namespace {

std::unique_ptr<LoadedProblem> paper(const std::string& model) { return load_problem(model, {}, "paper", ""); }

ErrorKind kind_of(const Problem& problem, const PlaceRequest& request) {
  try {
    place_problem(problem, request);
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no error for " << request.algorithm;
  return ErrorKind::io;
}

TEST(Placing, FineTuningWithoutAPolicyIsAnInvalidArgument) {
  auto lp = paper("resnet50");
  PlaceRequest r;
  r.algorithm = "hsdag", r.options.learned.fine_tune_episodes = 5;
  EXPECT_EQ(kind_of(*lp->problem, r), ErrorKind::invalid_argument);
}

TEST(Placing, APolicyForAPlacerThatLoadsNoneIsAnInvalidArgument) {
  auto lp = paper("resnet50");
  PlaceRequest r;
  r.algorithm = "local-search", r.options.learned.policy_file = "policies/learned.pt";
  EXPECT_EQ(kind_of(*lp->problem, r), ErrorKind::invalid_argument);
  r.algorithm = "no-such-placer", r.options.learned.policy_file.clear();
  EXPECT_EQ(kind_of(*lp->problem, r), ErrorKind::not_found);
}

TEST(Placing, ReportsThePlacersNameVerdictAndPlacement) {
  auto lp = paper("resnet50");
  PlaceRequest r;
  r.algorithm = "heft";
  const PlaceResult out = place_problem(*lp->problem, r);
  EXPECT_EQ(out.placer, "heft");
  ASSERT_EQ(out.placement.size(), static_cast<std::size_t>(lp->problem->num_ops()));
  EXPECT_TRUE(out.verdict.feasible);
  EXPECT_DOUBLE_EQ(out.verdict.latency, judge(*lp->problem, out.placement, Objective::simulator).latency);
  EXPECT_EQ(out.replaced_by_device, -1);  // no fitted execution model on `paper`
}

// On the H200 table fitted to measured runs (error 11%), round-robin's placement is far slower
// than the GPU alone: the service replaces it by the GPU unless asked to keep it.
TEST(Placing, AFittedModelReplacesAPlacementNoBetterThanOneDevice) {
  const std::string d = std::string(DEVPLACE_SOURCE_DIR) + "/tests/data/execution/";
  auto lp = load_problem("inception_v3", {}, d + "h200-async.toml", d + "h200-async-inception_v3/calibrated.json");
  ASSERT_NE(lp->problem->execution(), nullptr);
  PlaceRequest r;
  r.algorithm = "round-robin";
  const PlaceResult swapped = place_problem(*lp->problem, r);
  ASSERT_GE(swapped.replaced_by_device, 0);
  EXPECT_TRUE(is_single_device(swapped.placement));
  EXPECT_EQ(swapped.placement.front(), swapped.replaced_by_device);
  EXPECT_GT(swapped.placer_latency, swapped.verdict.latency);
  EXPECT_GE(swapped.margin, 0.05);
  r.keep_placement = true;
  const PlaceResult kept = place_problem(*lp->problem, r);
  EXPECT_EQ(kept.replaced_by_device, -1);
  EXPECT_FALSE(is_single_device(kept.placement));
  EXPECT_DOUBLE_EQ(kept.verdict.latency, swapped.placer_latency);
}

}  // namespace
}  // namespace devplace
