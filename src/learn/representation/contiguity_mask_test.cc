// The feasibility mask: on the published cost graphs of Tarnawski et al., placements drawn
// uniformly among the devices the mask allows are always feasible under their latency model,
// and the mask still leaves real choices (several accelerators in use).
#include "learn/representation/contiguity_mask.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "io/tarnawski_import.h"
#include "place/tarnawski_objective.h"
#include "util/files.h"

namespace devplace {
namespace {

TEST(ContiguityMask, UniformMaskedPlacementsAreFeasibleOnThePublishedGraphs) {
  const std::string dir = shared_dir() + "/data/dnn-partitioning/latency-inputs";
  if (!file_exists(dir + "/LayerGraphs/gnmt_inference.json"))
    GTEST_SKIP() << "no shared data at " << dir << " (the published graphs are not in this checkout)";
  std::mt19937_64 rng(7);
  for (const char* rel : {"LayerGraphs/gnmt_inference.json", "LayerGraphs/inceptionv3_inference.json",
                          "OperatorGraphs/bert_l-3_inference.json", "OperatorGraphs/resnet50_inference.json"}) {
    Model m = import_tarnawski(dir + "/" + rel);
    Problem p(m.graph, *m.cluster, &*m.costs);
    CoarsenOptions co;
    co.merge_single_predecessor = false;  // HSDAG's default decision units
    const Coarsening c = coarsen(p.graph(), co);
    ContiguityMask mask(p, c);
    int most_accelerators = 0;
    for (int k = 0; k < 100; ++k) {
      mask.reset();
      std::vector<int> unit_device(c.num_groups());
      for (int u = 0; u < c.num_groups(); ++u) {
        const std::uint64_t ok = mask.allowed(u);
        std::vector<int> choices;
        for (int d = 0; d < p.num_devices(); ++d)
          if ((ok >> d) & 1) choices.push_back(d);
        ASSERT_FALSE(choices.empty());
        unit_device[u] = choices[std::uniform_int_distribution<std::size_t>(0, choices.size() - 1)(rng)];
        mask.choose(u, unit_device[u]);
      }
      const Placement pl = expand(c, unit_device);
      const Verdict r = tarnawski_latency(p, pl);
      ASSERT_TRUE(r.feasible) << rel << ", sample " << k << ": " << r.reason;
      EXPECT_EQ(tarnawski_violation(p, pl), 0.0) << rel;
      std::set<int> used(pl.begin(), pl.end());
      used.erase(p.host());
      most_accelerators = std::max(most_accelerators, static_cast<int>(used.size()));
    }
    EXPECT_GE(most_accelerators, 2) << rel;
  }
}

}  // namespace
}  // namespace devplace
