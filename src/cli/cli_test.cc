// The command line's contract on bad input: exit status 1 and one line on stderr that names
// the file, the node where there is one, and the problem. Runs the real binary.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "util/blas_kernel.h"
#include "util/files.h"

namespace devplace {
namespace {

struct Result {
  int status;
  std::string output;
};

Result devplace(const std::string& args) {
  const char* bin = std::getenv("DEVPLACE_BIN");
  std::string cmd = std::string(bin ? bin : "build/devplace") + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (f && fgets(buf, sizeof buf, f)) out += buf;
  int rc = f ? pclose(f) : -1;
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

std::string temp_file(const std::string& name, const std::string& content) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

void expect_one_line_error(const Result& r, const std::string& must_contain) {
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output.rfind("devplace: error: ", 0), 0u) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_NE(r.output.find(must_contain), std::string::npos) << r.output;
}

TEST(Cli, TruncatedOnnx) {
  std::string model = read_file(home_dir() + "/models/resnet50.onnx");
  std::string path = temp_file("truncated.onnx", model.substr(0, 100));
  expect_one_line_error(devplace("info " + path), path + ": not a valid ONNX model");
}

TEST(Cli, OpenVinoXmlWithoutEdges) {
  std::string path = temp_file("noedges.xml", R"(<?xml version="1.0"?>
<net name="t" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,4" element_type="f32"/>
<output><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="1" name="relu" type="ReLU" version="opset1">
<input><port id="0"><dim>1</dim><dim>4</dim></port></input>
<output><port id="1" precision="FP32"><dim>1</dim><dim>4</dim></port></output></layer>
</layers></net>)");
  expect_one_line_error(devplace("info " + path), "node 'relu'");
}

TEST(Cli, CycleInNativeGraph) {
  const std::string tensor = R"("shape": [1], "dtype": "f32", "fixed_bytes": -1, "is_graph_input": false,
      "is_graph_output": false, "is_constant": false)";
  const std::string op = R"("type": "Relu", "attrs": {}, "flops": 1, "macs": 0, "weight_bytes": 0,
      "bytes_accessed": 8)";
  std::string path = temp_file("cycle.json", R"({"format": "devplace-graph", "version": 1, "name": "c",
    "tensors": [{"name": "a:0", )" + tensor + R"(}, {"name": "b:0", )" +
                                                 tensor + R"(}],
    "ops": [{"name": "a", "inputs": ["b:0"], "outputs": ["a:0"], )" +
                                                 op + R"(},
            {"name": "b", "inputs": ["a:0"], "outputs": ["b:0"], )" +
                                                 op + "}]}");
  expect_one_line_error(devplace("info " + path), "cycle");
}

TEST(Cli, UnknownDeviceInPlacement) {
  std::string path = temp_file("placement.json", R"({"placement": {"/fc/Gemm": "tpu"}})");
  Result r = devplace("simulate resnet50 --cluster paper --placement " + path);
  expect_one_line_error(r, "unknown device 'tpu'");
  EXPECT_NE(r.output.find(path), std::string::npos);
}

TEST(Cli, NegativeBandwidth) {
  std::string path = temp_file("neg.toml", R"(
[[devices]]
name = "cpu"
[[devices]]
name = "gpu"
kind = "gpu"
[[links]]
from = "cpu"
to = "gpu"
bandwidth_gbs = -1
bidirectional = true
)");
  expect_one_line_error(devplace("simulate resnet50 --device cpu --cluster " + path),
                        path + ": node 'link cpu->gpu': bandwidth must be positive");
}

TEST(Cli, UnknownModelAndBadBinding) {
  expect_one_line_error(devplace("info no_such_model"), "no such model file or bundled model");
  expect_one_line_error(devplace("info bert_base --input input_ids=1,x"), "is not a positive integer");
}

TEST(Cli, SimulateSingleDeviceAndTrace) {
  std::string trace = ::testing::TempDir() + "/trace.json";
  Result r = devplace("simulate resnet50 --cluster paper --device gpu --trace " + trace);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("makespan"), std::string::npos);
  std::string t = read_file(trace);
  EXPECT_NE(t.find("\"traceEvents\""), std::string::npos);
}

// `run` measures several placements in rounds, reports each against the simulator, and
// writes the measured timeline of a single placement.
TEST(Cli, RunComparesPlacementsAndTracesOne) {
  const std::string small = "run resnet50 --input input=1,3,32,32 --cluster clusters/local2.toml --runs 2 --warmup 0 ";
  Result r = devplace(small + "-d cpu0 -d cpu1 --json");
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["placements"].size(), 2u);
  EXPECT_EQ(j["placements"][0]["label"], "all on cpu0");
  EXPECT_EQ(j["placements"][1]["label"], "all on cpu1");
  for (const auto& row : j["placements"]) {
    EXPECT_EQ(row["samples_ms"].size(), 2u);
    EXPECT_GT(row["median_ms"].get<double>(), 0.0);
    EXPECT_EQ(row["copies"], 0);
  }
  Result rnd = devplace(small + "--random 2 --json");
  ASSERT_EQ(rnd.status, 0) << rnd.output;
  auto jr = nlohmann::json::parse(rnd.output);
  EXPECT_EQ(jr["placements"].size(), 3u);  // the reference, then the random ones
  EXPECT_TRUE(jr.contains("median_abs_error") && jr.contains("median_speedup_error"));

