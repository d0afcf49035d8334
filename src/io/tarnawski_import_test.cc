#include "io/tarnawski_import.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"

namespace devplace {
namespace {

using nlohmann::json;

const char* const kFiles[] = {
    "LayerGraphs/bert24_inference.json",       "LayerGraphs/gnmt_inference.json",
    "LayerGraphs/inceptionv3_inference.json",  "LayerGraphs/resnet50_inference.json",
    "OperatorGraphs/bert_l-12_inference.json", "OperatorGraphs/bert_l-3_inference.json",
    "OperatorGraphs/bert_l-6_inference.json",  "OperatorGraphs/resnet50_inference.json",
};

std::string data_dir() { return shared_dir() + "/data/dnn-partitioning"; }

json read_json(const std::string& path) { return json::parse(read_file(path)); }

// Writes `j` to a fresh file under the test temp dir and returns its path.
std::string write_temp(const std::string& name, const json& j) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << j.dump();
  return path;
}

// A three-node chain in the file's schema, with mixed boolean spellings.
json tiny() {
  return json::parse(R"({
    "maxSizePerFPGA": 1000.0, "maxFPGAs": 2, "maxCPUs": 8,
    "nodes": [
      {"name": "a", "id": 7, "supportedOnFpga": 1, "cpuLatency": 10.0, "fpgaLatency": 1.0,
       "isBackwardNode": false, "colorClass": 3, "layerId": 1, "size": 100.0},
      {"name": "b", "id": 2, "supportedOnFpga": false, "cpuLatency": 4, "fpgaLatency": 0,
       "isBackwardNode": 0, "size": 0},
      {"name": "a", "id": 30, "supportedOnFpga": true, "cpuLatency": 2.5, "fpgaLatency": 0.5,
       "isBackwardNode": 1, "colorClass": 3, "size": 50.0}
    ],
    "edges": [
      {"sourceId": 7, "destId": 2, "cost": 0.25, "size": 64.0},
      {"sourceId": 7, "destId": 30, "cost": 0.25, "size": 64.0},
      {"sourceId": 2, "destId": 30, "cost": 0.5, "size": 128.0}
    ]})");
}

// Runs `f`, expects an Error whose file is `path` and whose message contains `needle`.
template <class F>
void expect_error(F f, const std::string& path, const std::string& node_part, const std::string& reason_part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one about " << reason_part;
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path) << e.what();
    EXPECT_NE(e.node().find(node_part), std::string::npos) << e.what();
    EXPECT_NE(e.reason().find(reason_part), std::string::npos) << e.what();
  }
}

