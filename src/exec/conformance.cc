#include "exec/conformance.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include <ATen/ATen.h>
#include <onnx/onnx_pb.h>

#include "devplace/log.h"
#include "exec/executor.h"
#include "exec/onnx_ops.h"
#include "io/onnx_import.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {

namespace {

namespace fs = std::filesystem;

onnx::ModelProto read_model(const std::string& path) {
  onnx::ModelProto model;
  if (!model.ParseFromString(read_file(path))) throw Error(path, "", "not a valid ONNX model", ErrorKind::corrupt);
  return model;
}

// Op types of a graph and of the graphs inside its attributes (If, Loop, Scan bodies).
void collect_op_types(const onnx::GraphProto& g, std::set<std::string>& types) {
  for (const auto& node : g.node()) {
    types.insert(node.op_type());
    for (const auto& a : node.attribute()) {
      if (a.has_g()) collect_op_types(a.g(), types);
      for (const auto& sub : a.graphs()) collect_op_types(sub, types);
    }
  }
}

at::Tensor read_tensor(const std::string& path) {
  onnx::TensorProto proto;
  if (!proto.ParseFromString(read_file(path))) throw Error(path, "", "not an ONNX TensorProto");
  at::Tensor t = exec::tensor_from_proto(proto, path);
  if (!t.defined()) throw Error(path, "", "the tensor has no data", ErrorKind::corrupt);
  return t;
}

// Empty when `got` matches `want` within the tolerance; otherwise what differs.
std::string compare(const HostTensor& got, const at::Tensor& want, const ConformanceOptions& o) {
  const Shape want_dims(want.sizes().begin(), want.sizes().end());
  if (got.shape != want_dims)
    return "output " + got.name + " has shape " + shape_to_string(got.shape) + ", expected " +
           shape_to_string(want_dims);
  const bool exact = !at::isFloatingType(want.scalar_type());
  const at::Tensor w = want.to(at::kDouble).contiguous();
  const double* wv = w.data_ptr<double>();
  for (std::size_t k = 0; k < got.values.size(); ++k) {
    const double a = got.values[k], b = wv[k];
    if (std::isnan(a) && std::isnan(b)) continue;
    if (std::isinf(b) && a == b) continue;
    const bool ok = exact ? a == b : std::abs(a - b) <= o.atol + o.rtol * std::abs(b);
    if (!ok) {
      std::ostringstream s;
      s << "output " << got.name << " element " << k << " is " << a << ", expected " << b;
      return s.str();
    }
  }
  return "";
}

bool is_test_dir(const fs::path& p) { return fs::is_regular_file(p / "model.onnx"); }

std::vector<fs::path> sorted_files(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(prefix, 0) == 0 && e.path().extension() == ".pb") files.push_back(e.path());
  // input_10 after input_9: order by the number after the prefix.
  std::sort(files.begin(), files.end(), [&](const fs::path& a, const fs::path& b) {
    return std::stoi(a.stem().string().substr(prefix.size())) < std::stoi(b.stem().string().substr(prefix.size()));
  });
  return files;
}

}  // namespace

ConformanceCase run_conformance_case(const std::string& dir, const std::string& name, const ConformanceOptions& o) {
  ConformanceCase c;
  c.name = name;
  const std::string model_path = (fs::path(dir) / "model.onnx").string();
  try {
    const onnx::ModelProto model = read_model(model_path);
    std::set<std::string> types;
    collect_op_types(model.graph(), types);
    c.op_types.assign(types.begin(), types.end());
    const auto& supported = exec::supported_onnx_ops();
    for (const auto& t : c.op_types)
      if (std::find(supported.begin(), supported.end(), t) == supported.end())
        c.detail += (c.detail.empty() ? "" : ", ") + t;
    if (!c.detail.empty()) return c;  // unsupported

    std::vector<std::string> outputs;  // output_K.pb is the graph's K-th output
    for (const auto& o : model.graph().output()) outputs.push_back(o.name());
    std::set<std::string> initializers;
    for (const auto& i : model.graph().initializer()) initializers.insert(i.name());
    std::vector<std::string> inputs;
    for (const auto& i : model.graph().input())
      if (!initializers.count(i.name())) inputs.push_back(i.name());

    const Graph graph = import_onnx(model_path);
    std::vector<fs::path> sets;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) throw Error(dir, "", "no test_data_set_N folder");
    Executor ex(graph, {WorkerSpec{}});
    const Placement on_one_worker(static_cast<std::size_t>(graph.num_ops()), 0);
    for (const fs::path& set : sets) {
      const std::vector<fs::path> in = sorted_files(set, "input_"), out = sorted_files(set, "output_");
      if (in.size() > inputs.size())
        throw Error(set.string(), "",
                    std::to_string(in.size()) + " inputs for a model with " + std::to_string(inputs.size()));
      for (std::size_t k = 0; k < in.size(); ++k) ex.set_input(inputs[k], in[k].string());
      ex.run(on_one_worker);
      const std::vector<HostTensor> got = ex.outputs();
      if (got.size() != out.size() || out.size() != outputs.size())
        throw Error(set.string(), "", std::to_string(got.size()) + " outputs, expected " + std::to_string(out.size()));
      for (std::size_t k = 0; k < out.size(); ++k) {
        const auto it = std::find_if(got.begin(), got.end(), [&](const HostTensor& h) { return h.name == outputs[k]; });
        if (it == got.end()) throw Error(set.string(), outputs[k], "the run has no such output", ErrorKind::not_found);
        const std::string diff = compare(*it, read_tensor(out[k].string()), o);
        if (!diff.empty()) {
          c.status = ConformanceCase::Status::failed;
          c.detail = set.filename().string() + ": " + diff;
          return c;
        }
      }
    }
    c.status = ConformanceCase::Status::passed;
  } catch (const std::exception& e) {
    c.status = ConformanceCase::Status::failed;
    c.detail = e.what();
  }
  return c;
}

std::vector<ConformanceCase> run_conformance(const std::string& root, const ConformanceOptions& o) {
  std::vector<std::pair<std::string, fs::path>> dirs;  // name, path
  const auto add_tests_in = [&](const fs::path& suite, const std::string& prefix) {
    for (const auto& e : fs::directory_iterator(suite))
      if (is_test_dir(e.path())) dirs.emplace_back(prefix + e.path().filename().string(), e.path());
  };
  if (!fs::is_directory(root))
    throw Error(root, "", "not a folder (install libonnx-testdata, or give the suite's data folder)");
  add_tests_in(root, "");
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple", "real"})
    if (fs::is_directory(fs::path(root) / suite)) add_tests_in(fs::path(root) / suite, std::string(suite) + "/");
  if (dirs.empty()) throw Error(root, "", "no ONNX test folders (model.onnx + test_data_set_N) here");
  std::sort(dirs.begin(), dirs.end());
  // The importer's warnings (unknown dims and the like) are not the suite's business.
  log::Sink quiet;
  quiet.warning = [](const std::string&, const std::string&) {};
  log::ScopedSink scope(quiet);
  std::vector<ConformanceCase> cases;
  for (const auto& [name, path] : dirs)
    if (o.filter.empty() || name.find(o.filter) != std::string::npos)
      cases.push_back(run_conformance_case(path.string(), name, o));
  return cases;
}

}  // namespace devplace