  expect_one_line_error(devplace(small + "-d cpu0 -d cpu1 --trace x.json"), "single placement");
  const std::string trace = ::testing::TempDir() + "/measured.json", gantt = ::testing::TempDir() + "/measured.svg";
  Result one = devplace(small + "-d cpu1 --trace " + trace + " --gantt " + gantt);
  ASSERT_EQ(one.status, 0) << one.output;
  EXPECT_NE(one.output.find("time in ops per worker"), std::string::npos) << one.output;
  EXPECT_NE(read_file(trace).find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(read_file(gantt).find("<svg"), std::string::npos);
}

// run names the BLAS kernel it uses. An OPENBLAS_CORETYPE the user set is kept; without one,
// devplace never runs OpenBLAS's generic pre-AVX kernel on a CPU with AVX2 (main restarts the
// process with a better one, util/blas_kernel.h).
TEST(Cli, RunNamesItsBlasKernelAndAvoidsAGenericOne) {
  const std::string args = "run resnet50 --cluster clusters/local2.toml -d cpu0 --runs 1 --warmup 0";
  const char* before = std::getenv("OPENBLAS_CORETYPE");
  const std::string saved = before ? before : "";
  setenv("OPENBLAS_CORETYPE", "Prescott", 1);
  const Result forced = devplace(args);
  unsetenv("OPENBLAS_CORETYPE");
  const Result chosen = devplace(args);
  if (before) setenv("OPENBLAS_CORETYPE", saved.c_str(), 1);
  ASSERT_EQ(forced.status, 0) << forced.output;
  EXPECT_NE(forced.output.find("BLAS: OpenBLAS kernel Prescott"), std::string::npos) << forced.output;
  EXPECT_NE(forced.output.find("CPU kernels: "), std::string::npos) << forced.output;
  ASSERT_EQ(chosen.status, 0) << chosen.output;
  const std::string tag = "BLAS: OpenBLAS kernel ";
  const auto at = chosen.output.find(tag);
  ASSERT_NE(at, std::string::npos) << chosen.output;
  const auto from = at + tag.size();
  const std::string core = chosen.output.substr(from, chosen.output.find(' ', from) - from);
  EXPECT_EQ(better_openblas_core(core, this_cpu(), nullptr), "") << "still on the generic kernel " << core;
}

// A NumPy .npy file of float32 values (format 1.0, C order).
std::string npy_file(const std::string& name, const std::vector<int>& shape, float value) {
  std::string dims;
  std::size_t n = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(shape[k]), n *= shape[k];
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() & 0xff) +
                    static_cast<char>(header.size() >> 8) + header;
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = value * static_cast<float>(i % 97) / 97.0f;
  out.append(reinterpret_cast<const char*>(values.data()), n * sizeof(float));
  return temp_file(name, out);
}

