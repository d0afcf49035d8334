#include "io/onnx_static_values.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

#include "util/error.h"

namespace devplace {

namespace {

using onnx::TensorProto;

// A small tensor's value; every element type is held as double (exact for the integers that
// shape arithmetic uses, up to 2^53).
struct Value {
  int type = TensorProto::FLOAT;
  std::vector<std::int64_t> dims;
  std::vector<double> data;
};

using Dims = std::vector<std::int64_t>;

std::int64_t count(const Dims& dims) {
  std::int64_t n = 1;
  for (auto d : dims) {
    if (d < 0 || (d > 0 && n > kMaxStaticElements / d)) return kMaxStaticElements + 1;
    n *= d;
  }
  return n;
}

bool is_integral(int type) {
  switch (type) {
    case TensorProto::INT8:
    case TensorProto::INT16:
    case TensorProto::INT32:
    case TensorProto::INT64:
    case TensorProto::UINT8:
    case TensorProto::UINT16:
    case TensorProto::UINT32:
    case TensorProto::UINT64:
    case TensorProto::BOOL:
      return true;
    default:
      return false;
  }
}

bool is_supported_type(int type) {
  return is_integral(type) || type == TensorProto::FLOAT || type == TensorProto::DOUBLE;
}

int byte_size(int type) {
  switch (type) {
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return 1;
    case TensorProto::INT16:
    case TensorProto::UINT16:
      return 2;
    case TensorProto::INT32:
    case TensorProto::UINT32:
    case TensorProto::FLOAT:
      return 4;
    default:
      return 8;
  }
}

template <class T>
double read_as(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return static_cast<double>(v);
}

double from_raw(const char* p, int type) {
  switch (type) {
    case TensorProto::INT8:
      return read_as<std::int8_t>(p);
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return read_as<std::uint8_t>(p);
    case TensorProto::INT16:
      return read_as<std::int16_t>(p);
    case TensorProto::UINT16:
      return read_as<std::uint16_t>(p);
    case TensorProto::INT32:
      return read_as<std::int32_t>(p);
    case TensorProto::UINT32:
      return read_as<std::uint32_t>(p);
    case TensorProto::FLOAT:
      return read_as<float>(p);
    case TensorProto::DOUBLE:
      return read_as<double>(p);
    case TensorProto::UINT64:
      return read_as<std::uint64_t>(p);
    default:
      return read_as<std::int64_t>(p);
  }
}

// Reads a tensor that carries its data (stripped or external weights do not) and is small.
std::optional<Value> read_tensor(const TensorProto& t) {
  if (!is_supported_type(t.data_type()) || t.data_location() == TensorProto::EXTERNAL) return std::nullopt;
  Value v;
  v.type = t.data_type();
  v.dims.assign(t.dims().begin(), t.dims().end());
  const std::int64_t n = count(v.dims);
  if (n > kMaxStaticElements) return std::nullopt;
  if (t.has_raw_data()) {
    const int size = byte_size(v.type);
    if (static_cast<std::int64_t>(t.raw_data().size()) != n * size) return std::nullopt;
    for (std::int64_t i = 0; i < n; ++i) v.data.push_back(from_raw(t.raw_data().data() + i * size, v.type));
  } else if (v.type == TensorProto::FLOAT) {
    v.data.assign(t.float_data().begin(), t.float_data().end());
  } else if (v.type == TensorProto::DOUBLE) {
    v.data.assign(t.double_data().begin(), t.double_data().end());
  } else if (v.type == TensorProto::INT64) {
    for (auto x : t.int64_data()) v.data.push_back(static_cast<double>(x));
  } else if (v.type == TensorProto::UINT32 || v.type == TensorProto::UINT64) {
    for (auto x : t.uint64_data()) v.data.push_back(static_cast<double>(x));
  } else {
    v.data.assign(t.int32_data().begin(), t.int32_data().end());
  }
  if (static_cast<std::int64_t>(v.data.size()) != n) return std::nullopt;
  return v;
}

std::int64_t to_int64(double x) {
  if (!(x > -9.2e18)) return std::numeric_limits<std::int64_t>::min();
  if (!(x < 9.2e18)) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(x);
}

TensorProto write_tensor(const Value& v) {
  TensorProto t;
  t.set_data_type(v.type);
  for (auto d : v.dims) t.add_dims(d);
  for (double x : v.data) {
    switch (v.type) {
      case TensorProto::FLOAT:
        t.add_float_data(static_cast<float>(x));
        break;
      case TensorProto::DOUBLE:
        t.add_double_data(x);
        break;
      case TensorProto::INT64:
        t.add_int64_data(to_int64(x));
        break;
      case TensorProto::UINT32:
      case TensorProto::UINT64:
        t.add_uint64_data(static_cast<std::uint64_t>(to_int64(x)));
        break;
      default:
        t.add_int32_data(static_cast<std::int32_t>(to_int64(x)));
        break;
    }
  }
  return t;
}

// Rounds a computed element to what its type can hold.
double store(double x, int type) {
  if (type == TensorProto::BOOL) return x != 0;
  if (type == TensorProto::FLOAT) return static_cast<float>(x);
  if (is_integral(type)) return std::trunc(x);
  return x;
}

std::int64_t norm_axis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

std::vector<std::int64_t> strides_of(const Dims& dims) {
  std::vector<std::int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

// Numpy broadcasting of `ins` to one shape; calls f with each output position's inputs.
std::optional<Value> broadcast(const std::vector<const Value*>& ins, int out_type,
                               const std::function<std::optional<double>(const std::vector<double>&)>& f) {
  std::size_t rank = 0;
  for (auto* v : ins) rank = std::max(rank, v->dims.size());
  Dims out(rank, 1);
  for (auto* v : ins)
    for (std::size_t k = 0; k < v->dims.size(); ++k) {
      auto& o = out[rank - v->dims.size() + k];
      const auto d = v->dims[k];
      if (d == o || d == 1) continue;
      if (o != 1) return std::nullopt;
      o = d;
    }
  const std::int64_t n = count(out);
  if (n > kMaxStaticElements) return std::nullopt;
  Value r;
  r.type = out_type;
  r.dims = out;
  r.data.resize(n);
  std::vector<std::vector<std::int64_t>> st;
  for (auto* v : ins) st.push_back(strides_of(v->dims));
  std::vector<double> args(ins.size());
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t rest = i;
    std::vector<std::int64_t> coord(rank);
    for (int k = static_cast<int>(rank) - 1; k >= 0; --k) {
      coord[k] = rest % out[k];
      rest /= out[k];
    }
    for (std::size_t a = 0; a < ins.size(); ++a) {
      const auto& d = ins[a]->dims;
      std::int64_t off = 0;
      for (std::size_t k = 0; k < d.size(); ++k)
        if (d[k] != 1) off += coord[rank - d.size() + k] * st[a][k];
      args[a] = ins[a]->data[off];
    }
    auto y = f(args);
    if (!y) return std::nullopt;
    r.data[i] = store(*y, out_type);
  }
  return r;
}

std::int64_t attr_int(const onnx::NodeProto& n, const char* name, std::int64_t fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

std::optional<std::vector<std::int64_t>> attr_ints(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return std::vector<std::int64_t>(a.ints().begin(), a.ints().end());
  return std::nullopt;
}

std::vector<std::int64_t> ints(const Value& v) {
  std::vector<std::int64_t> r;
  for (double x : v.data) r.push_back(to_int64(x));
  return r;
}

// Elements of `v` along `axis` at positions `picks` (other axes whole).
Value take(const Value& v, std::size_t axis, const std::vector<std::int64_t>& picks) {
  Value r;
  r.type = v.type;
  r.dims = v.dims;
  r.dims[axis] = static_cast<std::int64_t>(picks.size());
  std::int64_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < axis; ++k) outer *= v.dims[k];
  for (std::size_t k = axis + 1; k < v.dims.size(); ++k) inner *= v.dims[k];
  for (std::int64_t o = 0; o < outer; ++o)
    for (auto p : picks)
      for (std::int64_t i = 0; i < inner; ++i) r.data.push_back(v.data[(o * v.dims[axis] + p) * inner + i]);
  return r;
}

std::optional<Value> evaluate_constant(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "value") return read_tensor(a.t());
    Value v;
    if (a.name() == "value_int" || a.name() == "value_ints") {
      v.type = TensorProto::INT64;
      if (a.name() == "value_int")
        v.data = {static_cast<double>(a.i())};
      else
        for (auto x : a.ints()) v.data.push_back(static_cast<double>(x));
      if (a.name() == "value_ints") v.dims = {static_cast<std::int64_t>(v.data.size())};
      return v;
    }
    if (a.name() == "value_float" || a.name() == "value_floats") {
      v.type = TensorProto::FLOAT;
      if (a.name() == "value_float")
        v.data = {a.f()};
      else
        for (auto x : a.floats()) v.data.push_back(x);
      if (a.name() == "value_floats") v.dims = {static_cast<std::int64_t>(v.data.size())};
      return v;
    }
  }
  return std::nullopt;
}

