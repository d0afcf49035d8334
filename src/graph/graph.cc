#include "graph/graph.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <queue>
#include <set>

#include "util/error.h"

namespace devplace {

int dtype_size(DType t) {
  switch (t) {
    case DType::f64:
    case DType::i64:
    case DType::u64:
      return 8;
    case DType::f32:
    case DType::i32:
    case DType::u32:
    case DType::unknown:
      return 4;
    case DType::f16:
    case DType::bf16:
    case DType::i16:
    case DType::u16:
      return 2;
    case DType::i8:
    case DType::u8:
    case DType::boolean:
      return 1;
  }
  return 4;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
    case DType::f64:
      return "f64";
    case DType::i8:
      return "i8";
    case DType::u8:
      return "u8";
    case DType::i16:
      return "i16";
    case DType::i32:
      return "i32";
    case DType::i64:
      return "i64";
    case DType::boolean:
      return "bool";
    case DType::u16:
      return "u16";
    case DType::u32:
      return "u32";
    case DType::u64:
      return "u64";
    case DType::unknown:
      return "unknown";
  }
  return "unknown";
}

DType parse_dtype(const std::string& raw) {
  std::string s;
  for (char c : raw) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::map<std::string, DType> names = {
      {"f32", DType::f32},      {"fp32", DType::f32},        {"float", DType::f32},   {"float32", DType::f32},
      {"f16", DType::f16},      {"fp16", DType::f16},        {"float16", DType::f16}, {"half", DType::f16},
      {"bf16", DType::bf16},    {"bfloat16", DType::bf16},   {"f64", DType::f64},     {"fp64", DType::f64},
      {"double", DType::f64},   {"float64", DType::f64},     {"i8", DType::i8},       {"int8", DType::i8},
      {"u8", DType::u8},        {"uint8", DType::u8},        {"i16", DType::i16},     {"int16", DType::i16},
      {"i32", DType::i32},      {"int32", DType::i32},       {"i64", DType::i64},     {"int64", DType::i64},
      {"bool", DType::boolean}, {"boolean", DType::boolean}, {"u1", DType::boolean},  {"u16", DType::u16},
      {"uint16", DType::u16},   {"u32", DType::u32},         {"uint32", DType::u32},  {"u64", DType::u64},
      {"uint64", DType::u64},
  };
  auto it = names.find(s);
  return it == names.end() ? DType::unknown : it->second;
}

std::string shape_to_string(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ",";
    out += s[i] == kUnknownDim ? "?" : std::to_string(s[i]);
  }
  return out + "]";
}

// Saturating: a corrupt or hostile file may claim dims whose product overflows; the result then
// stays at the int64 maximum, which check_limits (io/model.h) reports by name.
std::int64_t Tensor::elements() const {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d == kUnknownDim) continue;
    if (d <= 0) return 0;
    if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<std::int64_t>::max();
  }
  return n;
}

std::int64_t Tensor::bytes() const {
  if (fixed_bytes >= 0) return fixed_bytes;
  std::int64_t b = 0;
  if (__builtin_mul_overflow(elements(), static_cast<std::int64_t>(dtype_size(dtype)), &b))
    return std::numeric_limits<std::int64_t>::max();
  return b;
}

bool Tensor::shape_known() const {
  return std::none_of(shape.begin(), shape.end(), [](auto d) { return d == kUnknownDim; });
}

std::int64_t Op::attr_int(const std::string& key, std::int64_t fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::int64_t>(&it->second)) return *v;
  if (auto* d = std::get_if<double>(&it->second)) return static_cast<std::int64_t>(*d);
  return fallback;
}

std::vector<std::int64_t> Op::attr_ints(const std::string& key) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return {};
  if (auto* v = std::get_if<std::vector<std::int64_t>>(&it->second)) return *v;
  if (auto* i = std::get_if<std::int64_t>(&it->second)) return {*i};
  return {};
}

std::string Op::attr_string(const std::string& key, const std::string& fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::string>(&it->second)) return *v;
  return fallback;
}

int Graph::tensor_id(const std::string& name) {
  auto [it, inserted] = tensor_index_.try_emplace(name, static_cast<int>(tensors_.size()));
  if (inserted) {
    Tensor t;
    t.name = name;
    tensors_.push_back(std::move(t));
  }
  return it->second;
}