// run takes graph inputs from files and writes the outputs: the same input gives the same
// outputs on any placement, another input other outputs; bad files are one-line errors.
TEST(Cli, RunReadsInputsAndWritesOutputs) {
  const std::string x = npy_file("x.npy", {1, 3, 224, 224}, 1.0f);
  const std::string dir = ::testing::TempDir() + "/run_outputs";
  std::filesystem::remove_all(dir);
  const std::string base = "run resnet50 --cluster clusters/local2.toml --runs 1 --warmup 0 ";
  const std::string rr = ::testing::TempDir() + "/round_robin.json";
  ASSERT_EQ(devplace("-q place resnet50 --cluster clusters/local2.toml --algo round-robin -o " + rr).status, 0);
  const Result one = devplace(base + "-d cpu0 --input-file input=" + x + " --output-dir " + dir + "/one");
  ASSERT_EQ(one.status, 0) << one.output;
  EXPECT_NE(one.output.find("wrote 1 output of the last run"), std::string::npos) << one.output;
  ASSERT_EQ(devplace(base + "-p " + rr + " --input-file input=" + x + " --output-dir " + dir + "/two").status, 0);
  ASSERT_EQ(devplace(base + "-d cpu0 --input-file input=" + npy_file("y.npy", {1, 3, 224, 224}, -2.0f) +
                     " --output-dir " + dir + "/other")
                .status,
            0);
  const std::string a = read_file(dir + "/one/output.npy");
  EXPECT_GT(a.size(), 4000u);  // 1000 float32 logits and the header
  EXPECT_EQ(a, read_file(dir + "/two/output.npy"));
  EXPECT_NE(a, read_file(dir + "/other/output.npy"));
  expect_one_line_error(devplace(base + "-d cpu0 --input-file nope=" + x), "no such input (its inputs: input)");
  expect_one_line_error(devplace(base + "-d cpu0 --input-file input=" + npy_file("small.npy", {1, 3, 32, 32}, 1.0f)),
                        "has shape [1, 3, 32, 32] of Float; the model's input is [1, 3, 224, 224] of Float");
  expect_one_line_error(devplace(base + "-d cpu0 --input-file input=" + temp_file("bad.npy", "not numpy")),
                        "not a readable .npy file: no NumPy magic");
}

TEST(Cli, RunNeedsAnOnnxModel) {
  const std::string ir = shared_dir() + "/data/openvino/mobilenet_v2.xml";
  if (!file_exists(ir)) GTEST_SKIP() << "no ../shared/data/openvino here (a fresh clone has no shared data)";
  expect_one_line_error(devplace("run " + ir + " --cluster clusters/local2.toml"),
                        "the executor runs ONNX models only");
}

TEST(Cli, HsdagPolicyTrainsOnTwoModelsAndPlacesAThird) {
  const std::string policy = ::testing::TempDir() + "/cli_hsdag_policy.pt";
  Result t = devplace("train resnet50 --also inception_v3 --episodes 4 --samples 4 --save-policy " + policy);
  ASSERT_EQ(t.status, 0) << t.output;
  EXPECT_NE(t.output.find("inception_v3 on paper: HSDAG (default preset, one policy for 2 graphs)"), std::string::npos)
      << t.output;
  EXPECT_NE(t.output.find("policy (greedy)"), std::string::npos) << t.output;
  Result p = devplace("place bert_base --algo hsdag --policy " + policy);
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_NE(p.output.find("bert_base on paper with hsdag (zero-shot policy): latency"), std::string::npos) << p.output;
  expect_one_line_error(devplace("place bert_base --algo hsdag --policy /no/such/policy.pt"), "no such policy file");
  expect_one_line_error(devplace("train resnet50 --also inception_v3 --reward measured --cluster clusters/local2.toml"),
                        "--also trains on the simulator");
}

// `train --json` names every figure and what it cost, so scripts can read it.
TEST(Cli, TrainJsonNamesGreedySampledAndPolishedWithTheirEvaluations) {
  Result r = devplace("train resnet50 --episodes 3 --samples 4 --set refine=20 --json -q");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  // References, samples (the last batch: 3 and the best sampled, already evaluated), greedy.
  EXPECT_EQ(j["evaluations"], 2 + 3 * 4 - 1 + 1);
  EXPECT_GT(j["polish_evaluations"].get<int>(), 0);
  for (const char* k : {"greedy_ms", "best_sampled_ms", "polished_ms"}) EXPECT_GT(j[k].get<double>(), 0) << k;
  EXPECT_LE(j["polished_ms"].get<double>(), std::min(j["greedy_ms"].get<double>(), j["best_sampled_ms"].get<double>()));
  EXPECT_TRUE(j.contains("greedy_single_device"));
}