// The node's one output, when every input it reads is a known value. `in[i]` is null for an
// absent optional input.
std::optional<Value> evaluate(const onnx::NodeProto& n, const std::vector<const Value*>& in) {
  const std::string& op = n.op_type();
  auto all = [&](std::size_t k) {
    return in.size() >= k && std::all_of(in.begin(), in.begin() + k, [](auto* p) { return p; });
  };
  using Args = const std::vector<double>&;
  if (op == "Identity" && all(1)) return *in[0];
  if (op == "Cast" && all(1)) {
    const int to = static_cast<int>(attr_int(n, "to", 0));
    if (!is_supported_type(to)) return std::nullopt;
    return broadcast({in[0]}, to, [](Args a) { return a[0]; });
  }
  static const std::unordered_map<std::string, double (*)(double)> unary = {
      {"Neg", [](double x) { return -x; }},
      {"Abs", [](double x) { return std::fabs(x); }},
      {"Floor", [](double x) { return std::floor(x); }},
      {"Ceil", [](double x) { return std::ceil(x); }},
      {"Sqrt", [](double x) { return std::sqrt(x); }},
      {"Not", [](double x) { return x == 0 ? 1.0 : 0.0; }},
      {"Reciprocal", [](double x) { return 1 / x; }}};
  if (auto u = unary.find(op); u != unary.end() && all(1)) {
    auto f = u->second;
    return broadcast({in[0]}, in[0]->type, [f](Args a) { return f(a[0]); });
  }
  if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" || op == "Pow") && all(2)) {
    const bool integral = is_integral(in[0]->type);
    const bool fmod = attr_int(n, "fmod", 0) != 0;
    return broadcast({in[0], in[1]}, in[0]->type, [&](Args a) -> std::optional<double> {
      const double x = a[0], y = a[1];
      if (op == "Add") return x + y;
      if (op == "Sub") return x - y;
      if (op == "Mul") return x * y;
      if (op == "Pow") return std::pow(x, y);
      if (integral && y == 0) return std::nullopt;
      if (op == "Div") return integral ? std::trunc(x / y) : x / y;
      if (fmod || !integral) return std::fmod(x, y);
      const double r = std::fmod(x, y);  // integer Mod takes the divisor's sign
      return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
    });
  }
  if ((op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual" ||
       op == "And" || op == "Or" || op == "Xor") &&
      all(2))
    return broadcast({in[0], in[1]}, TensorProto::BOOL, [&](Args a) -> std::optional<double> {
      const double x = a[0], y = a[1];
      if (op == "Equal") return x == y;
      if (op == "Less") return x < y;
      if (op == "Greater") return x > y;
      if (op == "LessOrEqual") return x <= y;
      if (op == "GreaterOrEqual") return x >= y;
      if (op == "And") return x != 0 && y != 0;
      if (op == "Or") return x != 0 || y != 0;
      return (x != 0) != (y != 0);
    });
  if ((op == "Max" || op == "Min") && !in.empty() && all(in.size()))
    return broadcast(in, in[0]->type, [&](Args a) {
      return op == "Max" ? *std::max_element(a.begin(), a.end()) : *std::min_element(a.begin(), a.end());
    });
  if (op == "Where" && all(3))
    return broadcast({in[0], in[1], in[2]}, in[1]->type, [](Args a) { return a[0] != 0 ? a[1] : a[2]; });
  if (op == "Gather" && all(2)) {
    const Value& d = *in[0];
    if (d.dims.empty()) return std::nullopt;
    const auto axis = norm_axis(attr_int(n, "axis", 0), d.dims.size());
    if (axis < 0 || axis >= static_cast<std::int64_t>(d.dims.size())) return std::nullopt;
    std::vector<std::int64_t> picks;
    for (auto i : ints(*in[1])) {
      if (i < 0) i += d.dims[axis];
      if (i < 0 || i >= d.dims[axis]) return std::nullopt;
      picks.push_back(i);
    }
    Value r = take(d, axis, picks);
    r.dims.erase(r.dims.begin() + axis);
    r.dims.insert(r.dims.begin() + axis, in[1]->dims.begin(), in[1]->dims.end());
    return r;
  }
  if (op == "Slice" && !in.empty() && in[0]) {
    const Value& d = *in[0];
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (in.size() >= 3) {  // opset 10+: inputs
      if (!in[1] || !in[2]) return std::nullopt;
      starts = ints(*in[1]), ends = ints(*in[2]);
      if (in.size() > 3 && in[3]) axes = ints(*in[3]);
      if (in.size() > 4 && in[4]) steps = ints(*in[4]);
    } else {
      auto s = attr_ints(n, "starts"), e = attr_ints(n, "ends");
      if (!s || !e) return std::nullopt;
      starts = *s, ends = *e;
      if (auto a = attr_ints(n, "axes")) axes = *a;
    }
    if (axes.empty())
      for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
      return std::nullopt;
    Value r = d;
    for (std::size_t k = 0; k < starts.size(); ++k) {
      const auto axis = norm_axis(axes[k], d.dims.size());
      if (axis < 0 || axis >= static_cast<std::int64_t>(d.dims.size()) || steps[k] == 0) return std::nullopt;
      const std::int64_t dim = r.dims[axis], step = steps[k];
      // ONNX clamps a start to [0, dim] ([0, dim-1] stepping back), an end to [0, dim] ([-1, dim-1]).
      auto clamp = [&](std::int64_t x, bool is_start) {
        if (x < 0) x += dim;
        if (step > 0) return std::clamp<std::int64_t>(x, 0, dim);
        return std::clamp<std::int64_t>(x, is_start ? 0 : -1, dim - 1);
      };
      const std::int64_t b = clamp(starts[k], true), e = clamp(ends[k], false);
      std::vector<std::int64_t> picks;
      for (std::int64_t i = b; step > 0 ? i < e : i > e; i += step) picks.push_back(i);
      r = take(r, axis, picks);
    }
    return r;
  }
  if (op == "Concat" && !in.empty() && all(in.size())) {
    const auto rank = in[0]->dims.size();
    if (rank == 0) return std::nullopt;
    const auto axis = norm_axis(attr_int(n, "axis", 0), rank);
    if (axis < 0 || axis >= static_cast<std::int64_t>(rank)) return std::nullopt;
    Value r;
    r.type = in[0]->type;
    r.dims = in[0]->dims;
    r.dims[axis] = 0;
    std::int64_t outer = 1;
    for (std::int64_t k = 0; k < axis; ++k) outer *= r.dims[k];
    for (auto* v : in) {
      if (v->dims.size() != rank) return std::nullopt;
      r.dims[axis] += v->dims[axis];
    }
    if (count(r.dims) > kMaxStaticElements) return std::nullopt;
    for (std::int64_t o = 0; o < outer; ++o)
      for (auto* v : in) {
        const std::int64_t chunk = static_cast<std::int64_t>(v->data.size()) / std::max<std::int64_t>(outer, 1);
        r.data.insert(r.data.end(), v->data.begin() + o * chunk, v->data.begin() + (o + 1) * chunk);
      }
    return r;
  }
  if ((op == "Unsqueeze" || op == "Squeeze") && !in.empty() && in[0]) {
    std::optional<std::vector<std::int64_t>> axes;
    if (in.size() > 1) {
      if (!in[1]) return std::nullopt;
      axes = ints(*in[1]);
    } else {
      axes = attr_ints(n, "axes");
    }
    Value r = *in[0];
    if (op == "Unsqueeze") {
      if (!axes) return std::nullopt;
      const auto rank = r.dims.size() + axes->size();
      std::vector<bool> inserted(rank, false);
      for (auto a : *axes) {
        a = norm_axis(a, rank);
        if (a < 0 || a >= static_cast<std::int64_t>(rank)) return std::nullopt;
        inserted[a] = true;
      }
      Dims out;
      std::size_t k = 0;
      for (std::size_t i = 0; i < rank; ++i) out.push_back(inserted[i] ? 1 : (k < r.dims.size() ? r.dims[k++] : 1));
      r.dims = out;
      return r;
    }
    Dims out;
    for (std::size_t i = 0; i < r.dims.size(); ++i) {
      const bool listed = axes && std::any_of(axes->begin(), axes->end(), [&](auto a) {
                            return norm_axis(a, r.dims.size()) == static_cast<std::int64_t>(i);
                          });
      if (axes ? !listed : r.dims[i] != 1) out.push_back(r.dims[i]);
    }
    r.dims = out;
    return r;
  }
  if (op == "Reshape" && all(2)) {
    Value r = *in[0];
    Dims shape = ints(*in[1]);
    const bool allowzero = attr_int(n, "allowzero", 0) != 0;
    std::int64_t known = 1, infer = -1;
    for (std::size_t k = 0; k < shape.size(); ++k) {
      if (shape[k] == 0 && !allowzero) {
        if (k >= r.dims.size()) return std::nullopt;
        shape[k] = r.dims[k];
      }
      if (shape[k] == -1) {
        if (infer >= 0) return std::nullopt;
        infer = static_cast<std::int64_t>(k);
      } else if (shape[k] < 0) {
        return std::nullopt;
      } else {
        known *= shape[k];
      }
    }
    const auto total = static_cast<std::int64_t>(r.data.size());
    if (infer >= 0) {
      if (known == 0 || total % known) return std::nullopt;
      shape[infer] = total / known;
    }
    if (count(shape) != total) return std::nullopt;
    r.dims = shape;
    return r;
  }
  if (op == "ConstantOfShape" && all(1)) {
    Value r;
    r.type = TensorProto::FLOAT;
    double fill = 0;
    for (const auto& a : n.attribute())
      if (a.name() == "value") {
        auto v = read_tensor(a.t());
        if (!v || v->data.size() != 1) return std::nullopt;
        r.type = v->type;
        fill = v->data[0];
      }
    r.dims = ints(*in[0]);
    if (count(r.dims) > kMaxStaticElements) return std::nullopt;
    r.data.assign(count(r.dims), fill);
    return r;
  }
  if (op == "Range" && all(3)) {
    const double start = in[0]->data.at(0), limit = in[1]->data.at(0), delta = in[2]->data.at(0);
    if (delta == 0) return std::nullopt;
    const double steps = std::max(std::ceil((limit - start) / delta), 0.0);
    if (steps > kMaxStaticElements) return std::nullopt;
    Value r;
    r.type = in[0]->type;
    r.dims = {static_cast<std::int64_t>(steps)};
    for (std::int64_t i = 0; i < r.dims[0]; ++i) r.data.push_back(store(start + i * delta, r.type));
    return r;
  }
  if (op == "Transpose" && all(1)) {
    const Value& d = *in[0];
    const auto rank = d.dims.size();
    std::vector<std::int64_t> perm;
    if (auto p = attr_ints(n, "perm"))
      perm = *p;
    else
      for (std::size_t k = 0; k < rank; ++k) perm.push_back(static_cast<std::int64_t>(rank - 1 - k));
    if (perm.size() != rank) return std::nullopt;
    Value r;
    r.type = d.type;
    for (auto p : perm) {
      if (p < 0 || p >= static_cast<std::int64_t>(rank)) return std::nullopt;
      r.dims.push_back(d.dims[p]);
    }
    const auto in_strides = strides_of(d.dims);
    r.data.resize(d.data.size());
    std::vector<std::int64_t> coord(rank, 0);  // over the output, last axis fastest
    for (std::size_t i = 0; i < r.data.size(); ++i) {
      std::int64_t off = 0;
      for (std::size_t k = 0; k < rank; ++k) off += coord[k] * in_strides[perm[k]];
      r.data[i] = d.data[off];
      for (int k = static_cast<int>(rank) - 1; k >= 0 && ++coord[k] == r.dims[k]; --k) coord[k] = 0;
    }
    return r;
  }
  if (op == "Expand" && all(2)) {
    Value shape;
    shape.dims = ints(*in[1]);
    shape.data.assign(std::max<std::int64_t>(count(shape.dims), 0), 0);
    if (count(shape.dims) > kMaxStaticElements) return std::nullopt;
    return broadcast({in[0], &shape}, in[0]->type, [](Args a) { return a[0]; });
  }
  return std::nullopt;
}