TEST(Tarnawski, TinyGraphMapping) {
  const std::string path = write_temp("tiny_tarnawski.json", tiny());
  Model m = import_tarnawski(path);
  const Graph& g = m.graph;
  ASSERT_TRUE(g.finalized());
  EXPECT_EQ(g.name(), "tiny_tarnawski");
  EXPECT_EQ(g.source(), path);
  ASSERT_EQ(g.num_ops(), 3);
  EXPECT_EQ(g.num_edges(), 3u);
  // "a" is duplicated, so both a-nodes are named by id; "b" keeps its name.
  ASSERT_GE(g.find_op("n7"), 0);
  ASSERT_GE(g.find_op("n30"), 0);
  ASSERT_GE(g.find_op("b"), 0);
  const Op& a = g.op(g.find_op("n7"));
  const Op& b = g.op(g.find_op("b"));
  const Op& c = g.op(g.find_op("n30"));
  EXPECT_EQ(a.type, "Layer");
  EXPECT_EQ(a.attr_int("id", -1), 7);
  EXPECT_EQ(a.attr_int("colorClass", -1), 3);
  EXPECT_EQ(a.attr_int("layerId", -1), 1);
  EXPECT_EQ(a.attr_int("supportedOnFpga", -1), 1);
  EXPECT_EQ(b.attr_int("supportedOnFpga", -1), 0);
  EXPECT_EQ(b.attrs.count("colorClass"), 0u);
  EXPECT_EQ(b.attrs.count("layerId"), 0u);
  EXPECT_EQ(c.attr_int("isBackwardNode", -1), 1);
  EXPECT_EQ(a.weight_bytes, 100);
  EXPECT_EQ(a.flops, 0);
  // Tensors: one per node, sized by its out-edges.
  EXPECT_EQ(g.tensor(a.outputs.at(0)).bytes(), 64);
  EXPECT_EQ(g.tensor(b.outputs.at(0)).bytes(), 128);
  EXPECT_EQ(g.tensor(c.outputs.at(0)).bytes(), 0);
  EXPECT_TRUE(g.tensor(c.outputs.at(0)).is_graph_output);
  EXPECT_EQ(c.inputs.size(), 2u);
  EXPECT_EQ(g.preds(g.find_op("n30")), (std::vector<int>{g.find_op("n7"), g.find_op("b")}));

  ASSERT_TRUE(m.cluster && m.costs);
  const Cluster& cl = *m.cluster;
  EXPECT_EQ(cl.name, "tarnawski-tiny_tarnawski");
  ASSERT_EQ(cl.num_devices(), 3);
  EXPECT_EQ(cl.devices[0].name, "cpu");
  EXPECT_EQ(cl.devices[0].memory_bytes, 0);
  EXPECT_EQ(cl.devices[2].name, "fpga1");
  EXPECT_EQ(cl.devices[2].kind, "accel");
  EXPECT_EQ(cl.devices[2].memory_bytes, 1000);
  // Costs, in seconds.
  const CostTable& t = *m.costs;
  EXPECT_DOUBLE_EQ(t.op_time.at("n7").at("cpu"), 10e-3);
  EXPECT_DOUBLE_EQ(t.op_time.at("n7").at("fpga1"), 1e-3);
  EXPECT_EQ(t.op_time.at("b").count("fpga0"), 0u);  // unsupported there
  EXPECT_DOUBLE_EQ(t.op_time.at("b").at("cpu"), 4e-3);
  EXPECT_DOUBLE_EQ(t.transfer_time.at(g.tensor(a.outputs[0]).name), 0.25e-3);
  EXPECT_DOUBLE_EQ(t.transfer_time.at(g.tensor(c.outputs[0]).name), 0);
}

TEST(Tarnawski, ImportsEveryLatencyInput) {
  if (!file_exists(data_dir() + "/README.md")) GTEST_SKIP() << "no shared data at " << data_dir();
  for (const char* rel : kFiles) {
    const std::string path = data_dir() + "/latency-inputs/" + rel;
    SCOPED_TRACE(path);
    const json j = read_json(path);
    Model m = import_tarnawski(path);
    const Graph& g = m.graph;
    EXPECT_EQ(g.num_ops(), static_cast<int>(j["nodes"].size()));
    EXPECT_EQ(g.num_edges(), j["edges"].size());
    EXPECT_EQ(g.num_tensors(), static_cast<int>(j["nodes"].size()));

    // colorClass exactly where the file has one, with its value.
    std::size_t with_color = 0;
    double cpu_sum_file = 0;
    std::set<std::string> names;
    for (const auto& n : j["nodes"]) names.insert(n["name"].get<std::string>());
    ASSERT_EQ(names.size(), j["nodes"].size()) << "the published files have unique names";
    for (const auto& n : j["nodes"]) {
      cpu_sum_file += n["cpuLatency"].get<double>();
      int i = g.find_op(n["name"].get<std::string>());
      ASSERT_GE(i, 0) << n["name"];
      const Op& op = g.op(i);
      EXPECT_EQ(op.attr_int("id", -1), n["id"].get<std::int64_t>());
      if (n.contains("colorClass")) {
        ++with_color;
        EXPECT_EQ(op.attr_int("colorClass", -1), n["colorClass"].get<std::int64_t>());
      } else {
        EXPECT_EQ(op.attrs.count("colorClass"), 0u);
      }
      EXPECT_EQ(op.weight_bytes, static_cast<std::int64_t>(std::ceil(n["size"].get<double>())));
    }
    EXPECT_GT(with_color, 0u);

    // All-on-CPU: the sum of cpu times is the file's sum, in seconds.
    ASSERT_TRUE(m.costs.has_value());
    double cpu_sum = 0;
    for (const Op& op : g.ops()) cpu_sum += m.costs->op_time.at(op.name).at("cpu");
    EXPECT_NEAR(cpu_sum, cpu_sum_file * 1e-3, 1e-9 * cpu_sum_file);
    EXPECT_EQ(m.costs->transfer_time.size(), j["nodes"].size());

    // Cluster: the CPU plus maxFPGAs accelerators with the memory limit.
    ASSERT_TRUE(m.cluster.has_value());
    const auto fpgas = j["maxFPGAs"].get<int>();
    const auto limit = static_cast<std::int64_t>(j["maxSizePerFPGA"].get<double>());
    ASSERT_EQ(m.cluster->num_devices(), 1 + fpgas);
    EXPECT_EQ(m.cluster->devices[0].kind, "cpu");
    for (int d = 1; d <= fpgas; ++d) {
      EXPECT_EQ(m.cluster->devices[d].name, "fpga" + std::to_string(d - 1));
      EXPECT_EQ(m.cluster->devices[d].memory_bytes, limit);
      EXPECT_TRUE(m.cluster->has_link(0, d) && m.cluster->has_link(d, 0));
    }
    // The implied link bandwidth: 2 GiB/s in every published file.
    if (fpgas > 0) {
      EXPECT_NEAR(m.cluster->link(0, 1).bandwidth, 2147483648.0, 1.0);
    }
  }
}

