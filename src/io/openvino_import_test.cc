#include "io/openvino_import.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <pugixml.hpp>
#include <set>

#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace devplace {
namespace {

std::string data_dir() { return shared_dir() + "/data/openvino/"; }

#define REQUIRE_DATA()                                                   \
  if (!std::filesystem::is_directory(data_dir()))                        \
  GTEST_SKIP() << "shared OpenVINO IR files not found at " << data_dir() \
               << " (the workplace's shared data; set DEVPLACE_HOME so that ../shared has them)"

// Counts straight from the XML: <layer> elements and distinct (from-layer, to-layer) pairs.
struct XmlCounts {
  int layers = 0;
  std::size_t op_edges = 0;
};

XmlCounts count_xml(const std::string& path) {
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_file(path.c_str()));
  XmlCounts c;
  for (auto l : doc.child("net").child("layers").children("layer")) (void)l, ++c.layers;
  std::set<std::pair<std::string, std::string>> pairs;
  for (auto e : doc.child("net").child("edges").children("edge"))
    pairs.emplace(e.attribute("from-layer").as_string(), e.attribute("to-layer").as_string());
  c.op_edges = pairs.size();
  return c;
}

Graph import_checked(const std::string& file, const ImportOptions& opts = {}, OpenVinoImportStats* st = nullptr) {
  const std::string path = data_dir() + file;
  Graph g;
  EXPECT_NO_THROW(g = import_openvino(path, opts, st)) << path;
  XmlCounts c = count_xml(path);
  EXPECT_TRUE(g.finalized());
  EXPECT_EQ(g.num_ops(), c.layers) << file;
  EXPECT_EQ(g.num_edges(), c.op_edges) << file;
  return g;
}

const Tensor& out0(const Graph& g, const std::string& op) {
  int i = g.find_op(op);
  EXPECT_GE(i, 0) << op;
  return g.tensor(g.op(i).outputs.at(0));
}

TEST(OpenVinoImport, ResNet50) {
  REQUIRE_DATA();
  Graph g = import_checked("resnet50.xml");
  int convs = 0;
  for (const auto& op : g.ops()) convs += op.type == "Convolution";
  EXPECT_EQ(convs, 53);
  EXPECT_EQ(out0(g, "/conv1/Conv/WithoutBiases").shape, (Shape{1, 64, 112, 112}));
  EXPECT_TRUE(g.tensor(g.find_tensor("input:0")).is_graph_input);
}

TEST(OpenVinoImport, InceptionV3) {
  REQUIRE_DATA();
  Graph g = import_checked("inception_v3.xml");
  EXPECT_EQ(out0(g, "InceptionV3/InceptionV3/Conv2d_1a_3x3/convolution").shape, (Shape{1, 32, 149, 149}));
}

TEST(OpenVinoImport, MobileNetV2) {
  REQUIRE_DATA();
  Graph g = import_checked("mobilenet_v2.xml");
  int gconv = 0;
  for (const auto& op : g.ops())
    if (op.type == "GroupConvolution") ++gconv;
  EXPECT_EQ(gconv, 17);
  EXPECT_EQ(out0(g, "MobilenetV2/Conv/Conv2D").shape, (Shape{1, 32, 112, 112}));
}

TEST(OpenVinoImport, SsdInceptionV2) {
  REQUIRE_DATA();
  import_checked("ssd_inception_v2_coco.xml");
}

TEST(OpenVinoImport, YoloV8n) {
  REQUIRE_DATA();
  import_checked("yolov8n.xml");
}

TEST(OpenVinoImport, RobertaBase) {
  REQUIRE_DATA();
  import_checked("roberta_base_cola.xml");
}

TEST(OpenVinoImport, MpnetBase) {
  REQUIRE_DATA();
  import_checked("all_mpnet_base_v2.xml");
}

TEST(OpenVinoImport, FlanT5Decoder) {
  REQUIRE_DATA();
  import_checked("flan_t5_large_decoder.xml");
}

TEST(OpenVinoImport, TinyLlama) {
  REQUIRE_DATA();
  auto t0 = std::chrono::steady_clock::now();
  Graph g = import_checked("tinyllama_decoder.xml");
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("tinyllama_decoder.xml: %d ops, %zu edges, imported in %.0f ms\n", g.num_ops(), g.num_edges(), ms);
}

