#include <gtest/gtest.h>

#include "cost/cluster.h"
#include "io/model.h"
#include "place/compare.h"
#include "place/placer.h"
#include "place/reward.h"
#include "util/error.h"

namespace devplace {
namespace {

class Fixed : public Placer {
 public:
  explicit Fixed(int device) : device_(device) {}
  std::string name() const override { return "fixed"; }
  Placement place(const Problem& p, const PlaceOptions&) override { return Placement(p.num_ops(), device_); }

 private:
  int device_;
};

TEST(PlacerRegistry, MakesClassicalSingleDeviceAndAddedPlacersAndNamesTheKnownOnesOnError) {
  Model m = load_model("resnet50");
  Problem pb(m.graph, load_cluster("paper"));
  PlacerRegistry r = classical_placers();
  EXPECT_TRUE(r.contains("heft"));
  EXPECT_EQ(r.names().size(), classical_placer_names().size());
  EXPECT_EQ(r.make(pb, "heft")->place(pb, {}), make_placer("heft")->place(pb, {}));
  const int gpu = pb.cluster().find_device("gpu");
  ASSERT_GE(gpu, 0);
  EXPECT_EQ(r.make(pb, "gpu-only")->place(pb, {}), Placement(pb.num_ops(), gpu));
  EXPECT_THROW(r.make(pb, "tpu-only"), Error);
  try {
    r.make(pb, "no-such-placer");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("local-search"), std::string::npos) << e.what();
  }
  // A caller's own placer, made with the options of the call.
  int seen_episodes = -1;
  r.add("fixed", [&](const Problem&, const PlaceOptions& o) {
    seen_episodes = o.learned.fine_tune_episodes;
    return std::make_unique<Fixed>(0);
  });
  PlaceOptions o;
  o.learned.fine_tune_episodes = 7;
  EXPECT_EQ(r.make(pb, "fixed", o)->place(pb, o), Placement(pb.num_ops(), 0));
  EXPECT_EQ(seen_episodes, 7);
}

// compare's rows say what each placer cost: every evaluation through the reward it hands the
// placer is counted, the row's own verdict is not.
TEST(Compare, CountsThePlacersEvaluations) {
  Model m = load_model("resnet50");
  Problem pb(m.graph, load_cluster("paper"));
  PlaceOptions o;
  o.eval_budget = 100;
  const Comparison c = compare_placers(pb, {"gpu-only", "heft", "local-search", "random-best"}, o);
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_EQ(c.rows[0].evaluations, 0);  // a single device is placed without evaluating anything
  EXPECT_EQ(c.rows[1].evaluations, 0);  // HEFT's list schedule is not a full evaluation
  // Local search: its budget, the starts it compares (single devices, HEFT, METIS...) included.
  EXPECT_EQ(c.rows[2].evaluations, 100);
  EXPECT_EQ(c.rows[3].evaluations, 100);  // the best of 100 random placements
}

// No placer spends more evaluations than its budget, on a cluster of five devices where METIS
// alone would try 645 maps of its cuts (it was 720 for local search at 64 before the starts
// counted); with a budget large enough, METIS's answer is its unbudgeted one.
TEST(Compare, EveryClassicalPlacerKeepsToItsBudget) {
  Model m = load_model("inception_v3");
  Problem pb(m.graph, load_cluster("nvlink4"));
  ASSERT_EQ(pb.num_devices(), 5);
  for (const std::int64_t budget : {1, 64, 2000}) {
    PlaceOptions o;
    o.eval_budget = budget;
    const Comparison c = compare_placers(pb, classical_placer_names(), o);
    for (const ComparisonRow& row : c.rows) {
      EXPECT_LE(row.evaluations, budget) << row.algorithm << " at " << budget;
      if (row.algorithm == "local-search" && budget > 1) EXPECT_EQ(row.evaluations, budget);
    }
  }
  PlaceOptions unbudgeted, ample;
  ample.eval_budget = 1000;
  EXPECT_EQ(make_placer("metis")->place(pb, ample), make_placer("metis")->place(pb, unbudgeted));
  PlaceOptions few;
  few.eval_budget = 9;  // the speed-ordered map of each of the nine cuts only
  const Verdict v = judge(pb, make_placer("metis")->place(pb, few), Objective::simulator);
  EXPECT_TRUE(v.feasible);
  EXPECT_LT(v.latency, judge(pb, Placement(pb.num_ops(), 0), Objective::simulator).latency);  // better than the CPU
}

// Searches evaluate through the caller's reward when it passes one (so it sees every
// evaluation), and refuse one that judges under another objective than the options'.
TEST(Compare, SearchesEvaluateThroughTheCallersReward) {
  Model m = load_model("resnet50");
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward mine(pb);
  PlaceOptions o;
  o.eval_budget = 50;
  o.reward = &mine;
  make_placer("random-best")->place(pb, o);
  EXPECT_EQ(mine.evaluations(), 50);
  make_placer("local-search")->place(pb, o);
  EXPECT_EQ(mine.evaluations(), 100);  // the starts it compares first included
  o.objective = Objective::tarnawski;
  try {
    make_placer("random-best")->place(pb, o);
    FAIL() << "a simulator reward under the Tarnawski objective was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
  }
}

}  // namespace
}  // namespace devplace
