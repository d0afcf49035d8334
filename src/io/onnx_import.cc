#include "io/onnx_import.h"

#include <exception>
#include <filesystem>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "graph/op_costs.h"
#include "graph/static_folding.h"
#include "io/onnx_static_values.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace devplace {
namespace {

DType to_dtype(int onnx_type) {
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT:
      return DType::f32;
    case onnx::TensorProto::FLOAT16:
      return DType::f16;
    case onnx::TensorProto::BFLOAT16:
      return DType::bf16;
    case onnx::TensorProto::DOUBLE:
      return DType::f64;
    case onnx::TensorProto::INT8:
      return DType::i8;
    case onnx::TensorProto::UINT8:
      return DType::u8;
    case onnx::TensorProto::INT16:
      return DType::i16;
    case onnx::TensorProto::INT32:
      return DType::i32;
    case onnx::TensorProto::INT64:
      return DType::i64;
    case onnx::TensorProto::BOOL:
      return DType::boolean;
    case onnx::TensorProto::UINT16:
      return DType::u16;
    case onnx::TensorProto::UINT32:
      return DType::u32;
    case onnx::TensorProto::UINT64:
      return DType::u64;
    default:
      return DType::unknown;
  }
}

// Shape and dtype of a value_info; `has_rank` false when the type carries no shape at all.
struct TypeInfo {
  Shape shape;
  DType dtype = DType::unknown;
  bool has_rank = false;
};

TypeInfo type_info(const onnx::ValueInfoProto& vi) {
  TypeInfo info;
  if (!vi.type().has_tensor_type()) return info;
  const auto& tt = vi.type().tensor_type();
  info.dtype = to_dtype(tt.elem_type());
  if (!tt.has_shape()) return info;
  info.has_rank = true;
  for (const auto& d : tt.shape().dim())
    info.shape.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : kUnknownDim);
  return info;
}

// Converts the attribute kinds Op::attrs can hold; returns false for the others.
bool convert_attr(const onnx::AttributeProto& a, AttrValue& out) {
  switch (a.type()) {
    case onnx::AttributeProto::INT:
      out = static_cast<std::int64_t>(a.i());
      return true;
    case onnx::AttributeProto::FLOAT:
      out = static_cast<double>(a.f());
      return true;
    case onnx::AttributeProto::STRING:
      out = a.s();
      return true;
    case onnx::AttributeProto::INTS:
      out = std::vector<std::int64_t>(a.ints().begin(), a.ints().end());
      return true;
    case onnx::AttributeProto::FLOATS:
      out = std::vector<double>(a.floats().begin(), a.floats().end());
      return true;
    default:
      return false;  // tensors, graphs, sparse tensors, type protos: not needed for costs
  }
}

void apply_bindings(onnx::ModelProto& model, const ImportOptions& opts, const std::string& source) {
  if (opts.input_shapes.empty()) return;
  auto* graph = model.mutable_graph();
  std::unordered_set<std::string> initializers;
  for (const auto& init : graph->initializer()) initializers.insert(init.name());
  std::string names;
  for (const auto& in : graph->input())
    if (!initializers.count(in.name())) names += (names.empty() ? "" : ", ") + in.name();
  for (const auto& [name, shape] : opts.input_shapes) {
    onnx::ValueInfoProto* target = nullptr;
    for (auto& in : *graph->mutable_input())
      if (in.name() == name && !initializers.count(name)) target = &in;
    if (!target) throw Error(source, "", "input binding '" + name + "' names no graph input (inputs: " + names + ")", ErrorKind::not_found);
    auto* tt = target->mutable_type()->mutable_tensor_type();
    if (tt->has_shape() && tt->shape().dim_size() != static_cast<int>(shape.size()))
      throw Error(source, "",
                  "input binding '" + name + "' has rank " + std::to_string(shape.size()) +
                      " but the graph input has rank " + std::to_string(tt->shape().dim_size()));
    auto* s = tt->mutable_shape();
    s->clear_dim();
    for (auto d : shape) {
      if (d <= 0) throw Error(source, "", "input binding '" + name + "' has a non-positive dim " + std::to_string(d));
      s->add_dim()->set_dim_value(d);
    }
  }
  // Shapes the file recorded for the old input shapes would contradict the new ones.
  graph->clear_value_info();
  for (auto& out : *graph->mutable_output()) out.mutable_type()->mutable_tensor_type()->clear_shape();
}

}  // namespace

Graph import_onnx(const std::string& path, const ImportOptions& opts) {
  return import_onnx_bytes(read_file(path), path, opts);
}