int Graph::find_tensor(const std::string& name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? -1 : it->second;
}

std::vector<int> Graph::depths() const {
  std::vector<int> depth(ops_.size(), 0);
  for (std::size_t v = 0; v < ops_.size(); ++v)
    for (int u : preds_[v]) depth[v] = std::max(depth[v], depth[u] + 1);
  return depth;
}

int Graph::find_op(const std::string& name) const {
  auto it = op_index_.find(name);
  return it == op_index_.end() ? -1 : it->second;
}

int Graph::add_op(Op op) {
  if (finalized_) throw Error(source_, op.name, "cannot add an op to a finalized graph");
  ops_.push_back(std::move(op));
  return static_cast<int>(ops_.size()) - 1;
}

void Graph::finalize() {
  const int n = num_ops();
  // Names must be unique: placements refer to ops by name.
  op_index_.clear();
  for (int i = 0; i < n; ++i) {
    if (ops_[i].name.empty()) throw Error(source_, "#" + std::to_string(i), "op has an empty name");
    if (!op_index_.emplace(ops_[i].name, i).second) throw Error(source_, ops_[i].name, "duplicate op name");
  }
  // Each tensor has at most one producer; each consumed tensor must come from somewhere.
  for (auto& t : tensors_) t.producer = -1, t.consumers.clear();
  for (int i = 0; i < n; ++i)
    for (int t : ops_[i].outputs) {
      if (tensors_[t].producer != -1)
        throw Error(
            source_, ops_[i].name,
            "tensor '" + tensors_[t].name + "' is also produced by op '" + ops_[tensors_[t].producer].name + "'");
      tensors_[t].producer = i;
    }
  for (int i = 0; i < n; ++i)
    for (int t : ops_[i].inputs) {
      const Tensor& tt = tensors_[t];
      if (tt.producer == -1 && !tt.is_graph_input && !tt.is_constant)
        throw Error(source_, ops_[i].name,
                    "input tensor '" + tt.name + "' is produced by no op and is not a graph input");
    }

  // Kahn's algorithm; the smallest original index first keeps the order close to the file's.
  std::vector<std::set<int>> succ(n);
  std::vector<int> indeg(n, 0);
  for (int i = 0; i < n; ++i)
    for (int t : ops_[i].inputs) {
      int p = tensors_[t].producer;
      if (p >= 0 && p != i && succ[p].insert(i).second) ++indeg[i];
      if (p == i) throw Error(source_, ops_[i].name, "op consumes its own output '" + tensors_[t].name + "' (a cycle)");
    }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push(i);
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int u = ready.top();
    ready.pop();
    order.push_back(u);
    for (int v : succ[u])
      if (--indeg[v] == 0) ready.push(v);
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i)
      if (indeg[i] > 0) throw Error(source_, ops_[i].name, "the graph has a cycle through this op");
  }

  // Renumber ops into topological order.
  std::vector<int> new_index(n);
  for (int k = 0; k < n; ++k) new_index[order[k]] = k;
  std::vector<Op> sorted(n);
  for (int i = 0; i < n; ++i) sorted[new_index[i]] = std::move(ops_[i]);
  ops_ = std::move(sorted);
  op_index_.clear();
  for (int i = 0; i < n; ++i) op_index_[ops_[i].name] = i;
  for (auto& t : tensors_) t.producer = -1;
  for (int i = 0; i < n; ++i)
    for (int t : ops_[i].outputs) tensors_[t].producer = i;
  for (int i = 0; i < n; ++i)
    for (int t : ops_[i].inputs) {
      auto& c = tensors_[t].consumers;
      if (c.empty() || c.back() != i) c.push_back(i);
    }
  for (auto& t : tensors_) {
    std::sort(t.consumers.begin(), t.consumers.end());
    t.consumers.erase(std::unique(t.consumers.begin(), t.consumers.end()), t.consumers.end());
  }

  preds_.assign(n, {});
  succs_.assign(n, {});
  num_edges_ = 0;
  for (int i = 0; i < n; ++i) {
    for (int t : ops_[i].inputs)
      if (int p = tensors_[t].producer; p >= 0) preds_[i].push_back(p);
    auto& p = preds_[i];
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    for (int q : p) succs_[q].push_back(i);
    num_edges_ += p.size();
  }
  finalized_ = true;
}

}  // namespace devplace
