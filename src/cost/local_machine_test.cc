// This machine as a cluster (cost/local_machine.h): the devices and figures a description gives,
// and a TOML file that loads back as the same cluster.
#include "cost/local_machine.h"

#include <gtest/gtest.h>

#include <fstream>

namespace devplace {
namespace {

TEST(LocalMachine, OneWorkerPerCoreAndPerGpuWithTheDescribedFigures) {
  MachineDescription m;
  m.cpu = {.model = "Test CPU", .cores = 3, .ghz = 2.5, .flops_per_cycle = 32};
  m.gpus = {{.name = "Test GPU", .memory_bytes = 80LL << 30, .peak_flops = 60e12, .mem_bandwidth = 3e12}};
  const Cluster c = machine_cluster(m);
  ASSERT_EQ(c.num_devices(), 4);
  EXPECT_EQ(c.devices[0].name, "cpu0");
  EXPECT_EQ(c.devices[2].name, "cpu2");
  EXPECT_DOUBLE_EQ(c.devices[1].peak_flops, 2.5e9 * 32);  // a single-thread worker: one core
  EXPECT_TRUE(c.devices[0].fusion.empty());               // the executor runs every op alone
  EXPECT_EQ(c.devices[3].name, "gpu0");
  EXPECT_EQ(c.devices[3].kind, "gpu");
  EXPECT_DOUBLE_EQ(c.devices[3].peak_flops, 60e12);
  EXPECT_EQ(c.devices[3].memory_bytes, 80LL << 30);
  EXPECT_DOUBLE_EQ(c.link(0, 1).bandwidth, 8e9);
  EXPECT_DOUBLE_EQ(c.link(0, 3).bandwidth, 25e9);
  EXPECT_DOUBLE_EQ(c.link(3, 2).latency, 10e-6);
  c.validate("local");
}

TEST(LocalMachine, TheTomlFileLoadsBackAsTheSameCluster) {
  MachineDescription m;
  m.cpu.cores = 2;
  m.gpus = {{.name = "Test \"quoted\" GPU", .memory_bytes = 16LL << 30}};  // figures unknown: defaults
  const Cluster c = machine_cluster(m);
  const std::string path = ::testing::TempDir() + "/local_machine.toml";
  std::ofstream(path) << cluster_toml(c, "first line\nsecond line");
  const Cluster back = load_cluster(path);
  ASSERT_EQ(back.num_devices(), c.num_devices());
  EXPECT_EQ(back.name, "local");
  for (int d = 0; d < c.num_devices(); ++d) {
    EXPECT_EQ(back.devices[d].name, c.devices[d].name);
    EXPECT_EQ(back.devices[d].kind, c.devices[d].kind);
    EXPECT_NEAR(back.devices[d].peak_flops, c.devices[d].peak_flops, 1e-6 * c.devices[d].peak_flops);
    EXPECT_NEAR(back.devices[d].mem_bandwidth, c.devices[d].mem_bandwidth, 1e-6 * c.devices[d].mem_bandwidth);
    EXPECT_EQ(back.devices[d].memory_bytes, c.devices[d].memory_bytes);
    EXPECT_NEAR(back.devices[d].launch_overhead, c.devices[d].launch_overhead, 1e-12);
    EXPECT_EQ(back.devices[d].efficiency, c.devices[d].efficiency);
    EXPECT_TRUE(back.devices[d].fusion.empty());
    for (int e = 0; e < c.num_devices(); ++e)
      if (d != e) EXPECT_NEAR(back.link(d, e).bandwidth, c.link(d, e).bandwidth, 1e-6 * c.link(d, e).bandwidth);
  }
}

TEST(LocalMachine, DescribesThisCpu) {
  const CpuDescription cpu = describe_cpu();
  EXPECT_GE(cpu.cores, 1);
  EXPECT_GT(cpu.ghz, 0);
  EXPECT_TRUE(cpu.flops_per_cycle == 8 || cpu.flops_per_cycle == 32 || cpu.flops_per_cycle == 64);
}

}  // namespace
}  // namespace devplace
