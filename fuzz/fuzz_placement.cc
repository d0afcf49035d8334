// Placement files and cost tables, read against the bundled ResNet-50 on the paper cluster.
#include "cost/cluster.h"
#include "cost/cost_model.h"
#include "cost/cost_table.h"
#include "fuzz_input.h"
#include "io/model.h"
#include "io/placement_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const devplace::Model model = devplace::load_model("resnet50");
  static const devplace::Cluster cluster = devplace::load_cluster("paper");
  const std::string path = devplace::fuzz::temp_file(devplace::fuzz::as_text(data, size), ".json");
  devplace::fuzz::expect_only_errors([&] { devplace::read_placement(path, model.graph, cluster); });
  return devplace::fuzz::expect_only_errors([&] {
    devplace::CostTable t = devplace::load_cost_table(path);
    devplace::Problem problem(model.graph, cluster, &t);
  });
}
