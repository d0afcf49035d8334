#include <gtest/gtest.h>

#include "cost/cluster.h"
#include "io/model.h"
#include "place/placer.h"
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
    seen_episodes = o.fine_tune_episodes;
    return std::make_unique<Fixed>(0);
  });
  PlaceOptions o;
  o.fine_tune_episodes = 7;
  EXPECT_EQ(r.make(pb, "fixed", o)->place(pb, o), Placement(pb.num_ops(), 0));
  EXPECT_EQ(seen_episodes, 7);
}

}  // namespace
}  // namespace devplace