TEST(Tarnawski, HumanExpertFilesAreSplitsNotGraphs) {
  // human-experts/ holds hand-made placements ({"cpus": [...], "fpgas": [...], "maxLoad"}), not
  // cost graphs: the importer must refuse them with a clear error rather than misread them.
  const std::string dir = data_dir() + "/human-experts";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no shared data at " << dir;
  int seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    ++seen;
    const std::string path = e.path().string();
    EXPECT_FALSE(looks_like_tarnawski(read_json(path))) << path;
    expect_error([&] { import_tarnawski(path); }, path, "", "missing key 'nodes'");
  }
  EXPECT_GT(seen, 0);
}

TEST(Tarnawski, EdgeToUnknownIdNamesFileAndEdge) {
  json j = tiny();
  j["edges"].push_back({{"sourceId", 2}, {"destId", 999}, {"cost", 0.5}, {"size", 128.0}});
  const std::string path = write_temp("unknown_id.json", j);
  expect_error([&] { import_tarnawski(path); }, path, "2 -> 999", "destId 999");
}

TEST(Tarnawski, DuplicateIdNamesFileAndNode) {
  json j = tiny();
  j["nodes"][1]["id"] = 30;
  const std::string path = write_temp("dup_id.json", j);
  expect_error([&] { import_tarnawski(path); }, path, "a", "duplicate node id 30");
}

TEST(Tarnawski, OtherBadInputs) {
  {
    json j = tiny();
    j["nodes"][1].erase("cpuLatency");
    const std::string path = write_temp("missing_key.json", j);
    expect_error([&] { import_tarnawski(path); }, path, "b", "missing key 'cpuLatency'");
  }
  {
    json j = tiny();
    j["nodes"][1]["fpgaLatency"] = -1.0;
    const std::string path = write_temp("negative.json", j);
    expect_error([&] { import_tarnawski(path); }, path, "b", "fpgaLatency");
  }
  {
    json j = tiny();
    j["nodes"][1]["supportedOnFpga"] = 2;
    const std::string path = write_temp("bad_bool.json", j);
    expect_error([&] { import_tarnawski(path); }, path, "b", "true/false or 0/1");
  }
  {
    json j = tiny();
    j.erase("maxFPGAs");
    const std::string path = write_temp("no_fpgas.json", j);
    expect_error([&] { import_tarnawski(path); }, path, "", "maxFPGAs");
  }
  {
    json j = tiny();
    j["edges"].push_back({{"sourceId", 30}, {"destId", 7}, {"cost", 0.0}, {"size", 0.0}});
    const std::string path = write_temp("cycle.json", j);
    expect_error([&] { import_tarnawski(path); }, path, "", "cycle");
  }
  {
    const std::string path = ::testing::TempDir() + "/not_json.json";
    std::ofstream(path) << "{ nodes: ";
    expect_error([&] { import_tarnawski(path); }, path, "", "invalid JSON");
  }
}

TEST(Tarnawski, UnequalOutEdgeCostsTakeTheMax) {
  json j = tiny();
  j["edges"][1]["cost"] = 0.75;
  Model m = tarnawski_from_json(j, "unequal.json");
  EXPECT_DOUBLE_EQ(m.costs->transfer_time.at("n7:out"), 0.75e-3);
}

}  // namespace
}  // namespace devplace