Graph import_onnx_bytes(const std::string& bytes, const std::string& source, const ImportOptions& opts) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    throw Error(source, "", "not a valid ONNX model: protobuf parsing failed (truncated or corrupt file?)", ErrorKind::corrupt);
  if (!model.has_graph() || model.graph().node_size() == 0)
    throw Error(source, "", "not a valid ONNX model: it has no graph nodes", ErrorKind::corrupt);
  if (model.ir_version() <= 0) throw Error(source, "", "not a valid ONNX model: missing ir_version", ErrorKind::corrupt);

  apply_bindings(model, opts, source);
  // Shapes come from a working copy in which static shape arithmetic has been evaluated; the
  // graph keeps the file's own nodes.
  const auto file_nodes = model.graph().node();
  infer_shapes_with_static_values(model, source);

  const onnx::GraphProto& gp = model.graph();
  std::string stem = std::filesystem::path(source).stem().string();
  Graph g(stem.empty() ? gp.name() : stem, source);

  // Everything we know about each named value.
  std::unordered_map<std::string, TypeInfo> infos;
  for (const auto& vi : gp.input()) infos[vi.name()] = type_info(vi);
  for (const auto& vi : gp.value_info()) infos[vi.name()] = type_info(vi);
  for (const auto& vi : gp.output()) {
    TypeInfo t = type_info(vi);
    if (t.has_rank || !infos.count(vi.name())) infos[vi.name()] = t;
  }
  std::unordered_map<std::string, const onnx::TensorProto*> initializers;
  for (const auto& init : gp.initializer()) initializers[init.name()] = &init;

  std::set<std::string> taken;
  for (int i = 0; i < file_nodes.size(); ++i) {
    const auto& node = file_nodes.Get(i);
    Op op;
    op.type = node.op_type();
    op.name = onnx_op_name(node.name(), node.op_type(), i, taken);
    if (!node.name().empty() && op.name != node.name())
      log::warn("onnx.duplicate_node_name", source + ": node name '" + node.name() + "' is used twice; renamed '" +
                                                op.name + "' (later duplicates likewise)");
    for (const auto& a : node.attribute()) {
      AttrValue v;
      if (convert_attr(a, v)) op.attrs[a.name()] = std::move(v);
    }
    for (const auto& in : node.input())
      if (!in.empty()) op.inputs.push_back(g.tensor_id(in));
    for (const auto& out : node.output())
      if (!out.empty()) op.outputs.push_back(g.tensor_id(out));
    if (op.outputs.empty()) throw Error(source, op.name, "node has no outputs", ErrorKind::corrupt);
    g.add_op(std::move(op));
  }
  for (const auto& vi : gp.input())
    if (!initializers.count(vi.name())) g.tensor(g.tensor_id(vi.name())).is_graph_input = true;
  for (const auto& vi : gp.output()) g.tensor(g.tensor_id(vi.name())).is_graph_output = true;

  // Shapes and dtypes; initializers win (their dims are authoritative even without data).
  static const char* kKinds[] = {"graph input", "intermediate tensor", "graph output"};
  static const char* kKeys[] = {"input", "intermediate", "output"};
  for (int id = 0; id < g.num_tensors(); ++id) {
    Tensor& t = g.tensor(id);
    if (auto it = initializers.find(t.name); it != initializers.end()) {
      t.is_constant = true;
      t.shape.assign(it->second->dims().begin(), it->second->dims().end());
      t.dtype = to_dtype(it->second->data_type());
      continue;
    }
    const int k = t.is_graph_input ? 0 : t.is_graph_output ? 2 : 1;
    const char* kind = kKinds[k];
    auto it = infos.find(t.name);
    if (it == infos.end() || !it->second.has_rank) {
      t.shape = {kUnknownDim};
      if (it != infos.end()) t.dtype = it->second.dtype;
      log::warn(std::string("onnx.unknown_rank.") + kKeys[k], source + ": " + kind + " '" + t.name +
                                                                  "' has an unknown shape; it counts as one element " +
                                                                  "(bind the graph inputs, e.g. --input NAME=1,128)");
      continue;
    }
    t.shape = it->second.shape;
    t.dtype = it->second.dtype;
    if (!t.shape_known())
      log::warn(std::string("onnx.unknown_dim.") + kKeys[k],
                source + ": " + kind + " '" + t.name + "' has unknown dims " + shape_to_string(t.shape) +
                    "; each counts as 1 (bind the graph inputs, e.g. --input NAME=1,128)");
  }

  g.finalize();
  // What ONNX Runtime folds before the first inference (constant subgraphs, shape arithmetic
  // on static shapes) costs nothing per inference: graph/static_folding.h.
  fold_static_values(g);
  annotate_costs(g);
  return g;
}

std::string onnx_op_name(const std::string& node_name, const std::string& op_type, int index,
                         std::set<std::string>& taken) {
  std::string name = node_name.empty() ? op_type + "_" + std::to_string(index) : node_name;
  if (taken.count(name)) name += "#" + std::to_string(index);
  taken.insert(name);
  return name;
}

}  // namespace devplace