TEST(Cli, MeasurementCountsAreChecked) {
  for (const char* bad : {"run resnet50 --runs 0", "run resnet50 --warmup -1", "run resnet50 --random 0",
                          "profile resnet50 -o x.json --runs 0", "profile resnet50 -o x.json --validate -2",
                          "train resnet50 --reward measured --runs 0"}) {
    Result r = devplace(bad);
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_NE(r.output.find("not in range"), std::string::npos) << bad << ": " << r.output;
  }
}

TEST(Cli, ProfileWritesCostsAndValidatesThem) {
  const std::string costs = ::testing::TempDir() + "/costs.json";
  Result r = devplace(
      "profile resnet50 --input input=1,3,32,32 --cluster clusters/local2.toml --runs 2 --validate 2 -o " + costs);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("validation: 2 random placements"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("calibrated simulator vs measured: median absolute error"), std::string::npos) << r.output;
  // It fitted the execution model to each worker alone and 5 random placements, and wrote it.
  EXPECT_NE(r.output.find("fitted to 2 single-device and 5 random placements"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("execution model fitted to other placements"), std::string::npos) << r.output;
  EXPECT_NE(read_file(costs).find("\"execution\""), std::string::npos);
  Result s = devplace("simulate resnet50 --input input=1,3,32,32 --cluster clusters/local2.toml --costs " + costs);
  EXPECT_EQ(s.status, 0) << s.output;
}

// Without --cluster, run and profile use this machine ("local": a CPU worker per core, the CUDA
// GPUs LibTorch sees), which `cluster --local` writes out as a file that loads.
TEST(Cli, RunAndProfileDefaultToThisMachine) {
  const std::string file = ::testing::TempDir() + "/local.toml";
  Result c = devplace("cluster --local -o " + file);
  ASSERT_EQ(c.status, 0) << c.output;
  Result plain = devplace("cluster");  // --local is the default
  ASSERT_EQ(plain.status, 0) << plain.output;
  EXPECT_NE(plain.output.find("[[devices]]"), std::string::npos) << plain.output;
  Result info = devplace("simulate resnet50 --device cpu0 --cluster " + file);
  ASSERT_EQ(info.status, 0) << info.output;
  const std::string small = "resnet50 --input input=1,3,32,32 ";
  Result r = devplace("run " + small + "--runs 2 --warmup 0 --json");
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["cluster"], "local");
  ASSERT_EQ(j["placements"].size(), 1u);
  EXPECT_EQ(j["placements"][0]["label"], "all on cpu0");
  const std::string costs = ::testing::TempDir() + "/local-costs.json";
  Result p = devplace("profile " + small + "--runs 2 --validate 1 -o " + costs);
  ASSERT_EQ(p.status, 0) << p.output;
  const std::string table = read_file(costs);
  EXPECT_NE(table.find("\"cpu0\""), std::string::npos);
  EXPECT_NE(table.find("\"execution\""), std::string::npos);
  Result s = devplace("simulate " + small + "--cluster local --costs " + costs);
  EXPECT_EQ(s.status, 0) << s.output;
}

TEST(Cli, CalibrateFitsAMeasuredRunAndPredictsTheRowsHeldOut) {
  const std::string dir = "tests/data/execution/local2-inception_v3/";
  const std::string out = ::testing::TempDir() + "/calibrated.json";
  Result r = devplace("calibrate inception_v3 -c clusters/local2.toml --costs " + dir + "costs.json --measured " + dir +
                      "run.json --predict heft --predict local-search -o " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto held = r.output.find("held out, after");
  ASSERT_NE(held, std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" 2 placements: median |error|", held), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cpu0 -> cpu1:"), std::string::npos) << r.output;
  EXPECT_NE(read_file(out).find("\"execution\""), std::string::npos);
  Result d = devplace("simulate inception_v3 -c clusters/local2.toml --costs " + out + " -d cpu1");
  EXPECT_EQ(d.status, 0) << d.output;
  // A cost table given as the measured run: one line naming the file.
  expect_one_line_error(devplace("calibrate inception_v3 -c clusters/local2.toml --costs " + dir + "costs.json "
                                 "--measured " + dir + "costs.json -o " + out),
                        "costs.json: not a `devplace run --json` file");
  // A run file that says its executor copied some other way: named, not guessed.
  std::string run = read_file(dir + "run.json");
  run.replace(run.find("\"copies\": \"blocking\""), std::string("\"copies\": \"blocking\"").size(),
              "\"copies\": \"pageable\"");
  const std::string odd = temp_file("odd_run.json", run);
  expect_one_line_error(devplace("calibrate inception_v3 -c clusters/local2.toml --costs " + dir + "costs.json "
                                 "--measured " + odd + " -o " + out),
                        "odd_run.json: node 'copies': copies must be \"async\" or \"blocking\", not 'pageable'");
}

}  // namespace
}  // namespace devplace