TEST(OpenVinoImport, DistilBertBindingResolvesShapes) {
  REQUIRE_DATA();
  OpenVinoImportStats free_st, bound_st;
  Graph unbound = import_checked("distilbert_base_sst2.xml", {}, &free_st);
  ImportOptions opts;
  opts.input_shapes = {{"input_ids", {1, 128}}, {"attention_mask", {1, 128}}};
  Graph g = import_checked("distilbert_base_sst2.xml", opts, &bound_st);
  std::printf(
      "distilbert: %d dynamic dims in the IR; unknown without bindings %d; with bindings: %d bound, "
      "%d propagated, %d left to the fallback, %d unknown\n",
      bound_st.dynamic_dims, free_st.unknown, bound_st.bound, bound_st.propagated, bound_st.fallback, bound_st.unknown);
  EXPECT_EQ(free_st.unknown, free_st.dynamic_dims - free_st.propagated);
  EXPECT_GT(free_st.unknown, 0);
  // Propagation resolves most dims; what is left to the heuristic is a small remainder.
  EXPECT_LT(bound_st.fallback * 5, free_st.unknown);
  EXPECT_EQ(bound_st.unknown, 0);
  // The first Q projection of the first block: [batch, seq, hidden].
  int matmuls = 0, resolved = 0;
  for (const auto& op : g.ops()) {
    if (op.type != "MatMul") continue;
    ++matmuls;
    if (g.tensor(op.outputs[0]).shape == Shape{1, 128, 768}) ++resolved;
  }
  EXPECT_GT(matmuls, 0);
  EXPECT_GE(resolved, 24);  // 6 blocks x (Q, K, V, attention output projection)
  const Tensor& q = out0(g, "__module.distilbert.transformer.layer.0.attention.q_lin/aten::linear/MatMul_6");
  EXPECT_EQ(q.shape, (Shape{1, 128, 768}));
  // Unbound, the same tensor keeps its dynamic dims.
  const Tensor& q0 = out0(unbound, "__module.distilbert.transformer.layer.0.attention.q_lin/aten::linear/MatMul_6");
  EXPECT_FALSE(q0.shape_known());
}

// Every language model with its inputs bound: propagation resolves most dynamic dims, the
// fallback guesses few, nothing stays unknown.
TEST(OpenVinoImport, LanguageModelsWithBindings) {
  REQUIRE_DATA();
  const Shape bs = {1, 128};
  const std::vector<std::pair<std::string, std::map<std::string, Shape>>> models = {
      {"distilbert_base_sst2.xml", {{"input_ids", bs}, {"attention_mask", bs}}},
      {"roberta_base_cola.xml", {{"input_ids", bs}, {"attention_mask", bs}}},
      {"all_mpnet_base_v2.xml", {{"input_ids", bs}, {"attention_mask", bs}}},
      {"flan_t5_large_decoder.xml",
       {{"attention_mask", bs}, {"decoder_input_ids", bs}, {"Parameter_93876", {1, 128, 1024}}}},
      {"tinyllama_decoder.xml", {{"input_ids", bs}, {"attention_mask", bs}, {"position_ids", bs}, {"beam_idx", {1}}}},
  };
  for (const auto& [file, bindings] : models) {
    OpenVinoImportStats free_st, st;
    import_checked(file, {}, &free_st);
    ImportOptions opts;
    opts.input_shapes = bindings;
    auto t0 = std::chrono::steady_clock::now();
    Graph g = import_checked(file, opts, &st);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "%-28s ops %5d edges %5zu | dynamic %5d, unknown unbound %5d | bound: %2d bound, %5d propagated, "
        "%4d guessed, %d unknown | %.0f ms\n",
        file.c_str(), g.num_ops(), g.num_edges(), st.dynamic_dims, free_st.unknown, st.bound, st.propagated,
        st.fallback, st.unknown, ms);
    std::string outs;
    for (const auto& t : g.tensors())
      if (t.is_graph_output && outs.size() < 200)
        outs += " " + t.name.substr(t.name.rfind('/') + 1) + shape_to_string(t.shape);
    std::printf("    outputs:%s\n", outs.c_str());
    EXPECT_EQ(st.unknown, 0) << file;
    EXPECT_LT(st.fallback * 5, free_st.unknown) << file;
  }
}

TEST(OpenVinoImport, BindingByPortNameAndErrors) {
  REQUIRE_DATA();
  const std::string path = data_dir() + "distilbert_base_sst2.xml";
  ImportOptions bad;
  bad.input_shapes = {{"no_such_input", {1, 8}}};
  try {
    import_openvino(path, bad);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(e.reason().find("input_ids"), std::string::npos) << e.what();  // lists the inputs
  }
  ImportOptions rank;
  rank.input_shapes = {{"input_ids", {1, 8, 3}}};
  EXPECT_THROW(import_openvino(path, rank), Error);
}

// ---- malformed files

class OpenVinoMalformed : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    auto dir = std::filesystem::temp_directory_path() / ("devplace_ov_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::string p = (dir / name).string();
    write_file_atomic(p, text);
    return p;
  }
  // Returns the Error thrown by importing `text`, or fails.
  Error import_error(const std::string& name, const std::string& text) {
    std::string p = write(name, text);
    try {
      import_openvino(p);
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), p);
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
      return e;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a devplace::Error: " << e.what();
      return Error(p, "", "wrong exception");
    }
    ADD_FAILURE() << "no error for " << name;
    return Error(p, "", "no error");
  }
};

const char* kParam =
    R"(<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,4" element_type="f32"/>
       <output><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port></output></layer>)";