std::optional<Dims> known_dims(const onnx::ValueInfoProto& vi) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return std::nullopt;
  Dims d;
  for (const auto& dim : vi.type().tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
    d.push_back(dim.dim_value());
  }
  return d;
}

void infer(onnx::ModelProto& model, const std::string& source) {
  model.mutable_graph()->clear_value_info();  // re-inferred from scratch with what is now known
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*strict_mode=*/0, /*data_prop=*/true);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    throw Error(source, "", std::string("shape inference failed: ") + e.what());
  }
}

}  // namespace

StaticValueReport infer_shapes_with_static_values(onnx::ModelProto& model, const std::string& source) {
  StaticValueReport report;
  auto* graph = model.mutable_graph();
  for (int pass = 0; pass < 16; ++pass) {
    infer(model, source);
    ++report.passes;
    std::unordered_map<std::string, Dims> shapes;
    for (const auto* list : {&graph->input(), &graph->value_info(), &graph->output()})
      for (const auto& vi : *list)
        if (auto d = known_dims(vi)) shapes[vi.name()] = *d;
    std::unordered_map<std::string, Value> values;
    for (const auto& init : graph->initializer()) {
      shapes[init.name()] = Dims(init.dims().begin(), init.dims().end());
      if (auto v = read_tensor(init)) values[init.name()] = std::move(*v);
    }
    int evaluated = 0;
    for (auto& node : *graph->mutable_node()) {
      if (node.output_size() != 1 || !(node.domain().empty() || node.domain() == "ai.onnx")) continue;
      const std::string& op = node.op_type();
      std::optional<Value> v;
      if (op == "Constant") {
        if (auto c = evaluate_constant(node)) values[node.output(0)] = std::move(*c);
        continue;
      }
      if ((op == "Shape" || op == "Size") && node.input_size() >= 1) {
        auto it = shapes.find(node.input(0));
        if (it == shapes.end()) continue;
        const Dims& d = it->second;
        v.emplace();
        v->type = TensorProto::INT64;
        if (op == "Size") {
          v->data = {static_cast<double>(count(d))};
        } else {
          const auto rank = static_cast<std::int64_t>(d.size());
          auto clip = [&](std::int64_t x) { return std::clamp<std::int64_t>(x < 0 ? x + rank : x, 0, rank); };
          const auto b = clip(attr_int(node, "start", 0)), e = clip(attr_int(node, "end", rank));
          for (auto k = b; k < e; ++k) v->data.push_back(static_cast<double>(d[k]));
          v->dims = {static_cast<std::int64_t>(v->data.size())};
        }
      } else {
        std::vector<const Value*> in;
        bool ready = true;
        for (const auto& name : node.input()) {
          if (name.empty()) {
            in.push_back(nullptr);
            continue;
          }
          auto it = values.find(name);
          if (it == values.end()) {
            ready = false;
            break;
          }
          in.push_back(&it->second);
        }
        if (!ready || node.input_size() == 0) continue;
        v = evaluate(node, in);
      }
      if (!v || static_cast<std::int64_t>(v->data.size()) > kMaxStaticElements) continue;
      // The node becomes a Constant holding what it computes; name and output stay.
      node.clear_input();
      node.clear_attribute();
      node.clear_domain();
      node.set_op_type("Constant");
      auto* a = node.add_attribute();
      a->set_name("value");
      a->set_type(onnx::AttributeProto::TENSOR);
      *a->mutable_t() = write_tensor(*v);
      values[node.output(0)] = std::move(*v);
      ++evaluated;
    }
    report.evaluated += evaluated;
    if (evaluated == 0) break;
  }
  return report;
}

}  // namespace devplace