namespace devplace {
namespace {

// Fusion is on by default on the presets and --no-fusion restores one kernel per op: ResNet-50
// on the paper GPU (22 us launch per kernel) gets faster with fusion, and `costs` counts kernels.
TEST(Cli, NoFusionChargesOneKernelPerOp) {
  auto makespan = [](const std::string& out) { return std::stod(out.substr(out.find("makespan ") + 9)); };
  Result fused = devplace("simulate resnet50 --cluster paper --device gpu");
  Result plain = devplace("simulate resnet50 --cluster paper --device gpu --no-fusion");
  ASSERT_EQ(fused.status, 0) << fused.output;
  ASSERT_EQ(plain.status, 0) << plain.output;
  EXPECT_NEAR(makespan(plain.output), 4.394, 0.0005) << plain.output;  // the unfused figure of README
  EXPECT_LT(makespan(fused.output), makespan(plain.output) - 1.0) << fused.output;
  // 53 Conv (each with its bias, ReLU and, ending a block, the residual Add and ReLU), MaxPool,
  // GlobalAveragePool and Gemm: 56 kernels; unfused, each of the 121 kernel ops is one.
  Result costs = devplace("costs resnet50 --cluster paper");
  Result costs_plain = devplace("costs resnet50 --cluster paper --no-fusion");
  const std::string gpu_line = costs.output.substr(costs.output.find("paper                  gpu"));
  EXPECT_NE(gpu_line.find("of 121 kernel ops, 56 kernels alone"), std::string::npos) << costs.output;
  EXPECT_NE(costs_plain.output.find("of 121 kernel ops, 121 kernels alone"), std::string::npos) << costs_plain.output;
}

// The exports of `place` and the affinity checker, end to end: a written map passes the checker;
// one missing an op fails with one line naming the map; a device map of an all-GPU ResNet-50 is
// one entry for the whole model.
TEST(Cli, ExportedMapsPassTheCheckerAndABrokenMapFails) {
  const std::string dir = ::testing::TempDir();
  Result placed = devplace("place inception_v3 --cluster paper --algo heft --export-affinity " + dir +
                           "/aff.json --export-device-map " + dir + "/dm.json");
  ASSERT_EQ(placed.status, 0) << placed.output;
  EXPECT_NE(placed.output.find("OpenVINO affinity map"), std::string::npos) << placed.output;
  EXPECT_NE(placed.output.find("keep their device at module level"), std::string::npos) << placed.output;
  Result ok = devplace("check-affinity inception_v3 " + dir + "/aff.json --cluster paper");
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_NE(ok.output.find("0 violations"), std::string::npos) << ok.output;
  auto map = nlohmann::json::parse(read_file(dir + "/aff.json"));
  map["affinity"].erase(map["affinity"].begin());
  const std::string broken = temp_file("broken_aff.json", map.dump());
  Result bad = devplace("check-affinity inception_v3 " + broken + " --cluster paper");
  EXPECT_EQ(bad.status, 1) << bad.output;
  EXPECT_NE(bad.output.find("missing: "), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("devplace: error: " + broken + ": 1 violations"), std::string::npos) << bad.output;

  Result gpu = devplace("place resnet50 --cluster paper --algo gpu-only --export-device-map " + dir + "/dm_gpu.json");
  ASSERT_EQ(gpu.status, 0) << gpu.output;
  auto dm = nlohmann::json::parse(read_file(dir + "/dm_gpu.json"));
  EXPECT_EQ(dm["device_map"], nlohmann::json({{"", "cuda:0"}}));
  EXPECT_EQ(dm["preserved_ops"], 122);
}

// `train --algo learned` fine-tunes the shipped policy with updates x samples + devices + 1
// evaluations (a single-device reference per device and the final greedy placement), also under
// Tarnawski's model, where its placements are feasible by construction.
TEST(Cli, TrainLearnedFineTunesWithinItsBudget) {
  Result r = devplace("train resnet50 --cluster paper --algo learned --episodes 2 --samples 5");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("(13 reward evaluations, both)"), std::string::npos) << r.output;
  Result bad = devplace("train resnet50 --cluster paper --algo learned --also inception_v3");
  expect_one_line_error(bad, "--algo learned fine-tunes on one graph");
  // --save-policy writes the fine-tuned policy (as the API's save_policy does), --tuning picks the update.
  const std::string saved = ::testing::TempDir() + "/tuned.pt";
  Result s = devplace("train resnet50 --cluster paper --algo learned --episodes 1 --samples 4 --tuning policy_gradient "
                      "--save-policy " + saved);
  ASSERT_EQ(s.status, 0) << s.output;
  Result placed = devplace("place resnet50 --cluster paper --algo learned --policy " + saved);
  EXPECT_EQ(placed.status, 0) << placed.output;
  const std::string graph =
      shared_dir() + "/data/dnn-partitioning/latency-inputs/OperatorGraphs/bert_l-3_inference.json";
  if (!file_exists(graph)) GTEST_SKIP() << "no shared data at " << graph;
  Result t = devplace("train " + graph + " --objective tarnawski --algo learned --episodes 2 --samples 4");
  ASSERT_EQ(t.status, 0) << t.output;
  EXPECT_NE(t.output.find("(14 reward evaluations, both)"), std::string::npos) << t.output;  // 5 devices
  EXPECT_EQ(t.output.find(" inf ms"), std::string::npos) << t.output;                        // feasible
}

// pretrain's imitation of a classical placer, the Tarnawski-form corpus and the context network
// on a tiny corpus; an unknown placer is a one-line error before any training.
TEST(Cli, PretrainImitatesAPlacerAndWritesAContextPolicy) {
  const std::string out = ::testing::TempDir() + "/cli_pretrain_context.pt";
  Result r = devplace("pretrain -q --graphs 3 --imitation 20 --iterations 4 --samples 4 --imitate local-search "
                      "--imitate-budget 200 --context 8 --seed 3 -o " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("20 imitation + 4 policy-gradient"), std::string::npos) << r.output;
  Result placed = devplace("place resnet50 --cluster paper --algo learned --policy " + out);
  EXPECT_EQ(placed.status, 0) << placed.output;
  Result tables = devplace("pretrain -q --objective tarnawski --graphs 3 --cost-tables 1 --imitation 10 --iterations 2 "
                           "--samples 4 --imitate tarnawski-dp -o " + out);
  EXPECT_EQ(tables.status, 0) << tables.output;
  expect_one_line_error(devplace("pretrain --imitate nonsense -o " + out), "--imitate nonsense: not a classical placer");
}

// pretrain-moves writes a move policy that the learned-moves rows load and keep to the budget (and
// validates it on graphs of another family); a wrong file or objective is a one-line error.
TEST(Cli, PretrainMovesWritesAPolicyTheMoveRowsUse) {
  const std::string out = ::testing::TempDir() + "/cli_pretrain_moves.pt";
  Result r = devplace("pretrain-moves -q --graphs 3 --iterations 20 --validate 2 --validate-budget 16 --validate-families decoder "
                      "--seed 2 -o " +
                      out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("20 updates"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("validation, 2 unseen graphs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("discrepancy (2) + moves (14)"), std::string::npos) << r.output;
  Result placed = devplace("compare inception_v3 --cluster paper --budget 20 --csv --algos "
                           "learned-moves,learned-discrepancy-moves --move-policy " + out);
  ASSERT_EQ(placed.status, 0) << placed.output;
  EXPECT_NE(placed.output.find("learned-discrepancy-moves"), std::string::npos) << placed.output;
  expect_one_line_error(devplace("place inception_v3 --cluster paper --algo learned-moves --move-policy "
                                 "policies/learned.pt"),
                        "not a move policy");
  const std::string graph =
      shared_dir() + "/data/dnn-partitioning/latency-inputs/OperatorGraphs/bert_l-3_inference.json";
  if (!file_exists(graph)) GTEST_SKIP() << "no shared data at " << graph;
  expect_one_line_error(devplace("place " + graph + " --objective tarnawski --algo learned-moves"),
                        "simulator's objective only");
}

}  // namespace
}  // namespace devplace
