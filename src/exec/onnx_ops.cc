// ONNX ops on ATen. One function per family; the table at the bottom maps op types to them.
#include "exec/onnx_ops.h"

#include <cmath>
#include <functional>
#include <limits>
#include <unordered_map>

#include <onnx/onnx_pb.h>

#include "util/error.h"

namespace devplace::exec {

namespace {

using Inputs = std::vector<at::Tensor>;
using Outputs = std::vector<at::Tensor>;

struct Ctx {
  const Op& op;
  const Inputs& in;
  const std::string& source;

  [[noreturn]] void fail(const std::string& why) const { throw Error(source, op.name, op.type + ": " + why); }
  const at::Tensor& input(std::size_t i) const {
    if (i >= in.size() || !in[i].defined()) fail("missing input #" + std::to_string(i));
    return in[i];
  }
  bool has(std::size_t i) const { return i < in.size() && in[i].defined(); }
  std::int64_t i(const std::string& k, std::int64_t fb) const { return op.attr_int(k, fb); }
  double f(const std::string& k, double fb) const {
    auto it = op.attrs.find(k);
    if (it == op.attrs.end()) return fb;
    if (auto* d = std::get_if<double>(&it->second)) return *d;
    if (auto* n = std::get_if<std::int64_t>(&it->second)) return static_cast<double>(*n);
    return fb;
  }
  std::vector<std::int64_t> ints(const std::string& k) const { return op.attr_ints(k); }
  std::string s(const std::string& k, const std::string& fb) const { return op.attr_string(k, fb); }
};

// Values of a small integer tensor (shapes, axes, pads), read on the host.
std::vector<std::int64_t> to_ints(const at::Tensor& t) {
  at::Tensor c = t.to(at::kCPU).to(at::kLong).contiguous().reshape({-1});
  const std::int64_t* p = c.data_ptr<std::int64_t>();
  return {p, p + c.numel()};
}

std::int64_t norm_axis(std::int64_t axis, std::int64_t rank, const Ctx& c) {
  if (axis < -rank || axis >= std::max<std::int64_t>(rank, 1)) c.fail("axis " + std::to_string(axis) + " out of range");
  return axis < 0 ? axis + rank : axis;
}

bool is_integral(const at::Tensor& t) { return at::isIntegralType(t.scalar_type(), /*includeBool=*/true); }

// ---- element-wise ----
Outputs unary(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const std::string& t = c.op.type;
  if (t == "Relu") return {at::relu(x)};
  if (t == "Sqrt") return {at::sqrt(x)};
  if (t == "Erf") return {at::erf(x)};
  if (t == "Exp") return {at::exp(x)};
  if (t == "Log") return {at::log(x)};
  if (t == "Neg") return {at::neg(x)};
  if (t == "Abs") return {at::abs(x)};
  if (t == "Tanh") return {at::tanh(x)};
  if (t == "Sigmoid") return {at::sigmoid(x)};
  if (t == "Reciprocal") return {at::reciprocal(x)};
  if (t == "Floor") return {at::floor(x)};
  if (t == "Ceil") return {at::ceil(x)};
  if (t == "Not") return {at::logical_not(x)};
  if (t == "Softplus") return {at::softplus(x)};
  if (t == "Gelu") return {at::gelu(x, c.s("approximate", "none"))};
  if (t == "LeakyRelu") return {at::leaky_relu(x, c.f("alpha", 0.01))};
  if (t == "Elu") return {at::elu(x, c.f("alpha", 1.0))};
  if (t == "HardSigmoid") return {at::clamp(x * c.f("alpha", 0.2) + c.f("beta", 0.5), 0.0, 1.0)};
  if (t == "Identity" || t == "Dropout") return {x};
  c.fail("not a unary op");
}

Outputs binary(const Ctx& c) {
  const at::Tensor &a = c.input(0), &b = c.input(1);
  const std::string& t = c.op.type;
  if (t == "Add") return {at::add(a, b)};
  if (t == "Sub") return {at::sub(a, b)};
  if (t == "Mul") return {at::mul(a, b)};
  if (t == "Div") return {is_integral(a) && is_integral(b) ? at::div(a, b, "trunc") : at::div(a, b)};
  if (t == "Pow") return {at::pow(a, b).to(a.scalar_type())};
  if (t == "Equal") return {at::eq(a, b)};
  if (t == "Less") return {at::lt(a, b)};
  if (t == "LessOrEqual") return {at::le(a, b)};
  if (t == "Greater") return {at::gt(a, b)};
  if (t == "GreaterOrEqual") return {at::ge(a, b)};
  if (t == "And") return {at::logical_and(a, b)};
  if (t == "Or") return {at::logical_or(a, b)};
  if (t == "Mod") return {c.i("fmod", 0) ? at::fmod(a, b) : at::remainder(a, b)};
  c.fail("not a binary op");
}

Outputs variadic(const Ctx& c) {
  at::Tensor r = c.input(0);
  for (std::size_t k = 1; k < c.in.size(); ++k) {
    const at::Tensor& x = c.input(k);
    if (c.op.type == "Max")
      r = at::maximum(r, x);
    else if (c.op.type == "Min")
      r = at::minimum(r, x);
    else
      r = at::add(r, x);  // Sum, Mean
  }
  if (c.op.type == "Mean") r = r / static_cast<double>(c.in.size());
  return {r};
}

Outputs clip(const Ctx& c) {
  at::Tensor x = c.input(0);
  if (c.has(1)) x = at::maximum(x, c.in[1].to(x.device()));
  if (c.has(2)) x = at::minimum(x, c.in[2].to(x.device()));
  return {x};
}

Outputs where(const Ctx& c) { return {at::where(c.input(0), c.input(1), c.input(2))}; }

// ---- linear algebra ----
Outputs matmul(const Ctx& c) { return {at::matmul(c.input(0), c.input(1))}; }

Outputs gemm(const Ctx& c) {
  at::Tensor a = c.input(0), b = c.input(1);
  if (c.i("transA", 0)) a = a.t();
  if (c.i("transB", 0)) b = b.t();
  const double alpha = c.f("alpha", 1.0), beta = c.f("beta", 1.0);
  if (c.has(2)) return {at::addmm(c.in[2], a, b, beta, alpha)};
  at::Tensor r = at::mm(a, b);
  return {alpha == 1.0 ? r : r * alpha};
}

// ---- convolution and pooling ----
// ONNX pads are [b1, b2, ..., e1, e2, ...]; returns begin pads, or pads the input explicitly
// (with `value`) when begin and end differ, which ATen's symmetric padding cannot express.
std::vector<std::int64_t> spatial_pads(const Ctx& c, at::Tensor& x, int spatial,
                                       const std::vector<std::int64_t>& kernel,
                                       const std::vector<std::int64_t>& strides,
                                       const std::vector<std::int64_t>& dilations, double value) {
  std::vector<std::int64_t> pads = c.ints("pads");
  const std::string auto_pad = c.s("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    pads.assign(2 * spatial, 0);
    for (int d = 0; d < spatial; ++d) {
      std::int64_t in = x.size(2 + d), out = (in + strides[d] - 1) / strides[d];
      std::int64_t total = std::max<std::int64_t>(0, (out - 1) * strides[d] + (kernel[d] - 1) * dilations[d] + 1 - in);
      std::int64_t small = total / 2, big = total - small;
      pads[d] = auto_pad == "SAME_UPPER" ? small : big;
      pads[d + spatial] = auto_pad == "SAME_UPPER" ? big : small;
    }
  } else if (auto_pad == "VALID" || pads.empty()) {
    pads.assign(2 * spatial, 0);
  }
  if (static_cast<int>(pads.size()) != 2 * spatial) c.fail("pads must have 2 x spatial rank entries");
  bool symmetric = true;
  for (int d = 0; d < spatial; ++d) symmetric &= pads[d] == pads[d + spatial];
  if (symmetric) return {pads.begin(), pads.begin() + spatial};
  std::vector<std::int64_t> torch_pads;  // last dim first
  for (int d = spatial - 1; d >= 0; --d) torch_pads.push_back(pads[d]), torch_pads.push_back(pads[d + spatial]);
  x = at::constant_pad_nd(x, torch_pads, value);
  return std::vector<std::int64_t>(spatial, 0);
}

std::vector<std::int64_t> or_ones(std::vector<std::int64_t> v, int n) {
  if (v.empty()) v.assign(n, 1);
  return v;
}

Outputs conv(const Ctx& c) {
  at::Tensor x = c.input(0);
  const at::Tensor& w = c.input(1);
  const int spatial = static_cast<int>(w.dim()) - 2;
  if (spatial < 1 || x.dim() != w.dim()) c.fail("input and weight ranks do not match");
  std::vector<std::int64_t> kernel = c.ints("kernel_shape");
  if (kernel.empty())
    for (int d = 0; d < spatial; ++d) kernel.push_back(w.size(2 + d));
  auto strides = or_ones(c.ints("strides"), spatial), dil = or_ones(c.ints("dilations"), spatial);
  auto pads = spatial_pads(c, x, spatial, kernel, strides, dil, 0.0);
  c10::optional<at::Tensor> bias;
  if (c.has(2)) bias = c.in[2];
  return {
      at::convolution(x, w, bias, strides, pads, dil, false, std::vector<std::int64_t>(spatial, 0), c.i("group", 1))};
}

Outputs pool(const Ctx& c) {
  at::Tensor x = c.input(0);
  const int spatial = static_cast<int>(x.dim()) - 2;
  const std::vector<std::int64_t> kernel = c.ints("kernel_shape");
  if (static_cast<int>(kernel.size()) != spatial) c.fail("kernel_shape must have one entry per spatial dim");
  auto strides = or_ones(c.ints("strides"), spatial), dil = or_ones(c.ints("dilations"), spatial);
  const bool ceil = c.i("ceil_mode", 0) != 0;
  if (c.op.type == "MaxPool") {
    if (c.op.outputs.size() > 1) c.fail("the Indices output is not supported");
    auto pads = spatial_pads(c, x, spatial, kernel, strides, dil, -std::numeric_limits<double>::infinity());
    if (spatial == 1) return {at::max_pool1d(x, kernel, strides, pads, dil, ceil)};
    if (spatial == 2) return {at::max_pool2d(x, kernel, strides, pads, dil, ceil)};
    if (spatial == 3) return {at::max_pool3d(x, kernel, strides, pads, dil, ceil)};
  } else {
    const bool include_pad = c.i("count_include_pad", 0) != 0;
    at::Tensor before = x;
    auto pads = spatial_pads(c, x, spatial, kernel, strides, dil, 0.0);
    if (!include_pad && !x.is_same(before)) c.fail("asymmetric pads with count_include_pad=0 are not supported");
    if (spatial == 1) return {at::avg_pool1d(x, kernel, strides, pads, ceil, include_pad)};
    if (spatial == 2) return {at::avg_pool2d(x, kernel, strides, pads, ceil, include_pad)};
    if (spatial == 3) return {at::avg_pool3d(x, kernel, strides, pads, ceil, include_pad)};
  }
  c.fail("only 1-3 spatial dims are supported");
}

Outputs global_pool(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  std::vector<std::int64_t> dims;
  for (std::int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  if (c.op.type == "GlobalMaxPool") return {at::amax(x, dims, true)};
  return {at::mean(x, dims, true)};
}

// ---- normalisation ----
Outputs softmax(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const std::int64_t axis = norm_axis(c.i("axis", -1), x.dim(), c);
  if (c.op.type == "LogSoftmax") return {at::log_softmax(x, axis)};
  return {at::softmax(x, axis)};
}

Outputs layer_norm(const Ctx& c) {
  if (c.op.outputs.size() > 1) c.fail("the Mean / InvStdDev outputs are not supported");
  const at::Tensor& x = c.input(0);
  const std::int64_t axis = norm_axis(c.i("axis", -1), x.dim(), c);
  std::vector<std::int64_t> shape(x.sizes().begin() + axis, x.sizes().end());
  c10::optional<at::Tensor> w = c.input(1), b;
  if (c.has(2)) b = c.in[2];
  return {at::layer_norm(x, shape, w, b, c.f("epsilon", 1e-5))};
}

Outputs batch_norm(const Ctx& c) {
  if (c.op.outputs.size() > 1) c.fail("training-mode outputs are not supported");
  return {at::batch_norm(c.input(0), c.input(1), c.input(2), c.input(3), c.input(4), false, 0.0, c.f("epsilon", 1e-5),
                         false)};
}

// ---- shape and data movement ----
Outputs reshape(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  std::vector<std::int64_t> shape = to_ints(c.input(1));
  if (!c.i("allowzero", 0))
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (shape[d] == 0) {
        if (static_cast<std::int64_t>(d) >= x.dim()) c.fail("0 in shape refers to a missing input dim");
        shape[d] = x.size(d);
      }
  return {x.reshape(shape)};
}

Outputs flatten(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  std::int64_t axis = c.i("axis", 1);
  if (axis < 0) axis += x.dim();
  std::int64_t outer = 1;
  for (std::int64_t d = 0; d < axis; ++d) outer *= x.size(d);
  return {x.reshape({outer, -1})};
}

Outputs transpose(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  std::vector<std::int64_t> perm = c.ints("perm");
  if (perm.empty())
    for (std::int64_t d = x.dim() - 1; d >= 0; --d) perm.push_back(d);
  // Materialised, as an ONNX runtime does, so that its cost lands on this op.
  return {x.permute(perm).contiguous()};
}

Outputs concat(const Ctx& c) {
  std::vector<at::Tensor> parts;
  for (std::size_t k = 0; k < c.in.size(); ++k) parts.push_back(c.input(k));
  return {at::cat(parts, norm_axis(c.i("axis", 0), parts[0].dim(), c))};
}

Outputs gather(const Ctx& c) {
  const at::Tensor& data = c.input(0);
  at::Tensor idx = c.input(1).to(at::kLong);
  const std::int64_t axis = norm_axis(c.i("axis", 0), data.dim(), c);
  idx = at::where(idx < 0, idx + data.size(axis), idx);
  std::vector<std::int64_t> shape(data.sizes().begin(), data.sizes().begin() + axis);
  for (auto s : idx.sizes()) shape.push_back(s);
  shape.insert(shape.end(), data.sizes().begin() + axis + 1, data.sizes().end());
  return {at::index_select(data, axis, idx.reshape({-1})).reshape(shape)};
}

std::vector<std::int64_t> axes_of(const Ctx& c, std::size_t port) {
  return c.has(port) ? to_ints(c.in[port]) : c.ints("axes");
}

Outputs unsqueeze(const Ctx& c) {
  at::Tensor x = c.input(0);
  std::vector<std::int64_t> axes = axes_of(c, 1);
  const std::int64_t rank = x.dim() + static_cast<std::int64_t>(axes.size());
  for (auto& a : axes) a = norm_axis(a, rank, c);
  std::sort(axes.begin(), axes.end());
  for (auto a : axes) x = x.unsqueeze(a);
  return {x};
}

Outputs squeeze(const Ctx& c) {
  at::Tensor x = c.input(0);
  std::vector<std::int64_t> axes = axes_of(c, 1);
  if (axes.empty()) return {x.squeeze()};
  for (auto& a : axes) a = norm_axis(a, x.dim(), c);
  std::sort(axes.rbegin(), axes.rend());
  for (auto a : axes) x = x.squeeze(a);
  return {x};
}

Outputs pad(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  std::vector<std::int64_t> pads = c.has(1) ? to_ints(c.in[1]) : c.ints("pads");
  const std::int64_t rank = x.dim();
  std::vector<std::int64_t> axes;
  if (c.has(3)) {
    axes = to_ints(c.in[3]);
    for (auto& a : axes) a = norm_axis(a, rank, c);
  } else {
    for (std::int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size()) c.fail("pads must have 2 entries per padded axis");
  std::vector<std::int64_t> begin(rank, 0), end(rank, 0);
  for (std::size_t k = 0; k < axes.size(); ++k) begin[axes[k]] = pads[k], end[axes[k]] = pads[k + axes.size()];
  std::vector<std::int64_t> torch_pads;  // last dim first
  for (std::int64_t d = rank - 1; d >= 0; --d) torch_pads.push_back(begin[d]), torch_pads.push_back(end[d]);
  const std::string mode = c.s("mode", "constant");
  if (mode == "constant") {
    double value = c.has(2) ? c.in[2].to(at::kCPU).item<double>() : 0.0;
    return {at::constant_pad_nd(x, torch_pads, value)};
  }
  // reflect / edge: ATen pads only the trailing spatial dims.
  while (torch_pads.size() > 2 && torch_pads[torch_pads.size() - 1] == 0 && torch_pads[torch_pads.size() - 2] == 0)
    torch_pads.resize(torch_pads.size() - 2);
  return {at::pad(x, torch_pads, mode == "edge" ? "replicate" : mode, c10::nullopt)};
}

Outputs cumsum(const Ctx& c) {
  at::Tensor x = c.input(0);
  const std::int64_t axis = norm_axis(to_ints(c.input(1)).at(0), x.dim(), c);
  const bool reverse = c.i("reverse", 0), exclusive = c.i("exclusive", 0);
  if (reverse) x = x.flip(axis);
  at::Tensor r = at::cumsum(x, axis);
  if (exclusive) r = r - x;
  if (reverse) r = r.flip(axis);
  return {r};
}

Outputs cast(const Ctx& c) { return {c.input(0).to(onnx_scalar_type(static_cast<int>(c.i("to", 1))))}; }

Outputs shape(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  std::int64_t rank = x.dim(), start = c.i("start", 0), end = c.i("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<std::int64_t>(start, 0, rank), end = std::clamp<std::int64_t>(end, start, rank);
  std::vector<std::int64_t> dims(x.sizes().begin() + start, x.sizes().begin() + end);
  return {at::tensor(dims, at::kLong).to(x.device())};
}

Outputs size(const Ctx& c) { return {at::scalar_tensor(c.input(0).numel(), at::kLong).to(c.input(0).device())}; }

Outputs slice(const Ctx& c) {
  at::Tensor x = c.input(0);
  std::vector<std::int64_t> starts = to_ints(c.input(1)), ends = to_ints(c.input(2));
  std::vector<std::int64_t> axes, steps;
  if (c.has(3))
    axes = to_ints(c.in[3]);
  else
    for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
  if (c.has(4))
    steps = to_ints(c.in[4]);
  else
    steps.assign(starts.size(), 1);
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const std::int64_t a = norm_axis(axes[k], x.dim(), c), n = x.size(a), step = steps[k];
    auto clampi = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) {
      if (v < 0) v += n;
      return std::clamp(v, lo, hi);
    };
    if (step > 0) {
      std::int64_t s = clampi(starts[k], 0, n), e = clampi(ends[k], 0, n);
      x = x.slice(a, s, std::max(s, e), step);
    } else if (step < 0) {
      std::int64_t s = clampi(starts[k], -1, n - 1), e = clampi(ends[k], -1, n - 1);
      // Reverse, then slice forward: element i of the reversed axis is n-1-i.
      at::Tensor r = x.flip(a);
      std::int64_t rs = n - 1 - s, re = n - 1 - e;
      x = r.slice(a, rs, std::max(rs, re), -step);
    } else {
      c.fail("slice step 0");
    }
  }
  return {x};
}

Outputs expand(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  std::vector<std::int64_t> shape = to_ints(c.input(1));
  // ONNX Expand broadcasts both ways: the result has the broadcast of both shapes.
  const std::size_t rank = std::max<std::size_t>(shape.size(), x.dim());
  std::vector<std::int64_t> out(rank, 1);
  for (std::size_t k = 0; k < rank; ++k) {
    std::int64_t a = k + x.dim() >= rank ? x.size(k + x.dim() - rank) : 1;
    std::int64_t b = k + shape.size() >= rank ? shape[k + shape.size() - rank] : 1;
    out[k] = a == 1 ? b : a;
  }
  return {x.expand(out).contiguous()};
}

Outputs tile(const Ctx& c) { return {c.input(0).repeat(to_ints(c.input(1)))}; }

Outputs constant_of_shape(const Ctx& c) {
  return {at::zeros(to_ints(c.input(0)), at::TensorOptions().dtype(at::kFloat).device(c.input(0).device()))};
}

Outputs range(const Ctx& c) {
  const at::Tensor& s = c.input(0);
  at::Scalar start = s.to(at::kCPU).item(), limit = c.input(1).to(at::kCPU).item(),
             delta = c.input(2).to(at::kCPU).item();
  return {at::arange(start, limit, delta, at::TensorOptions().dtype(s.scalar_type()).device(s.device()))};
}

Outputs reduce(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  std::vector<std::int64_t> axes = c.op.type == "ReduceSum" || c.has(1) ? axes_of(c, 1) : c.ints("axes");
  const bool keep = c.i("keepdims", 1) != 0;
  if (axes.empty()) {
    if (c.i("noop_with_empty_axes", 0)) return {x};
    for (std::int64_t d = 0; d < x.dim(); ++d) axes.push_back(d);
  }
  for (auto& a : axes) a = norm_axis(a, x.dim(), c);
  const std::string& t = c.op.type;
  if (t == "ReduceMean") return {at::mean(x, axes, keep)};
  if (t == "ReduceSum") return {at::sum(x, axes, keep)};
  if (t == "ReduceMax") return {at::amax(x, axes, keep)};
  if (t == "ReduceMin") return {at::amin(x, axes, keep)};
  if (t == "ReduceProd") {
    at::Tensor r = x;
    std::sort(axes.rbegin(), axes.rend());
    for (auto a : axes) r = at::prod(r, a, keep);
    return {r};
  }
  c.fail("not a reduction");
}

Outputs split(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const std::int64_t axis = norm_axis(c.i("axis", 0), x.dim(), c);
  std::vector<std::int64_t> sizes = c.has(1) ? to_ints(c.in[1]) : c.ints("split");
  const std::int64_t n = static_cast<std::int64_t>(c.op.outputs.size());
  if (sizes.empty()) {
    const std::int64_t chunk = (x.size(axis) + n - 1) / n;
    for (std::int64_t k = 0, left = x.size(axis); k < n; ++k, left -= chunk) sizes.push_back(std::min(chunk, left));
  }
  auto parts = at::split_with_sizes(x, sizes, axis);
  return {parts.begin(), parts.end()};
}

using OpFn = Outputs (*)(const Ctx&);

const std::unordered_map<std::string, OpFn>& table() {
  static const std::unordered_map<std::string, OpFn> t = [] {
    std::unordered_map<std::string, OpFn> m;
    for (const char* n :
         {"Relu",  "Sqrt", "Erf", "Exp",      "Log",  "Neg",       "Abs", "Tanh",        "Sigmoid",  "Reciprocal",
          "Floor", "Ceil", "Not", "Softplus", "Gelu", "LeakyRelu", "Elu", "HardSigmoid", "Identity", "Dropout"})
      m[n] = unary;
    for (const char* n : {"Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "LessOrEqual", "Greater",
                          "GreaterOrEqual", "And", "Or", "Mod"})
      m[n] = binary;
    for (const char* n : {"Max", "Min", "Sum", "Mean"}) m[n] = variadic;
    m["Clip"] = clip;
    m["Where"] = where;
    m["MatMul"] = matmul;
    m["Gemm"] = gemm;
    m["Conv"] = conv;
    m["MaxPool"] = m["AveragePool"] = pool;
    m["GlobalAveragePool"] = m["GlobalMaxPool"] = global_pool;
    m["Softmax"] = m["LogSoftmax"] = softmax;
    m["LayerNormalization"] = layer_norm;
    m["BatchNormalization"] = batch_norm;
    m["Reshape"] = reshape;
    m["Flatten"] = flatten;
    m["Transpose"] = transpose;
    m["Concat"] = concat;
    m["Gather"] = gather;
    m["Unsqueeze"] = unsqueeze;
    m["Squeeze"] = squeeze;
    m["Pad"] = pad;
    m["CumSum"] = cumsum;
    m["Cast"] = cast;
    m["Shape"] = shape;
    m["Size"] = size;
    m["Slice"] = slice;
    m["Expand"] = expand;
    m["Tile"] = tile;
    m["ConstantOfShape"] = constant_of_shape;
    m["Range"] = range;
    for (const char* n : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"}) m[n] = reduce;
    m["Split"] = split;
    return m;
  }();
  return t;
}

}  // namespace

std::vector<at::Tensor> run_onnx_op(const Op& op, const std::vector<at::Tensor>& inputs, const std::string& source) {
  auto it = table().find(op.type);
  if (it == table().end())
    throw Error(
        source, op.name,
        "op type '" + op.type + "' is not supported by the executor (docs/execution.md lists the supported ops)");
  Ctx c{op, inputs, source};
  Outputs out = it->second(c);
  if (out.size() < op.outputs.size())
    c.fail("produced " + std::to_string(out.size()) + " outputs, the graph expects " +
           std::to_string(op.outputs.size()));
  out.resize(op.outputs.size());
  return out;
}

const std::vector<std::string>& supported_onnx_ops() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (auto& [k, f] : table()) v.push_back(k);
    v.push_back("Constant");
    std::sort(v.begin(), v.end());
    return v;
  }();
  return names;
}

at::ScalarType onnx_scalar_type(int t) {
  switch (t) {
    case onnx::TensorProto::FLOAT:
      return at::kFloat;
    case onnx::TensorProto::UINT8:
      return at::kByte;
    case onnx::TensorProto::INT8:
      return at::kChar;
    case onnx::TensorProto::INT16:
      return at::kShort;
    case onnx::TensorProto::INT32:
      return at::kInt;
    case onnx::TensorProto::INT64:
      return at::kLong;
    case onnx::TensorProto::BOOL:
      return at::kBool;
    case onnx::TensorProto::FLOAT16:
      return at::kHalf;
    case onnx::TensorProto::DOUBLE:
      return at::kDouble;
    case onnx::TensorProto::BFLOAT16:
      return at::kBFloat16;
    default:
      throw Error("", "", "ONNX data type " + std::to_string(t) + " is not supported by the executor");
  }
}

at::Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& source) {
  std::vector<std::int64_t> dims(p.dims().begin(), p.dims().end());
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  const at::ScalarType st = onnx_scalar_type(p.data_type());
  at::TensorOptions o = at::TensorOptions().dtype(st);
  if (p.data_location() == onnx::TensorProto::EXTERNAL) return {};
  if (!p.raw_data().empty()) {
    const std::size_t want = static_cast<std::size_t>(n) * at::elementSize(st);
    if (p.raw_data().size() != want)
      throw Error(source, p.name(),
                  "raw_data has " + std::to_string(p.raw_data().size()) + " bytes, dims say " + std::to_string(want));
    at::Tensor t = at::empty(dims, o);
    std::memcpy(t.data_ptr(), p.raw_data().data(), want);
    return t;
  }
  auto typed = [&](auto values, at::ScalarType src) -> at::Tensor {
    if (static_cast<std::int64_t>(values.size()) != n) return {};
    using V = typename decltype(values)::value_type;
    std::vector<V> v(values.begin(), values.end());
    return at::tensor(at::ArrayRef<V>(v), at::TensorOptions().dtype(src)).reshape(dims).to(st);
  };
  if (p.float_data_size()) return typed(p.float_data(), at::kFloat);
  if (p.int64_data_size()) return typed(p.int64_data(), at::kLong);
  if (p.double_data_size()) return typed(p.double_data(), at::kDouble);
  if (p.int32_data_size()) return typed(p.int32_data(), at::kInt);
  return {};
}

}  // namespace devplace::exec
