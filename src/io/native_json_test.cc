#include "io/native_json.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/tarnawski_import.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {
namespace {

using nlohmann::json;

// Every field, compared exactly (doubles bit for bit through operator== on the variants).
void expect_same(const Graph& a, const Graph& b) {
  EXPECT_EQ(a.name(), b.name());
  EXPECT_TRUE(b.finalized());
  ASSERT_EQ(a.num_ops(), b.num_ops());
  ASSERT_EQ(a.num_tensors(), b.num_tensors());
  EXPECT_EQ(a.num_edges(), b.num_edges());
  for (int i = 0; i < a.num_ops(); ++i) {
    const Op &x = a.op(i), &y = b.op(i);
    SCOPED_TRACE(x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.attrs, y.attrs);
    EXPECT_EQ(x.inputs, y.inputs);
    EXPECT_EQ(x.outputs, y.outputs);
    EXPECT_EQ(x.flops, y.flops);
    EXPECT_EQ(x.macs, y.macs);
    EXPECT_EQ(x.weight_bytes, y.weight_bytes);
    EXPECT_EQ(x.bytes_accessed, y.bytes_accessed);
    EXPECT_EQ(a.preds(i), b.preds(i));
    EXPECT_EQ(a.succs(i), b.succs(i));
  }
  for (int t = 0; t < a.num_tensors(); ++t) {
    const Tensor &x = a.tensor(t), &y = b.tensor(t);
    SCOPED_TRACE(x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.shape, y.shape);
    EXPECT_EQ(x.dtype, y.dtype);
    EXPECT_EQ(x.producer, y.producer);
    EXPECT_EQ(x.consumers, y.consumers);
    EXPECT_EQ(x.is_graph_input, y.is_graph_input);
    EXPECT_EQ(x.is_graph_output, y.is_graph_output);
    EXPECT_EQ(x.is_constant, y.is_constant);
    EXPECT_EQ(x.fixed_bytes, y.fixed_bytes);
  }
}

// A small graph exercising every attr type, every dtype, unknown dims, constants, repeated
// inputs and ops added out of topological order.
Graph hand_built() {
  Graph g("hand", "hand.onnx");
  int x = g.tensor_id("x");
  g.tensor(x).is_graph_input = true;
  g.tensor(x).shape = {kUnknownDim, 3, 224, 224};
  int w = g.tensor_id("w");
  g.tensor(w).is_constant = true;
  g.tensor(w).shape = {64, 3, 7, 7};
  g.tensor(w).dtype = DType::f16;
  int y = g.tensor_id("y"), z = g.tensor_id("z");
  g.tensor(z).is_graph_output = true;
  g.tensor(z).fixed_bytes = 12345;
  g.tensor(z).dtype = DType::unknown;
  const DType all[] = {DType::f32, DType::f16, DType::bf16, DType::f64,     DType::i8,     DType::u8,
                       DType::i16, DType::i32, DType::i64,  DType::boolean, DType::unknown};
  std::vector<int> extra;
  for (DType d : all) {
    int t = g.tensor_id(std::string("t_") + dtype_name(d));
    g.tensor(t).dtype = d;
    g.tensor(t).shape = {};
    extra.push_back(t);
  }

  Op tail;  // added first, runs last
  tail.name = "tail";
  tail.type = "Add";
  tail.inputs = {y, y};
  tail.outputs = {z};
  tail.outputs.insert(tail.outputs.end(), extra.begin(), extra.end());
  tail.flops = 0.1;
  g.add_op(tail);

  Op conv;
  conv.name = "conv";
  conv.type = "Conv";
  conv.inputs = {x, w};
  conv.outputs = {y};
  conv.attrs["int"] = std::int64_t{-9007199254740993};  // not representable as a double
  conv.attrs["float"] = 0.1;
  conv.attrs["whole_float"] = 1.0;
  conv.attrs["tiny"] = 5e-324;
  conv.attrs["inf"] = std::numeric_limits<double>::infinity();
  conv.attrs["string"] = std::string("ünïcode \"quoted\"");
  conv.attrs["empty_string"] = std::string();
  conv.attrs["ints"] = std::vector<std::int64_t>{3, 3, -1};
  conv.attrs["no_ints"] = std::vector<std::int64_t>{};
  conv.attrs["floats"] = std::vector<double>{1.0, -2.5, 1e300, -std::numeric_limits<double>::infinity()};
  conv.attrs["no_floats"] = std::vector<double>{};
  conv.flops = 2.0 * 118013952;
  conv.macs = 118013952;
  conv.weight_bytes = 18816;
  conv.bytes_accessed = 1 << 30;
  g.add_op(conv);
  g.finalize();
  return g;
}

std::string temp(const std::string& name) { return ::testing::TempDir() + "/" + name; }

template <class F>
void expect_error(F f, const std::string& path, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one about " << part;
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(NativeJson, HandBuiltRoundTrip) {
  const Graph g = hand_built();
  ASSERT_EQ(g.op(0).name, "conv");
  const std::string path = temp("hand.devplace.json");
  write_graph_json(g, path);
  const Graph back = read_graph_json(path);
  expect_same(g, back);
  EXPECT_EQ(back.source(), path);
  // The variant types survive: 1.0 stays a double, empty lists keep their element type.
  const Op& conv = back.op(back.find_op("conv"));
  EXPECT_TRUE(std::holds_alternative<double>(conv.attrs.at("whole_float")));
  EXPECT_TRUE(std::holds_alternative<std::vector<double>>(conv.attrs.at("no_floats")));
  EXPECT_TRUE(std::holds_alternative<std::vector<std::int64_t>>(conv.attrs.at("no_ints")));
  // And writing again gives the same text, but for the provenance ("source").
  json again = graph_to_json(back), first = graph_to_json(g);
  EXPECT_EQ(again["source"], path);
  EXPECT_EQ(first["source"], "hand.onnx");
  again.erase("source");
  first.erase("source");
  EXPECT_EQ(again.dump(), first.dump());
  EXPECT_TRUE(is_graph_json(graph_to_json(g)));
}

TEST(NativeJson, NanAttrRoundTrips) {
  Graph g("nan");
  Op op;
  op.name = "a";
  op.type = "X";
  op.attrs["nan"] = std::numeric_limits<double>::quiet_NaN();
  op.outputs = {g.tensor_id("o")};
  g.add_op(op);
  g.finalize();
  const Graph back = graph_from_json(graph_to_json(g), "mem.json");
  EXPECT_TRUE(std::isnan(std::get<double>(back.op(0).attrs.at("nan"))));
}

TEST(NativeJson, TarnawskiGraphsRoundTrip) {
  const std::string dir = shared_dir() + "/data/dnn-partitioning/latency-inputs";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no shared data at " << dir;
  for (const char* rel : {"LayerGraphs/bert24_inference.json", "LayerGraphs/gnmt_inference.json",
                          "LayerGraphs/inceptionv3_inference.json", "LayerGraphs/resnet50_inference.json",
                          "OperatorGraphs/bert_l-12_inference.json", "OperatorGraphs/bert_l-3_inference.json",
                          "OperatorGraphs/bert_l-6_inference.json", "OperatorGraphs/resnet50_inference.json"}) {
    SCOPED_TRACE(rel);
    const Graph g = import_tarnawski(dir + "/" + rel).graph;
    const std::string path = temp("roundtrip.json");
    write_graph_json(g, path);
    expect_same(g, read_graph_json(path));
  }
}

TEST(NativeJson, MalformedInputsNameTheFile) {
  const json good = graph_to_json(hand_built());
  const std::string path = temp("bad.json");
  auto check = [&](json j, const std::string& part) {
    SCOPED_TRACE(part);
    std::ofstream(path) << j.dump();
    expect_error([&] { read_graph_json(path); }, path, part);
  };
  {
    json j = good;
    j["ops"][0]["inputs"][0] = "nowhere";
    check(j, "unknown tensor 'nowhere'");
  }
  {
    json j = good;
    j["format"] = "onnx-json";
    check(j, "not a devplace graph");
  }
  {
    json j = good;
    j.erase("format");
    check(j, "not a devplace graph");
  }
  {
    json j = good;
    j["version"] = 2;
    check(j, "unsupported version 2");
  }
  {
    json j = good;
    j["tensors"][0]["dtype"] = "float128";
    check(j, "unknown dtype 'float128'");
  }
  {
    json j = good;
    j["ops"][0]["attrs"]["int"] = 5;
    check(j, "attr 'int'");
  }
  {
    json j = good;
    j["ops"][0]["attrs"]["int"] = {{"complex", 1}};
    check(j, "unknown tag 'complex'");
  }
  {
    json j = good;
    j["ops"][1].erase("flops");
    check(j, "missing field 'flops'");
  }
  {
    json j = good;
    j["tensors"].push_back(j["tensors"][0]);
    check(j, "duplicate tensor name");
  }
  {
    json j = good;
    j["ops"][0]["outputs"] = j["ops"][1]["outputs"];  // two producers
    check(j, "also produced by");
  }
  {
    std::ofstream(path) << "[1, 2";
    expect_error([&] { read_graph_json(path); }, path, "invalid JSON");
  }
}

}  // namespace
}  // namespace devplace
