// Placements mapped back to PyTorch modules (io/torch_device_map.h).
#include "io/torch_device_map.h"

#include <gtest/gtest.h>

#include "io/model.h"

namespace devplace {
namespace {

TEST(TorchDeviceMap, ModulePathsFromTorchOnnxNodeNames) {
  EXPECT_EQ(torch_module_path("/layer1/layer1.0/conv1/Conv"), "layer1.0.conv1");
  EXPECT_EQ(torch_module_path("/layers.0/ffn_in/Add"), "layers.0.ffn_in");
  EXPECT_EQ(torch_module_path("/Mixed_5c/branch3x3dbl_3/conv/Conv"), "Mixed_5c.branch3x3dbl_3.conv");
  EXPECT_EQ(torch_module_path("/Flatten"), "");
  EXPECT_EQ(torch_module_path("Conv_12"), "");
}

TEST(TorchDeviceMap, CoarsestUnsplitModulesAndLooseOpsFollowingTheirInput) {
  Model m = load_model("resnet50");
  const Graph& g = m.graph;
  // Everything on the GPU but layer3 and one conv of layer1.0.
  Placement p(g.num_ops(), 1);
  for (int i = 0; i < g.num_ops(); ++i)
    if (torch_module_path(g.op(i).name).rfind("layer3", 0) == 0) p[i] = 0;
  p[g.find_op("/layer1/layer1.0/conv2/Conv")] = 0;
  TorchDeviceMap dm = torch_device_map(g, p);
  EXPECT_EQ(dm.modules.at("layer3"), 0);
  EXPECT_EQ(dm.modules.at("layer1.0.conv2"), 0);
  EXPECT_EQ(dm.modules.at("layer1.0.conv1"), 1);
  EXPECT_EQ(dm.modules.at("layer1.1"), 1);
  EXPECT_EQ(dm.modules.at("layer4"), 1);
  EXPECT_EQ(dm.modules.at("fc"), 1);
  EXPECT_FALSE(dm.modules.count("layer1"));  // split
  EXPECT_FALSE(dm.modules.count(""));
  // Ops the split modules run themselves: the root's Flatten, layer1.0's residual Add and ReLU.
  EXPECT_TRUE(dm.loose_ops.count("/Flatten"));
  EXPECT_TRUE(dm.loose_ops.count("/layer1/layer1.0/Add"));
  // Every kernel op keeps its device here: the loose ones run where their input is, which is
  // where the placement put them.
  EXPECT_EQ(dm.kernel_ops, g.num_ops());
  EXPECT_EQ(dm.preserved, dm.kernel_ops) << (dm.moved.empty() ? "" : dm.moved.front());
  // A loose op placed away from its input cannot keep its device at module level.
  p[g.find_op("/Flatten")] = 0;
  TorchDeviceMap moved = torch_device_map(g, p);
  EXPECT_EQ(moved.preserved, moved.kernel_ops - 1);
  EXPECT_EQ(moved.moved, std::vector<std::string>{"/Flatten"});
  EXPECT_EQ(moved.module_level[g.find_op("/Flatten")], 1);
}

}  // namespace
}  // namespace devplace
