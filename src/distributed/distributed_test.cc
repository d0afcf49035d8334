// Process groups over c10d/Gloo with real processes: `devplace worker`s and `devplace links`
// on 127.0.0.1 with a free port, each command under a time limit (label: distributed).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "distributed/process_group.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {
namespace {

std::string bin() {
  const char* b = std::getenv("DEVPLACE_BIN");
  return b ? b : "build/devplace";
}

// A port nobody listens on now (the kernel's choice for port 0).
int free_port() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  close(s);
  return ntohs(a.sin_port);
}

struct Result {
  int status;
  std::string output;
  double seconds;
};

Result run(const std::string& cmd) {
  const auto t0 = std::chrono::steady_clock::now();
  FILE* f = popen(("timeout 90 " + cmd + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  while (f && fgets(buf, sizeof buf, f)) out += buf;
  const int rc = f ? pclose(f) : -1;
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

// Starts a worker in the background (it ends by itself: stopped by rank 0, or its timeout).
void start_worker(const std::string& args) {
  ASSERT_EQ(std::system(("timeout 90 " + bin() + " -q worker " + args + " > /dev/null 2>&1 &").c_str()), 0);
}

// Group flags for a new group of `world_size` processes on a free port.
std::string group_of(int world_size) {
  return " --world-size " + std::to_string(world_size) + " --master-port " + std::to_string(free_port()) +
         " --timeout 10";
}

TEST(Distributed, LinksToTwoWorkerProcesses) {
  const int port = free_port();
  const std::string group = " --world-size 3 --master-port " + std::to_string(port) + " --timeout 30";
  start_worker("--rank 1" + group);
  start_worker("--rank 2" + group);
  const std::string out = ::testing::TempDir() + "/links.json";
  const Result r = run(bin() + " -q links" + group + " --sizes 4,65536,4194304 --repeats 3 -o " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("| 0 -> 2 |"), std::string::npos) << r.output;
  const auto j = nlohmann::json::parse(read_file(out));
  ASSERT_EQ(j["links"].size(), 2u);
  for (const auto& l : j["links"]) {
    EXPECT_GT(l["latency_us"].get<double>(), 0);
    EXPECT_LT(l["latency_us"].get<double>(), 100000);
    EXPECT_GT(l["bandwidth_gbs"].get<double>(), 0.05);  // loopback: GB/s, not KB/s
    const auto& s = l["samples"];
    ASSERT_EQ(s.size(), 3u);
    EXPECT_LT(s[0][1].get<double>(), s[2][1].get<double>());  // 4 B is quicker than 4 MiB
  }
}

// torchrun's variables, no flags.
TEST(Distributed, RendezvousFromTheEnvironment) {
  const std::string env = "MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(free_port()) + " WORLD_SIZE=2 ";
  ASSERT_EQ(
      std::system(("RANK=1 " + env + "timeout 90 " + bin() + " -q worker --timeout 30 > /dev/null 2>&1 &").c_str()), 0);
  const Result r = run("env " + env + bin() + " -q links --sizes 4,1024 --repeats 2 --timeout 30");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("| 0 -> 1 |"), std::string::npos) << r.output;
}

// A worker that vanishes mid-exchange: rank 0 names it in one line, within its timeout.
TEST(Distributed, AWorkerThatDiesIsNamedWithinTheTimeout) {
  const std::string group = " --world-size 2 --master-port " + std::to_string(free_port());
  start_worker("--rank 1 --die-after 2 --timeout 30" + group);
  const Result r = run(bin() + " -q links --timeout 5 --sizes 4,1024 --repeats 4" + group);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output.rfind("devplace: error: ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("rank 1"), std::string::npos) << r.output;
  EXPECT_LT(r.seconds, 20) << r.output;
}

// Nobody comes: the group does not form, and rank 0 says where it waited, within its timeout.
TEST(Distributed, AMissingWorkerIsAnErrorWithinTheTimeout) {
  const int port = free_port();
  const Result r = run(bin() + " -q links --world-size 2 --timeout 3 --master-port " + std::to_string(port));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("could not join the process group at 127.0.0.1:" + std::to_string(port)), std::string::npos)
      << r.output;
  EXPECT_LT(r.seconds, 15) << r.output;
}

// A placed run across two processes (one CPU device each): the tensors that cross travel by
// c10d send/recv, and the outputs equal a one-process run's, on every bundled model.
TEST(Distributed, PlacedRunAcrossTwoProcessesMatchesOneProcess) {
  for (const char* model : {"resnet50", "inception_v3", "bert_base"}) {
    const std::string placement = ::testing::TempDir() + "/heft_" + model + ".json";
    const Result placed =
        run(bin() + " -q place " + model + " --cluster clusters/local2.toml --algo heft -o " + placement);
    ASSERT_EQ(placed.status, 0) << placed.output;
    const std::string group = " --world-size 2 --master-port " + std::to_string(free_port()) + " --timeout 30";
    start_worker("--rank 1" + group);
    const Result r = run(bin() + " -q run " + model + " --cluster clusters/local2.toml -p " + placement + group +
                         " --device-ranks 0,1 --runs 1 --warmup 0");
    ASSERT_EQ(r.status, 0) << model << ": " << r.output;
    EXPECT_NE(r.output.find("across 2 processes (cpu0=rank 0, cpu1=rank 1)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("outputs identical to one process: yes"), std::string::npos) << r.output;
  }
}

// A cluster file's `rank` key says which process hosts a device (no --device-ranks needed).
TEST(Distributed, ClusterFileNamesTheProcessOfEachDevice) {
  std::string toml = read_file("clusters/local2.toml");
  const std::string key = "worker = \"cpu:1\"";
  ASSERT_NE(toml.find(key), std::string::npos);
  toml.replace(toml.find(key), key.size(), key + "\nrank = 1");
  const std::string cluster = ::testing::TempDir() + "/local2_ranks.toml";
  write_file_atomic(cluster, toml);
  const std::string placement = ::testing::TempDir() + "/heft_ranks.json";
  const Result placed = run(bin() + " -q place resnet50 --cluster " + cluster + " --algo heft -o " + placement);
  ASSERT_EQ(placed.status, 0) << placed.output;
  const std::string group = " --world-size 2 --master-port " + std::to_string(free_port()) + " --timeout 30";
  start_worker("--rank 1" + group);
  const Result r =
      run(bin() + " -q run resnet50 --cluster " + cluster + " -p " + placement + group + " --runs 1 --warmup 0");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("(cpu0=rank 0, cpu1=rank 1)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("outputs identical to one process: yes"), std::string::npos) << r.output;
}

// Several devices per process: four CPU devices in three processes (two in rank 1), every op
// on the next device in turn, so nearly every tensor crosses a device and most cross processes.
TEST(Distributed, SeveralDevicesPerProcessMatchOneProcess) {
  std::string toml = "name = \"four\"\ndefault_link = { bandwidth_gbs = 1, latency_us = 50 }\n";
  const int rank_of_device[] = {0, 1, 1, 2};
  for (int d = 0; d < 4; ++d)
    toml += "[[devices]]\nname = \"cpu" + std::to_string(d) +
            "\"\nkind = \"cpu\"\nworker = \"cpu:" + std::to_string(d % 2) +
            "\"\nrank = " + std::to_string(rank_of_device[d]) + "\npeak_tflops = 0.078\nmem_bandwidth_gbs = 10\n";
  const std::string cluster = ::testing::TempDir() + "/four_in_three.toml";
  write_file_atomic(cluster, toml);
  for (const char* model : {"resnet50", "inception_v3"}) {
    const std::string placement = ::testing::TempDir() + "/round_robin_" + model + ".json";
    const Result placed =
        run(bin() + " -q place " + model + " --cluster " + cluster + " --algo round-robin -o " + placement);
    ASSERT_EQ(placed.status, 0) << placed.output;
    const std::string group = group_of(3);
    start_worker("--rank 1" + group);
    start_worker("--rank 2" + group);
    const Result r =
        run(bin() + " -q run " + model + " --cluster " + cluster + " -p " + placement + group + " --runs 2 --warmup 0");
    ASSERT_EQ(r.status, 0) << model << ": " << r.output;
    EXPECT_NE(r.output.find("(cpu0=rank 0, cpu1=rank 1, cpu2=rank 1, cpu3=rank 2)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("outputs identical to one process: yes"), std::string::npos) << r.output;
  }
}

// profile --world-size: the link between the processes is measured and written into the cost
// table (both directions between cpu0 in rank 0 and cpu1 in rank 1), and a placement run across
// the processes is compared with the simulator calibrated by that table.
TEST(Distributed, ProfileWritesTheMeasuredLinksIntoTheCostTable) {
  const std::string group = group_of(2);
  start_worker("--rank 1" + group);
  const std::string costs = ::testing::TempDir() + "/costs_across.json";
  const Result r = run(bin() +
                       " -q profile resnet50 --cluster clusters/local2.toml --device-ranks 0,1 --runs 1 "
                       "--validate 1 --fit 2 -o " +
                       costs + group);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("| 0 -> 1 |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(fitted to the 2 placements of seed 2)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("calibrated simulator vs measured across processes: median absolute error"),
            std::string::npos)
      << r.output;
  const auto j = nlohmann::json::parse(read_file(costs));
  ASSERT_EQ(j["links"].size(), 2u) << j["links"].dump();
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& l : j["links"]) {
    pairs.insert({l["from"].get<std::string>(), l["to"].get<std::string>()});
    EXPECT_GT(l["latency_us"].get<double>(), 0);
    EXPECT_GT(l["bandwidth_gbs"].get<double>(), 0.01);
  }
  EXPECT_EQ(pairs, (std::set<std::pair<std::string, std::string>>{{"cpu0", "cpu1"}, {"cpu1", "cpu0"}}));
  // The table is accepted wherever --costs is, links included: with a 1 s link, a placement
  // that alternates devices takes over 50 s. (With the measured links it takes about a second, more
  // on a loaded machine: the bound below only separates the two.)
  auto slow = j;
  for (auto& l : slow["links"]) l["latency_us"] = 1e6;
  const std::string slow_costs = ::testing::TempDir() + "/costs_slow_link.json";
  write_file_atomic(slow_costs, slow.dump());
  const std::string alternating = ::testing::TempDir() + "/alternating.json";
  ASSERT_EQ(
      run(bin() + " -q place resnet50 --cluster clusters/local2.toml --algo round-robin -o " + alternating).status, 0);
  auto makespan = [&](const std::string& table) {
    const Result sim =
        run(bin() + " -q simulate resnet50 --cluster clusters/local2.toml -p " + alternating + " --costs " + table);
    EXPECT_EQ(sim.status, 0) << sim.output;
    const auto at = sim.output.find("makespan ");
    return at == std::string::npos ? -1.0 : std::stod(sim.output.substr(at + 9));
  };
  EXPECT_LT(makespan(costs), 10000);
  EXPECT_GT(makespan(slow_costs), 50000);
}

TEST(Distributed, RendezvousChecksItsFields) {
  Rendezvous r;
  r.world_size = 2, r.rank = 2;
  EXPECT_THROW(r.check(), Error);
  r.rank = 1, r.master_port = 0;
  EXPECT_THROW(r.check(), Error);
  r.master_port = 29500;
  EXPECT_NO_THROW(r.check());
  const Result bad = run(bin() + " -q worker --rank 0 --world-size 2");
  EXPECT_EQ(bad.status, 1) << bad.output;
  EXPECT_NE(bad.output.find("rank 0 is the process that measures"), std::string::npos) << bad.output;
  // Bad options are refused before waiting for any worker.
  const Result sizes =
      run(bin() + " -q links --world-size 2 --timeout 20 --sizes 4,-5 --master-port " + std::to_string(free_port()));
  EXPECT_EQ(sizes.status, 1) << sizes.output;
  EXPECT_NE(sizes.output.find("message sizes must be positive, got -5"), std::string::npos) << sizes.output;
  EXPECT_LT(sizes.seconds, 10) << sizes.output;
}

// HSDAG trained with a measured reward on replicas (`train --replicas N`). With --fake-measure-ms
// a replica answers with the simulator's latency, so the rewards do not depend on which replica
// measured a placement and runs can be compared exactly.
const char* kReplicaTraining =
    " -q train resnet50 --cluster clusters/local2.toml --reward measured --fake-measure-ms 10 --episodes 4 "
    "--samples 6 --seed 3";

// The result lines (greedy, best sampled, evaluations) of a training run's output.
std::string trained(const std::string& output) {
  const auto from = output.find("policy (greedy)"), to = output.find("measured reward on");
  return from == std::string::npos || to == std::string::npos ? "(no result)" : output.substr(from, to - from);
}

// Rank 0 of a training run on `replicas` replicas (the group's workers already started).
Result train_on(int replicas, const std::string& group, const std::string& extra = "") {
  std::string g = group;
  g.replace(g.find("--world-size"), std::string("--world-size ").size() + 1, "--replicas " + std::to_string(replicas));
  return run(bin() + kReplicaTraining + g + extra);
}

TEST(Distributed, TrainingOnTwoReplicasSurvivesLosingOneAndEqualsOneReplica) {
  const std::string one = group_of(2);
  start_worker("--rank 1" + one);
  const Result alone = train_on(1, one);
  ASSERT_EQ(alone.status, 0) << alone.output;
  // 4 x 6 + 2 + 1, less one: the last episode's batch ends with the best sampled placement,
  // already measured (HSDAG's imitate_best).
  EXPECT_NE(alone.output.find("26 placements answered"), std::string::npos) << alone.output;

  const std::string two = group_of(3);
  start_worker("--rank 1" + two);
  start_worker("--rank 2 --die-after 4" + two);  // vanishes with its fifth answer
  const Result shared = train_on(2, two);
  ASSERT_EQ(shared.status, 0) << shared.output;
  EXPECT_NE(shared.output.find("lost rank 2: receive failed"), std::string::npos) << shared.output;
  EXPECT_NE(shared.output.find("26 placements answered"), std::string::npos) << shared.output;
  EXPECT_NE(shared.output.find("1 replicas lost"), std::string::npos) << shared.output;
  EXPECT_EQ(trained(shared.output), trained(alone.output));
}

TEST(Distributed, TrainingStopsAtACheckpointWhenNoReplicaIsLeftAndResumesExactly) {
  const std::string first = group_of(2);
  start_worker("--rank 1" + first);
  const Result uninterrupted = train_on(1, first);
  ASSERT_EQ(uninterrupted.status, 0) << uninterrupted.output;

  const std::string dir = ::testing::TempDir() + "/replica_checkpoint";
  std::filesystem::remove_all(dir);
  const std::string second = group_of(2);
  start_worker("--rank 1 --die-after 16" + second);  // dies in the third episode
  const Result stopped = train_on(1, second, " --checkpoint " + dir);
  EXPECT_EQ(stopped.status, 1) << stopped.output;
  EXPECT_NE(stopped.output.find("no replica left to measure on"), std::string::npos) << stopped.output;
  EXPECT_NE(stopped.output.find("training stopped after 2 episodes, checkpoint in " + dir), std::string::npos)
      << stopped.output;
  EXPECT_LT(stopped.seconds, 20) << stopped.output;

  const std::string third = group_of(2);
  start_worker("--rank 1" + third);
  const Result resumed = train_on(1, third, " --checkpoint " + dir + " --resume");
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_EQ(trained(resumed.output), trained(uninterrupted.output));
}

}  // namespace
}  // namespace devplace