const char* kRelu =
    R"(<layer id="1" name="relu" type="ReLU" version="opset1">
       <input><port id="0"><dim>1</dim><dim>4</dim></port></input>
       <output><port id="1" precision="FP32"><dim>1</dim><dim>4</dim></port></output></layer>)";
const char* kResult =
    R"(<layer id="2" name="out" type="Result" version="opset1">
       <input><port id="0"><dim>1</dim><dim>4</dim></port></input></layer>)";

std::string net(const std::string& layers, const std::string& edges) {
  return "<?xml version=\"1.0\"?>\n<net name=\"t\" version=\"11\"><layers>" + layers + "</layers>" + edges + "</net>";
}

TEST_F(OpenVinoMalformed, SmallValidNetImports) {
  std::string p = write("ok.xml", net(std::string(kParam) + kRelu + kResult,
                                      R"(<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
                                             <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges>)"));
  Graph g = import_openvino(p);
  EXPECT_EQ(g.num_ops(), 3);
  EXPECT_EQ(g.num_edges(), 2u);
  EXPECT_TRUE(g.tensor(g.find_tensor("relu:1")).is_graph_output);
  EXPECT_EQ(g.tensor(g.find_tensor("relu:1")).shape, (Shape{1, 4}));
}

TEST_F(OpenVinoMalformed, UnparseableXml) {
  Error e = import_error("broken.xml", "<net name=\"t\"><layers><layer id=\"0\"</layers>");
  EXPECT_NE(e.reason().find("XML"), std::string::npos) << e.what();
}

TEST_F(OpenVinoMalformed, NoNetOrNoLayers) {
  Error e1 = import_error("nonet.xml", "<?xml version=\"1.0\"?><model/>");
  EXPECT_NE(e1.reason().find("<net>"), std::string::npos) << e1.what();
  Error e2 = import_error("nolayers.xml", "<?xml version=\"1.0\"?><net name=\"t\"/>");
  EXPECT_NE(e2.reason().find("<layers>"), std::string::npos) << e2.what();
}

TEST_F(OpenVinoMalformed, LayersWithoutEdges) {
  Error e = import_error("noedges.xml", net(std::string(kParam) + kRelu + kResult, ""));
  EXPECT_EQ(e.node(), "relu");
  EXPECT_NE(e.reason().find("input port 0 has no incoming edge"), std::string::npos) << e.what();
  EXPECT_NE(e.reason().find("no <edges>"), std::string::npos) << e.what();
}

TEST_F(OpenVinoMalformed, EdgeToMissingLayer) {
  Error e = import_error("missing.xml", net(std::string(kParam) + kRelu + kResult,
                                            R"(<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
                                                   <edge from-layer="1" from-port="1" to-layer="7" to-port="0"/></edges>)"));
  EXPECT_EQ(e.node(), "relu");  // the layer the edge leaves from
  EXPECT_NE(e.reason().find("no layer with id 7"), std::string::npos) << e.what();
}

TEST_F(OpenVinoMalformed, EdgeToMissingPort) {
  Error e = import_error("badport.xml", net(std::string(kParam) + kRelu + kResult,
                                            R"(<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="3"/>
                                                   <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges>)"));
  EXPECT_EQ(e.node(), "relu");
  EXPECT_NE(e.reason().find("not an input port"), std::string::npos) << e.what();
}

TEST_F(OpenVinoMalformed, DuplicateNamesMadeUnique) {
  std::string relu2 = kRelu;
  relu2.replace(relu2.find("id=\"1\""), 6, "id=\"3\"");
  std::string p = write("dup.xml", net(std::string(kParam) + kRelu + relu2 + kResult,
                                       R"(<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
                                              <edge from-layer="1" from-port="1" to-layer="3" to-port="0"/>
                                              <edge from-layer="3" from-port="1" to-layer="2" to-port="0"/></edges>)"));
  Graph g = import_openvino(p);
  EXPECT_EQ(g.num_ops(), 4);
  EXPECT_GE(g.find_op("relu"), 0);
  EXPECT_GE(g.find_op("relu#3"), 0);
}

TEST(OpenVinoAttrs, DataAttributesAreTyped) {
  const std::string xml = net(std::string(kParam) +
                                  R"(<layer id="1" name="pool" type="MaxPool" version="opset1">
             <data kernel="2,2" strides="2,2" pads_begin="0,0" pads_end="0,0" rounding_type="floor" auto_pad="explicit" eps="1e-05"/>
             <input><port id="0"><dim>1</dim><dim>4</dim></port></input>
             <output><port id="1" precision="FP32"><dim>1</dim><dim>4</dim></port></output></layer>)" +
                                  kResult,
                              R"(<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
             <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges>)");
  Graph g = import_openvino_text(xml, "attrs.xml");
  const Op& op = g.op(g.find_op("pool"));
  EXPECT_EQ(op.attr_ints("kernel"), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(op.attr_string("rounding_type"), "floor");
  EXPECT_DOUBLE_EQ(std::get<double>(op.attrs.at("eps")), 1e-5);
  EXPECT_EQ(g.source(), "attrs.xml");
}

}  // namespace
}  // namespace devplace
