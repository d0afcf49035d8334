#include "cost/cluster.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cost/cost_model.h"
#include "util/error.h"

namespace devplace {
namespace {

using nlohmann::json;

TEST(Cluster, PresetsLoadWithLinksBetweenEveryPair) {
  for (const auto& name : cluster_presets()) {
    Cluster c = load_cluster(name);
    EXPECT_EQ(c.name, name);
    ASSERT_GE(c.num_devices(), 2);
    EXPECT_EQ(c.devices[0].kind, "cpu");
    for (int s = 0; s < c.num_devices(); ++s)
      for (int d = 0; d < c.num_devices(); ++d)
        if (s != d) {
          EXPECT_TRUE(c.has_link(s, d));
        }
  }
  Cluster nv = load_cluster("nvlink4");
  EXPECT_EQ(nv.num_devices(), 5);
  EXPECT_DOUBLE_EQ(nv.link(1, 2).bandwidth, 25e9);  // NVLink
  EXPECT_DOUBLE_EQ(nv.link(0, 1).bandwidth, 12e9);  // PCIe default link
  EXPECT_EQ(nv.devices[1].memory_bytes, 512ll * 1024 * 1024);
}

TEST(Cluster, JsonRoundTrip) {
  Cluster c = load_cluster("paper");
  Cluster d = cluster_from_json(cluster_to_json(c), "roundtrip");
  ASSERT_EQ(d.num_devices(), c.num_devices());
  EXPECT_DOUBLE_EQ(d.devices[1].peak_flops, c.devices[1].peak_flops);
  EXPECT_DOUBLE_EQ(d.devices[1].launch_overhead, c.devices[1].launch_overhead);
  EXPECT_EQ(d.devices[1].efficiency, c.devices[1].efficiency);
  EXPECT_DOUBLE_EQ(d.link(0, 1).latency, c.link(0, 1).latency);
}

std::string error_of(const json& j) {
  try {
    cluster_from_json(j, "bad.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Cluster, BadFiguresAreNamedErrors) {
  json base = {{"devices", {{{"name", "cpu"}}, {{"name", "gpu"}, {"kind", "gpu"}}}},
               {"links", {{{"from", "cpu"}, {"to", "gpu"}, {"bidirectional", true}}}}};
  EXPECT_EQ(error_of(base), "");
  json neg = base;
  neg["links"][0]["bandwidth_gbs"] = -3;
  EXPECT_EQ(error_of(neg), "bad.json: node 'link cpu->gpu': bandwidth must be positive");
  json missing = base;
  missing["links"] = json::array();
  EXPECT_NE(error_of(missing).find("no link from 'cpu' to 'gpu'"), std::string::npos);
  json unknown = base;
  unknown["links"][0]["to"] = "tpu";
  EXPECT_NE(error_of(unknown).find("unknown device 'tpu'"), std::string::npos);
  json kind = base;
  kind["devices"][1]["kind"] = "fpga";
  EXPECT_NE(error_of(kind).find("node 'gpu': device kind must be cpu, gpu or accel"), std::string::npos);
  EXPECT_THROW(load_cluster("no-such-preset"), Error);
  // Found by fuzz_cluster: a memory size beyond int64 made the conversion undefined.
  json huge = base;
  huge["devices"][0]["memory_gib"] = 1e300;
  EXPECT_EQ(error_of(huge), "bad.json: node 'cpu': 'memory_gib' must be a size between 0 and 8 EiB");
}

TEST(CostModel, RooflineTakesTheLargerOfComputeAndMemoryPlusLaunch) {
  Device d;
  d.peak_flops = 1e12;
  d.mem_bandwidth = 1e11;
  d.launch_overhead = 5e-6;
  d.efficiency = {{"conv", 0.5}};
  Op conv;
  conv.type = "Conv";
  conv.flops = 1e9;           // 1e9 / (1e12 * 0.5) = 2 ms
  conv.bytes_accessed = 1e6;  // 10 us
  EXPECT_DOUBLE_EQ(roofline_time(conv, d), 5e-6 + 2e-3);
  Op relu;
  relu.type = "Relu";
  relu.flops = 1e5;           // 1e5 / (1e12 * 0.5 default) = 0.2 us
  relu.bytes_accessed = 1e6;  // 10 us: memory bound
  EXPECT_DOUBLE_EQ(roofline_time(relu, d), 5e-6 + 1e-5);
  Op reshape;
  reshape.type = "Reshape";
  reshape.bytes_accessed = 1e6;
  EXPECT_DOUBLE_EQ(roofline_time(reshape, d), 0.0);
  d.supported_ops = {"Relu"};
  EXPECT_TRUE(std::isinf(roofline_time(conv, d)));
}

}  // namespace
}  // namespace devplace
