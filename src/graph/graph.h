// Graph: a computation graph of ops connected by tensors, the input of every placer.
//
// Build it with add_tensor / add_op (tensors are found or created by name), then call
// finalize(), which checks it (duplicate names, dangling inputs, cycles) and renumbers the ops
// in a deterministic topological order: after finalize, op index == topological position, and
// every edge goes from a lower to a higher index. A finalized Graph is an immutable value;
// it is safe to read from several threads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace devplace {

enum class DType : std::uint8_t { f32, f16, bf16, f64, i8, u8, i16, i32, i64, boolean, u16, u32, u64, unknown };

// Bytes per element (unknown counts as 4, the common case, so sizes stay finite).
int dtype_size(DType t);
const char* dtype_name(DType t);
// Accepts ONNX-style ("float", "int64"), OpenVINO precisions ("FP32", "I64", "f16", "boolean")
// and our own names. Returns DType::unknown for anything else.
DType parse_dtype(const std::string& s);

// Shape dims; kUnknownDim marks a dimension nobody could resolve.
constexpr std::int64_t kUnknownDim = -1;
using Shape = std::vector<std::int64_t>;
std::string shape_to_string(const Shape& s);

struct Tensor {
  std::string name;
  Shape shape;
  DType dtype = DType::f32;
  int producer = -1;           // op index; -1 for graph inputs and constants
  std::vector<int> consumers;  // distinct op indices, ascending (filled by finalize)
  bool is_graph_input = false;
  bool is_graph_output = false;
  bool is_constant = false;       // an initializer (weights): resident with each consumer
  std::int64_t fixed_bytes = -1;  // size given by the file instead of by shape (cost graphs)

  // Number of elements; unknown dims count as 1 (the documented fallback, see docs/).
  std::int64_t elements() const;
  std::int64_t bytes() const;
  bool shape_known() const;
};

using AttrValue = std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>>;

struct Op {
  std::string name;
  std::string type;  // as the file spells it: "Conv" (ONNX), "Convolution" (OpenVINO) ...
  std::map<std::string, AttrValue> attrs;
  std::vector<int> inputs;   // tensor ids in port order; may include constants and repeats
  std::vector<int> outputs;  // tensor ids in port order

  // Filled by annotate_costs() (graph/op_costs.h) or by an importer that knows better.
  double flops = 0;                 // floating-point operations (1 MAC = 2 FLOPs)
  double macs = 0;                  // multiply-accumulates of Conv / MatMul / Gemm ops
  std::int64_t weight_bytes = 0;    // parameters that must live on this op's device
  std::int64_t bytes_accessed = 0;  // input + output activations + weights

  // Attribute helpers; return `fallback` when absent or of another type.
  std::int64_t attr_int(const std::string& key, std::int64_t fallback) const;
  std::vector<std::int64_t> attr_ints(const std::string& key) const;
  std::string attr_string(const std::string& key, const std::string& fallback = "") const;
};

class Graph {
 public:
  Graph() = default;
  explicit Graph(std::string name, std::string source = "") : name_(std::move(name)), source_(std::move(source)) {}

  const std::string& name() const { return name_; }
  // The file the graph came from; used to prefix error messages.
  const std::string& source() const { return source_; }
  void set_name(std::string n) { name_ = std::move(n); }
  void set_source(std::string s) { source_ = std::move(s); }

  // Returns the id of the tensor called `name`, creating an empty one if needed.
  int tensor_id(const std::string& name);
  // Returns the id or -1.
  int find_tensor(const std::string& name) const;
  // Adds an op; REQUIRES not finalized. Returns its (provisional) index.
  int add_op(Op op);
  Tensor& tensor(int id) { return tensors_[id]; }

  // Validates and orders the graph; throws Error naming source file and op on bad structure.
  void finalize();
  bool finalized() const { return finalized_; }

  const std::vector<Op>& ops() const { return ops_; }
  std::vector<Op>& mutable_ops() { return ops_; }
  const Op& op(int i) const { return ops_[i]; }
  const std::vector<Tensor>& tensors() const { return tensors_; }
  const Tensor& tensor(int id) const { return tensors_[id]; }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  int num_tensors() const { return static_cast<int>(tensors_.size()); }
  // Returns the op index or -1.
  int find_op(const std::string& name) const;

  // Distinct predecessor / successor ops (through non-constant tensors), ascending.
  const std::vector<int>& preds(int op) const { return preds_[op]; }
  const std::vector<int>& succs(int op) const { return succs_[op]; }
  std::size_t num_edges() const { return num_edges_; }
  // Per op, the longest path from a source, in ops (0 for a source). REQUIRES finalized: its
  // indices are a topological order. Grows along every edge, so it orders precedence.
  std::vector<int> depths() const;

 private:
  std::string name_, source_;
  std::vector<Op> ops_;
  std::vector<Tensor> tensors_;
  std::unordered_map<std::string, int> tensor_index_;
  std::unordered_map<std::string, int> op_index_;
  std::vector<std::vector<int>> preds_, succs_;
  std::size_t num_edges_ = 0;
  bool finalized_ = false;
};

}  // namespace devplace
