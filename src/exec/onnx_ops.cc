// ONNX ops on ATen. One function per family; the table at the bottom maps op types to them.
#include "exec/onnx_ops.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <unordered_map>

#include <onnx/onnx_pb.h>

#include "exec/cpu_kernels.h"
#include "util/error.h"

namespace devplace::exec {

namespace {

using Inputs = std::vector<at::Tensor>;
using Outputs = std::vector<at::Tensor>;

struct Ctx {
  const Op& op;
  const Inputs& in;
  const std::string& source;
  const OpContext& context;
  mutable std::unique_ptr<CpuKernels> own_kernels;

  bool overwrite_input0() const { return context.overwrite_input0; }
  // Input i is a weight the caller's kernels may lay out once.
  bool constant(std::size_t i) const {
    return context.kernels && i < 64 && ((context.constant_inputs >> i) & 1) != 0;
  }
  CpuKernels& kernels() const {
    if (context.kernels) return *context.kernels;
    if (!own_kernels) own_kernels = std::make_unique<CpuKernels>();
    return *own_kernels;
  }

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
  if (c.overwrite_input0() && at::isFloatingType(x.scalar_type())) {
    at::Tensor y = x;  // the same storage: the caller gave it up
    if (t == "Relu") return {y.relu_()};
    if (t == "Sigmoid") return {y.sigmoid_()};
    if (t == "Tanh") return {y.tanh_()};
    if (t == "Erf") return {y.erf_()};
  }
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
  if (t == "Identity") return {x};
  if (t == "Sin") return {at::sin(x)};
  if (t == "Cos") return {at::cos(x)};
  if (t == "Tan") return {at::tan(x)};
  if (t == "Asin") return {at::asin(x)};
  if (t == "Acos") return {at::acos(x)};
  if (t == "Atan") return {at::atan(x)};
  if (t == "Sinh") return {at::sinh(x)};
  if (t == "Cosh") return {at::cosh(x)};
  if (t == "Asinh") return {at::asinh(x)};
  if (t == "Acosh") return {at::acosh(x)};
  if (t == "Atanh") return {at::atanh(x)};
  if (t == "Sign") return {at::sign(x)};
  if (t == "Round") return {at::round(x)};  // half to even, as ONNX
  if (t == "IsNaN") return {at::isnan(x)};
  if (t == "IsInf") {
    const bool neg = c.i("detect_negative", 1) != 0, pos = c.i("detect_positive", 1) != 0;
    return {neg && pos ? at::isinf(x) : neg ? at::isneginf(x) : pos ? at::isposinf(x) : at::zeros_like(x, at::kBool)};
  }
  if (t == "Softsign") return {x / (1 + at::abs(x))};
  if (t == "HardSwish") return {x * at::clamp(x / 6 + 0.5, 0.0, 1.0)};
  if (t == "Selu") {
    const double alpha = c.f("alpha", 1.67326319217681884765625), gamma = c.f("gamma", 1.05070102214813232421875);
    return {gamma * at::where(x > 0, x, alpha * (at::exp(x) - 1))};
  }
  if (t == "Celu") {
    const double alpha = c.f("alpha", 1.0);
    return {at::clamp_min(x, 0) + at::clamp_max(alpha * (at::exp(x / alpha) - 1), 0)};
  }
  if (t == "ThresholdedRelu") return {at::where(x > c.f("alpha", 1.0), x, at::zeros_like(x))};
  if (t == "Shrink") {
    const double bias = c.f("bias", 0.0), lambd = c.f("lambd", 0.5);
    return {at::where(x < -lambd, x + bias, at::where(x > lambd, x - bias, at::zeros_like(x))).to(x.scalar_type())};
  }
  c.fail("not a unary op");
}

// Inference: the input unchanged and an all-true mask. Training mode with a ratio above 0 draws
// random numbers no other runtime would draw the same, so it is refused rather than guessed.
Outputs dropout(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const bool training = c.has(2) && c.in[2].to(at::kCPU).item<bool>();
  const double ratio = c.has(1) ? c.in[1].to(at::kCPU).item<double>() : c.f("ratio", 0.5);
  if (training && ratio > 0) c.fail("training mode (random masks) is not supported");
  return {x, at::ones(x.sizes(), x.options().dtype(at::kBool))};
}

Outputs binary(const Ctx& c) {
  const at::Tensor &a = c.input(0), &b = c.input(1);
  const std::string& t = c.op.type;
  // In place when the result has a's shape and type (b broadcasts into it).
  if (c.overwrite_input0() && at::isFloatingType(a.scalar_type()) && a.scalar_type() == b.scalar_type() &&
      a.device() == b.device() && a.sizes() == at::infer_size(a.sizes(), b.sizes()) &&
      a.is_non_overlapping_and_dense()) {
    at::Tensor y = a;
    if (t == "Add") return {y.add_(b)};
    if (t == "Sub") return {y.sub_(b)};
    if (t == "Mul") return {y.mul_(b)};
    if (t == "Div") return {y.div_(b)};
  }
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
  if (t == "Xor") return {at::logical_xor(a, b)};
  if (t == "PRelu") {
    // Before opset 7 a 1-D slope of the channel count applied per channel (as PyTorch exported it).
    const bool per_channel = b.dim() == 1 && a.dim() > 2 && b.size(0) == a.size(1) && b.size(0) != a.size(-1);
    std::vector<std::int64_t> shape(static_cast<std::size_t>(a.dim() - 1), 1);
    shape[0] = -1;
    return {at::where(a < 0, a * (per_channel ? b.reshape(shape) : b), a)};
  }
  if (t == "BitShift")
    return {c.s("direction", "") == "LEFT" ? at::bitwise_left_shift(a, b) : at::bitwise_right_shift(a, b)};
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
  // Before opset 11 the bounds were attributes.
  if (c.op.attrs.count("min")) x = at::clamp_min(x, c.f("min", 0));
  if (c.op.attrs.count("max")) x = at::clamp_max(x, c.f("max", 0));
  return {x};
}

Outputs where(const Ctx& c) { return {at::where(c.input(0), c.input(1), c.input(2))}; }

// ---- linear algebra ----
Outputs matmul(const Ctx& c) { return {c.kernels().matmul(c.input(0), c.input(1), {}, c.constant(1))}; }

Outputs gemm(const Ctx& c) {
  at::Tensor a = c.input(0), b = c.input(1);
  if (c.i("transA", 0)) a = a.t();
  if (c.i("transB", 0)) b = b.t();
  const double alpha = c.f("alpha", 1.0), beta = c.f("beta", 1.0);
  if (a.dim() != 2 || b.dim() != 2) c.fail("A and B must be matrices");
  // The common case, a bias over the output columns, is added by the product itself.
  const bool row_bias = c.has(2) && beta == 1.0 && alpha == 1.0 &&
                        (c.in[2].dim() == 1 || (c.in[2].dim() == 2 && c.in[2].size(0) == 1)) &&
                        c.in[2].numel() == b.size(1);
  if (row_bias) return {c.kernels().matmul(a, b, c.in[2].reshape({-1}), c.constant(1))};
  at::Tensor r = c.kernels().matmul(a, b, {}, c.constant(1));
  if (alpha != 1.0) r.mul_(alpha);
  if (c.has(2)) r = r + (beta == 1.0 ? c.in[2] : c.in[2] * beta);
  return {r};
}

// ---- convolution and pooling ----
// ONNX pads are [b1, b2, ..., e1, e2, ...]; returns begin pads, or pads the input explicitly
// (with `value`) when begin and end differ, which ATen's symmetric padding cannot express, and
// then sets *applied to the pads used (ATen's order: last dim first, begin then end).
std::vector<std::int64_t> spatial_pads(const Ctx& c, at::Tensor& x, int spatial,
                                       const std::vector<std::int64_t>& kernel,
                                       const std::vector<std::int64_t>& strides,
                                       const std::vector<std::int64_t>& dilations, double value,
                                       std::vector<std::int64_t>* applied = nullptr) {
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
  // ATen pads symmetrically, and (pooling) at most half the dilated kernel on each side.
  bool symmetric = true;
  for (int d = 0; d < spatial; ++d)
    symmetric &= pads[d] == pads[d + spatial] && 2 * pads[d] <= (kernel[d] - 1) * dilations[d] + 1;
  if (symmetric) return {pads.begin(), pads.begin() + spatial};
  std::vector<std::int64_t> torch_pads;  // last dim first
  for (int d = spatial - 1; d >= 0; --d) torch_pads.push_back(pads[d]), torch_pads.push_back(pads[d + spatial]);
  x = at::constant_pad_nd(x, torch_pads, value);
  if (applied) *applied = torch_pads;
  return std::vector<std::int64_t>(spatial, 0);
}

std::vector<std::int64_t> or_ones(std::vector<std::int64_t> v, int n) {
  if (v.empty()) v.assign(n, 1);
  return v;
}

// How a Conv runs on float CPU tensors: unpadded, undilated 1x1 convolutions as one matrix
// product over the channels-last input; every other ungrouped 2-D one as oneDNN's direct
// convolution (CpuKernels::conv2d); the rest (grouped, 1-D, 3-D) through at::convolution.
enum class ConvKernel { aten, direct, product };

ConvKernel conv_kernel(const Op& op, at::IntArrayRef x, at::IntArrayRef w) {
  if (x.size() != 4 || w.size() != 4 || op.attr_int("group", 1) != 1) return ConvKernel::aten;
  const std::vector<std::int64_t> pads = op.attr_ints("pads"), dilations = op.attr_ints("dilations");
  const std::string auto_pad = op.attr_string("auto_pad", "NOTSET");
  const bool unpadded = auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
                        std::all_of(pads.begin(), pads.end(), [](std::int64_t p) { return p == 0; });
  const bool undilated = std::all_of(dilations.begin(), dilations.end(), [](std::int64_t d) { return d == 1; });
  return w[2] == 1 && w[3] == 1 && unpadded && undilated ? ConvKernel::product : ConvKernel::direct;
}

Outputs conv(const Ctx& c) {
  at::Tensor x = c.input(0);
  at::Tensor w = c.input(1);
  const int spatial = static_cast<int>(w.dim()) - 2;
  if (spatial < 1 || x.dim() != w.dim()) c.fail("input and weight ranks do not match");
  std::vector<std::int64_t> kernel = c.ints("kernel_shape");
  if (kernel.empty())
    for (int d = 0; d < spatial; ++d) kernel.push_back(w.size(2 + d));
  auto strides = or_ones(c.ints("strides"), spatial), dil = or_ones(c.ints("dilations"), spatial);
  auto pads = spatial_pads(c, x, spatial, kernel, strides, dil, 0.0);
  c10::optional<at::Tensor> bias;
  if (c.has(2)) bias = c.in[2];
  const bool cpu_float = x.is_cpu() && x.scalar_type() == at::kFloat && w.scalar_type() == at::kFloat;
  const ConvKernel k = cpu_float ? conv_kernel(c.op, x.sizes(), w.sizes()) : ConvKernel::aten;
  // A weight is laid out for the kernel once when it is constant and the caller keeps kernels.
  const bool w_constant = c.constant(1);
  if (k == ConvKernel::direct) return {c.kernels().conv2d(x, w, bias, strides, pads, dil, w_constant)};
  if (k == ConvKernel::product) {
    // [N H W, C] x [C, Cout] on the channels-last input, the bias added by the product.
    if (strides[0] > 1 || strides[1] > 1) x = x.slice(2, 0, x.size(2), strides[0]).slice(3, 0, x.size(3), strides[1]);
    x = x.contiguous(at::MemoryFormat::ChannelsLast);
    const std::int64_t n = x.size(0), h = x.size(2), wd = x.size(3), out_channels = w.size(0);
    const at::Tensor rows = x.permute({0, 2, 3, 1}).reshape({n * h * wd, x.size(1)});
    const at::Tensor y = c.kernels().matmul(rows, w.reshape({out_channels, -1}).t(), bias, w_constant);
    return {y.reshape({n, h, wd, out_channels}).permute({0, 3, 1, 2})};
  }
  return {
      at::convolution(x, w, bias, strides, pads, dil, false, std::vector<std::int64_t>(spatial, 0), c.i("group", 1))};
}

// Pooling that CpuKernels::pool2d runs: 2-D float CPU, undilated, output size rounded down,
// the same pads on both sides.
bool on_cpu_kernels(const at::Tensor& x, int spatial, const std::vector<std::int64_t>& dilations, bool ceil,
                    const std::vector<std::int64_t>& applied) {
  return spatial == 2 && x.is_cpu() && x.scalar_type() == at::kFloat && !ceil && applied.empty() &&
         std::all_of(dilations.begin(), dilations.end(), [](std::int64_t d) { return d == 1; });
}

Outputs pool(const Ctx& c) {
  at::Tensor x = c.input(0);
  const int spatial = static_cast<int>(x.dim()) - 2;
  const std::vector<std::int64_t> kernel = c.ints("kernel_shape");
  if (static_cast<int>(kernel.size()) != spatial) c.fail("kernel_shape must have one entry per spatial dim");
  auto strides = or_ones(c.ints("strides"), spatial), dil = or_ones(c.ints("dilations"), spatial);
  const bool ceil = c.i("ceil_mode", 0) != 0;
  if (spatial < 1 || spatial > 3) c.fail("only 1-3 spatial dims are supported");
  std::vector<std::int64_t> applied;  // pads put on x explicitly, if any
  if (c.op.type == "MaxPool") {
    const at::ScalarType type = x.scalar_type();
    if (!at::isFloatingType(type)) x = x.to(at::kFloat);  // ATen max-pools floats only; exact for 8/16-bit
    auto pads = spatial_pads(c, x, spatial, kernel, strides, dil, -std::numeric_limits<double>::infinity(), &applied);
    if (c.op.outputs.size() > 1) {
      if (spatial != 2 || !applied.empty())
        c.fail("the Indices output is supported for 2-D pooling with ATen's symmetric padding only");
      auto [values, plane_index] = at::max_pool2d_with_indices(x, kernel, strides, pads, dil, ceil);
      const std::int64_t height = x.size(2), width = x.size(3);
      // ATen counts row-major within each (n, c) plane; ONNX across the whole tensor, and
      // column-major within the plane with storage_order=1.
      if (c.i("storage_order", 0) != 0)
        plane_index = at::div(plane_index, width, "floor") + at::remainder(plane_index, width) * height;
      at::Tensor plane_start =
          at::arange(x.size(0) * x.size(1), plane_index.options()).reshape({x.size(0), x.size(1), 1, 1});
      return {values.to(type), plane_index + plane_start * (height * width)};
    }
    if (on_cpu_kernels(x, spatial, dil, ceil, applied))
      return {c.kernels().pool2d(x, true, kernel, strides, pads, false).to(type)};
    // ATen's NCHW pooling is 5-10x slower than its channels-last one on one core (docs/design/execution.md).
    if (spatial == 2 && x.is_cpu()) x = x.contiguous(at::MemoryFormat::ChannelsLast);
    at::Tensor r = spatial == 1   ? at::max_pool1d(x, kernel, strides, pads, dil, ceil)
                   : spatial == 2 ? at::max_pool2d(x, kernel, strides, pads, dil, ceil)
                                  : at::max_pool3d(x, kernel, strides, pads, dil, ceil);
    return {r.to(type)};
  }
  if (!c.context.folded_pads.empty()) {  // a Pad folded in (folded_pad_pads)
    const at::IntArrayRef p = c.context.folded_pads;
    if (on_cpu_kernels(x, spatial, dil, ceil, {})) return {c.kernels().pool2d(x, false, kernel, strides, p, true)};
    x = at::constant_pad_nd(x, {p[1], p[1], p[0], p[0]}, 0.0);
  }
  const bool include_pad = c.i("count_include_pad", 0) != 0;
  auto avg = [&](const at::Tensor& v, const std::vector<std::int64_t>& pads) {
    if (spatial == 1) return at::avg_pool1d(v, kernel, strides, pads, ceil, include_pad);
    if (spatial == 2) return at::avg_pool2d(v, kernel, strides, pads, ceil, include_pad);
    return at::avg_pool3d(v, kernel, strides, pads, ceil, include_pad);
  };
  if (spatial == 2 && x.is_cpu() && at::isFloatingType(x.scalar_type()))
    x = x.contiguous(at::MemoryFormat::ChannelsLast);
  std::vector<std::int64_t> mask_shape = {1, 1};
  for (int d = 0; d < spatial; ++d) mask_shape.push_back(x.size(2 + d));
  auto pads = spatial_pads(c, x, spatial, kernel, strides, dil, 0.0, &applied);
  if (on_cpu_kernels(x, spatial, dil, ceil, applied)) return {c.kernels().pool2d(x, false, kernel, strides, pads, include_pad)};
  if (include_pad || applied.empty()) return {avg(x, pads)};
  // Padded explicitly, but the pads must not count: the window means over the zero-padded input
  // divided by those of a mask that is 1 on the input and 0 on the pads.
  const at::Tensor mask = at::constant_pad_nd(at::ones(mask_shape, x.options()), applied, 0.0);
  return {avg(x, pads) / avg(mask, pads)};
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
  const at::Tensor& x = c.input(0);
  const std::int64_t axis = norm_axis(c.i("axis", -1), x.dim(), c);
  std::vector<std::int64_t> shape(x.sizes().begin() + axis, x.sizes().end());
  c10::optional<at::Tensor> w = c.input(1), b;
  if (c.has(2)) b = c.in[2];
  const double eps = c.f("epsilon", 1e-5);
  if (c.op.outputs.size() == 1) return {at::layer_norm(x, shape, w, b, eps)};
  // With Mean and InvStdDev (float, the normalised dims kept as 1): ATen's own statistics.
  auto [y, mean, rstd] = at::native_layer_norm(x, shape, w, b, eps);
  return {y, mean, rstd};
}

Outputs batch_norm(const Ctx& c) {
  const at::Tensor &x = c.input(0), &scale = c.input(1), &bias = c.input(2), &mean = c.input(3), &var = c.input(4);
  const double eps = c.f("epsilon", 1e-5);
  if (!c.i("training_mode", 0)) return {at::batch_norm(x, scale, bias, mean, var, false, 0.0, eps, false)};
  // Training mode: normalise with the batch's statistics (biased variance) and return the
  // running ones, input * momentum + batch * (1 - momentum).
  std::vector<std::int64_t> dims = {0}, shape(static_cast<std::size_t>(x.dim()), 1);
  for (std::int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  shape[1] = x.size(1);
  const at::Tensor batch_mean = x.mean(dims), batch_var = x.var(dims, /*unbiased=*/false);
  const at::Tensor y =
      (x - batch_mean.reshape(shape)) / at::sqrt(batch_var.reshape(shape) + eps) * scale.reshape(shape) +
      bias.reshape(shape);
  const double m = c.f("momentum", 0.9);
  return {y, mean * m + batch_mean * (1 - m), var * m + batch_var * (1 - m)};
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

// Negative indices count from the end of `axis`.
at::Tensor wrap_index(const at::Tensor& index, std::int64_t size) {
  at::Tensor i = index.to(at::kLong);
  return at::where(i < 0, i + size, i);
}

Outputs gather(const Ctx& c) {
  const at::Tensor& data = c.input(0);
  const std::int64_t axis = norm_axis(c.i("axis", 0), data.dim(), c);
  const at::Tensor idx = wrap_index(c.input(1), data.size(axis));
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
    // The value is input 2 since opset 11, an attribute before.
    double value = c.has(2) ? c.in[2].to(at::kCPU).item<double>() : c.f("value", 0.0);
    const bool growing = std::all_of(begin.begin(), begin.end(), [](std::int64_t p) { return p >= 0; }) &&
                         std::all_of(end.begin(), end.end(), [](std::int64_t p) { return p >= 0; });
    if (!growing || x.is_contiguous()) return {at::constant_pad_nd(x, torch_pads, value)};
    // A channels-last input (ATen pads it 50x slower than a contiguous one): the filled output in
    // the input's layout, the input copied into its interior.
    std::vector<std::int64_t> shape(x.sizes().begin(), x.sizes().end());
    for (std::int64_t d = 0; d < rank; ++d) shape[d] += begin[d] + end[d];
    at::Tensor y = at::full(shape, value, x.options().memory_format(x.suggest_memory_format()));
    at::Tensor inside = y;
    for (std::int64_t d = 0; d < rank; ++d) inside = inside.narrow(d, begin[d], x.size(d));
    inside.copy_(x);
    return {y};
  }
  // reflect / edge: ATen pads only the trailing spatial dims, and floats only.
  while (torch_pads.size() > 2 && torch_pads[torch_pads.size() - 1] == 0 && torch_pads[torch_pads.size() - 2] == 0)
    torch_pads.resize(torch_pads.size() - 2);
  const bool integral = is_integral(x);
  at::Tensor r =
      at::pad(integral ? x.to(at::kDouble) : x, torch_pads, mode == "edge" ? "replicate" : mode, c10::nullopt);
  return {integral ? r.to(x.scalar_type()) : r};
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
  // Before opset 10 starts, ends and axes were attributes.
  const bool attrs = !c.has(1) && c.op.attrs.count("starts");
  std::vector<std::int64_t> starts = attrs ? c.ints("starts") : to_ints(c.input(1));
  std::vector<std::int64_t> ends = attrs ? c.ints("ends") : to_ints(c.input(2));
  std::vector<std::int64_t> axes, steps;
  if (c.has(3))
    axes = to_ints(c.in[3]);
  else if (attrs && c.op.attrs.count("axes"))
    axes = c.ints("axes");
  else
    for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
  if (ends.size() != starts.size() || axes.size() != starts.size()) c.fail("starts, ends and axes differ in length");
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

// The executor passes the `value` attribute (a one-element tensor) as input 1; float 0 without it.
Outputs constant_of_shape(const Ctx& c) {
  const at::TensorOptions on = at::TensorOptions().device(c.input(0).device());
  if (!c.has(1)) return {at::zeros(to_ints(c.input(0)), on.dtype(at::kFloat))};
  const at::Tensor& value = c.in[1];
  return {at::full(to_ints(c.input(0)), value.reshape({-1})[0].item(), on.dtype(value.scalar_type()))};
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
  if (t == "ReduceL1") return {at::sum(at::abs(x), axes, keep)};
  if (t == "ReduceL2") return {at::sqrt(at::sum(x * x, axes, keep)).to(x.scalar_type())};
  if (t == "ReduceSumSquare") return {at::sum(x * x, axes, keep)};
  if (t == "ReduceLogSum") return {at::log(at::sum(x, axes, keep))};
  if (t == "ReduceLogSumExp") return {at::logsumexp(x, axes, keep)};
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

Outputs cast_like(const Ctx& c) { return {c.input(0).to(c.input(1).scalar_type())}; }

Outputs arg_extreme(const Ctx& c) {
  at::Tensor x = c.input(0);
  const std::int64_t axis = norm_axis(c.i("axis", 0), x.dim(), c);
  const bool keep = c.i("keepdims", 1) != 0, last = c.i("select_last_index", 0) != 0;
  if (last) x = x.flip(axis);
  at::Tensor r = c.op.type == "ArgMax" ? at::argmax(x, axis, keep) : at::argmin(x, axis, keep);
  return {last ? x.size(axis) - 1 - r : r};
}

Outputs hardmax(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const std::int64_t axis = norm_axis(c.i("axis", -1), x.dim(), c);
  return {at::zeros_like(x).scatter(axis, at::argmax(x, axis, true), 1.0)};
}

Outputs trilu(const Ctx& c) {
  const std::int64_t k = c.has(1) ? to_ints(c.in[1]).at(0) : 0;
  return {c.i("upper", 1) ? at::triu(c.input(0), k) : at::tril(c.input(0), k)};
}

Outputs gather_elements(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const std::int64_t axis = norm_axis(c.i("axis", 0), x.dim(), c);
  return {at::gather(x, axis, wrap_index(c.input(1), x.size(axis)))};
}

Outputs scatter_elements(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const std::int64_t axis = norm_axis(c.i("axis", 0), x.dim(), c);
  const at::Tensor index = wrap_index(c.input(1), x.size(axis));
  const std::string reduction = c.s("reduction", "none");
  if (reduction == "add") return {at::scatter_add(x, axis, index, c.input(2))};
  if (reduction == "mul") return {at::scatter(x, axis, index, c.input(2), "multiply")};
  if (reduction != "none") c.fail("reduction '" + reduction + "' is not supported");
  return {at::scatter(x, axis, index, c.input(2))};
}

// The index tensors of the last dim of a GatherND / ScatterND index, one per indexed dim.
c10::List<c10::optional<at::Tensor>> nd_index(const Ctx& c, const at::Tensor& data, const at::Tensor& index) {
  const std::int64_t k = index.size(-1);
  if (k > data.dim()) c.fail("the index's last dim exceeds the data's rank");
  c10::List<c10::optional<at::Tensor>> parts;
  for (std::int64_t j = 0; j < k; ++j) parts.push_back(wrap_index(index.select(-1, j), data.size(j)));
  return parts;
}

Outputs gather_nd(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const at::Tensor& index = c.input(1);
  const std::int64_t batch = c.i("batch_dims", 0);
  if (batch < 0 || batch >= std::min<std::int64_t>(x.dim(), index.dim())) c.fail("batch_dims out of range");
  if (batch == 0) return {at::index(x, nd_index(c, x, index))};
  // The leading batch dims flattened into one, gathered batch by batch.
  const at::Tensor xb = x.flatten(0, batch - 1), ib = index.flatten(0, batch - 1);
  std::vector<at::Tensor> parts;
  for (std::int64_t b = 0; b < xb.size(0); ++b) parts.push_back(at::index(xb[b], nd_index(c, xb[b], ib[b])));
  std::vector<std::int64_t> shape(x.sizes().begin(), x.sizes().begin() + batch);
  const at::Tensor r = at::stack(parts);
  shape.insert(shape.end(), r.sizes().begin() + 1, r.sizes().end());
  return {r.reshape(shape)};
}

Outputs scatter_nd(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const at::Tensor &index = c.input(1), &updates = c.input(2);
  const std::string reduction = c.s("reduction", "none");
  if (reduction == "none" || reduction == "add")
    return {at::index_put(x, nd_index(c, x, index), updates, reduction == "add")};
  if (reduction != "mul" && reduction != "max" && reduction != "min")
    c.fail("reduction '" + reduction + "' is not supported");
  // One index row at a time, so that repeated indices combine in order.
  at::Tensor r = x.clone();
  const at::Tensor rows = index.reshape({-1, index.size(-1)}).to(at::kCPU).to(at::kLong);
  const at::Tensor values = updates.reshape({rows.size(0), -1});
  for (std::int64_t k = 0; k < rows.size(0); ++k) {
    at::Tensor target = r;
    for (std::int64_t j = 0; j < rows.size(1); ++j) {
      std::int64_t i = rows[k][j].item<std::int64_t>();
      target = target.select(0, i < 0 ? i + target.size(0) : i);
    }
    const at::Tensor u = values[k].reshape(target.sizes());
    target.copy_(reduction == "mul"   ? target * u
                 : reduction == "max" ? at::maximum(target, u)
                                      : at::minimum(target, u));
  }
  return {r};
}

Outputs eye_like(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const at::ScalarType type =
      c.op.attrs.count("dtype") ? onnx_scalar_type(static_cast<int>(c.i("dtype", 1))) : x.scalar_type();
  at::Tensor r = at::zeros(x.sizes(), x.options().dtype(type));
  r.diagonal(c.i("k", 0)).fill_(1);
  return {r};
}

Outputs depth_space(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const std::int64_t b = c.i("blocksize", 0);
  if (x.dim() != 4 || b < 1) c.fail("needs a 4-D input and a positive blocksize");
  const std::int64_t n = x.size(0), ch = x.size(1), h = x.size(2), w = x.size(3);
  if (c.op.type == "SpaceToDepth")
    return {x.reshape({n, ch, h / b, b, w / b, b}).permute({0, 3, 5, 1, 2, 4}).reshape({n, ch * b * b, h / b, w / b})};
  if (c.s("mode", "DCR") == "DCR")
    return {
        x.reshape({n, b, b, ch / (b * b), h, w}).permute({0, 3, 4, 1, 5, 2}).reshape({n, ch / (b * b), h * b, w * b})};
  return {
      x.reshape({n, ch / (b * b), b, b, h, w}).permute({0, 1, 4, 2, 5, 3}).reshape({n, ch / (b * b), h * b, w * b})};
}

Outputs instance_norm(const Ctx& c) {
  return {at::instance_norm(c.input(0), c.input(1), c.input(2), {}, {}, true, 0.0, c.f("epsilon", 1e-5), false)};
}

// Local response normalisation across channels: x / (bias + alpha / size * sum of squares over a
// window of `size` channels)^beta, the window floor((size-1)/2) before and ceil((size-1)/2) after.
Outputs lrn(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const std::int64_t size = c.i("size", 0);
  if (x.dim() < 3 || size < 1) c.fail("needs an input of rank 3 or more and a positive size");
  at::Tensor sq = (x * x).reshape({x.size(0), 1, x.size(1), -1, 1});
  sq = at::constant_pad_nd(sq, {0, 0, 0, 0, (size - 1) / 2, size / 2}, 0.0);
  const at::Tensor sums = at::avg_pool3d(sq, {size, 1, 1}, {1, 1, 1}) * static_cast<double>(size);
  const at::Tensor denom =
      at::pow(c.f("bias", 1.0) + c.f("alpha", 1e-4) / size * sums.reshape(x.sizes()), c.f("beta", 0.75));
  return {x / denom};
}

Outputs top_k(const Ctx& c) {
  const at::Tensor& x = c.input(0);
  const std::int64_t axis = norm_axis(c.i("axis", -1), x.dim(), c);
  auto [values, indices] = at::topk(x, to_ints(c.input(1)).at(0), axis, c.i("largest", 1) != 0, c.i("sorted", 1) != 0);
  return {values, indices};
}

Outputs one_hot(const Ctx& c) {
  const at::Tensor& index = c.input(0);
  const at::Tensor& values = c.input(2);
  const std::int64_t depth = static_cast<std::int64_t>(c.input(1).to(at::kCPU).to(at::kDouble).item<double>());
  const std::int64_t axis = norm_axis(c.i("axis", -1), index.dim() + 1, c);
  const at::Tensor i = wrap_index(index, depth).unsqueeze(axis);
  std::vector<std::int64_t> shape(static_cast<std::size_t>(index.dim() + 1), 1);
  shape[static_cast<std::size_t>(axis)] = depth;
  const at::Tensor hot = i == at::arange(depth, i.options()).reshape(shape);
  return {at::where(hot, values[1], values[0])};
}

Outputs einsum(const Ctx& c) {
  std::vector<at::Tensor> parts;
  for (std::size_t k = 0; k < c.in.size(); ++k) parts.push_back(c.input(k));
  return {at::einsum(c.s("equation", ""), parts)};
}

Outputs non_zero(const Ctx& c) { return {at::nonzero(c.input(0)).t().contiguous()}; }

// ONNX's ConvTranspose: ATen's transposed convolution without padding, then the output window
// the pads (or output_shape / auto_pad) select, zero-extended where output_padding reaches past it.
Outputs conv_transpose(const Ctx& c) {
  const at::Tensor &x = c.input(0), &w = c.input(1);
  const int spatial = static_cast<int>(w.dim()) - 2;
  if (spatial < 1 || x.dim() != w.dim()) c.fail("input and weight ranks do not match");
  auto strides = or_ones(c.ints("strides"), spatial), dil = or_ones(c.ints("dilations"), spatial);
  std::vector<std::int64_t> out_pad = c.ints("output_padding"), pads = c.ints("pads"), shape = c.ints("output_shape");
  if (out_pad.empty()) out_pad.assign(spatial, 0);
  if (pads.empty()) pads.assign(2 * spatial, 0);
  const std::string auto_pad = c.s("auto_pad", "NOTSET");
  at::Tensor full = at::convolution(x, w, c10::nullopt, strides, std::vector<std::int64_t>(spatial, 0), dil, true,
                                    std::vector<std::int64_t>(spatial, 0), c.i("group", 1));
  std::vector<std::int64_t> begin(spatial), size(spatial);
  for (int d = 0; d < spatial; ++d) {
    const std::int64_t in = x.size(2 + d), k = w.size(2 + d);
    const std::int64_t natural = strides[d] * (in - 1) + out_pad[d] + (k - 1) * dil[d] + 1;
    if (!shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const std::int64_t want = !shape.empty() ? shape[shape.size() - spatial + d] : in * strides[d];
      const std::int64_t total = natural - want;
      // A negative total is output padding: zeros at the end.
      begin[d] = total < 0 ? 0 : auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      size[d] = want;
    } else {
      begin[d] = pads[d];
      size[d] = natural - pads[d] - pads[d + spatial];
    }
  }
  std::vector<std::int64_t> extend;  // ATen's order: last dim first
  for (int d = spatial - 1; d >= 0; --d)
    extend.push_back(0), extend.push_back(std::max<std::int64_t>(0, begin[d] + size[d] - full.size(2 + d)));
  at::Tensor y = at::constant_pad_nd(full, extend, 0.0);
  for (int d = 0; d < spatial; ++d) y = y.narrow(2 + d, begin[d], size[d]);
  if (c.has(2)) {
    std::vector<std::int64_t> b(static_cast<std::size_t>(y.dim()), 1);
    b[1] = -1;
    y = y + c.in[2].reshape(b);
  }
  return {y.contiguous()};
}

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (whose second output is the log-probabilities).
Outputs loss(const Ctx& c) {
  const bool softmax = c.op.type == "SoftmaxCrossEntropyLoss";
  const at::Tensor& scores = c.input(0);
  const at::Tensor log_prob = softmax ? at::log_softmax(scores, 1) : scores;
  const std::string reduction = c.s("reduction", "mean");
  const std::int64_t mode = reduction == "none" ? 0 : reduction == "sum" ? 2 : 1;
  if (reduction != "none" && reduction != "sum" && reduction != "mean") c.fail("unknown reduction '" + reduction + "'");
  c10::optional<at::Tensor> weight;
  if (c.has(2)) weight = c.in[2];
  // Without ignore_index every class counts: an index no target can take.
  const std::int64_t ignore =
      c.op.attrs.count("ignore_index") ? c.i("ignore_index", 0) : std::numeric_limits<std::int64_t>::min();
  at::Tensor target = c.input(1).to(at::kLong);
  at::Tensor l = at::nll_loss_nd(log_prob, target, weight, mode, ignore);
  if (!softmax) return {l};
  return {l, log_prob};
}

// ---- Resize ----
// One axis of ONNX's Resize as the reference defines it: output index o reads the source
// coordinate x given by the coordinate transformation, then the `taps` neighbours of x (edge
// values beyond the ends, or dropped and the weights renormalised with exclude_outside) with the
// mode's weights. Returns, per output index, taps (index, weight) pairs; an empty row is an output
// outside a tf_crop_and_resize box (it takes extrapolation_value).
// Upsample (opsets 7-9) is Resize with asymmetric coordinates and floor rounding.
std::string resize_ctm(const Ctx& c) {
  return c.op.type == "Upsample" ? "asymmetric" : c.s("coordinate_transformation_mode", "half_pixel");
}

std::vector<std::vector<std::pair<std::int64_t, double>>> resize_taps(const Ctx& c, std::int64_t in, std::int64_t out,
                                                                      double scale, double roi_start, double roi_end) {
  const std::string mode = c.s("mode", "nearest"), ctm = resize_ctm(c);
  const std::string nearest = c.op.type == "Upsample" ? "floor" : c.s("nearest_mode", "round_prefer_floor");
  const double a = c.f("cubic_coeff_a", -0.75);
  const bool exclude = c.i("exclude_outside", 0) != 0;
  const double out_width = scale * static_cast<double>(in);  // the reference's (fractional) output size
  const int taps = mode == "cubic" ? 4 : 2;
  std::vector<std::vector<std::pair<std::int64_t, double>>> rows(static_cast<std::size_t>(out));
  for (std::int64_t o = 0; o < out; ++o) {
    const double xo = static_cast<double>(o);
    double x = 0;
    if (ctm == "half_pixel") {
      x = (xo + 0.5) / scale - 0.5;
    } else if (ctm == "pytorch_half_pixel") {
      x = out_width > 1 ? (xo + 0.5) / scale - 0.5 : -0.5;
    } else if (ctm == "align_corners") {
      x = out_width == 1 ? 0 : xo * static_cast<double>(in - 1) / (out_width - 1);
    } else if (ctm == "asymmetric") {
      x = xo / scale;
    } else if (ctm == "tf_half_pixel_for_nn") {
      x = (xo + 0.5) / scale;
    } else if (ctm == "tf_crop_and_resize") {
      x = out_width > 1 ? roi_start * static_cast<double>(in - 1) +
                              xo * (roi_end - roi_start) * static_cast<double>(in - 1) / (out_width - 1)
                        : 0.5 * (roi_start + roi_end) * static_cast<double>(in - 1);
      if (x < 0 || x > static_cast<double>(in - 1)) continue;  // extrapolation_value
    } else {
      c.fail("coordinate_transformation_mode '" + ctm + "' is not supported");
    }
    // The window: [f - taps/2 + 1, f + taps/2] with r = x - f in (0, 1] (an integral x counts
    // as f = x - 1, r = 1, as the reference's tie rule picks).
    double f = std::floor(x), r = x - f;
    if (r == 0) f -= 1, r = 1;
    std::vector<double> w(static_cast<std::size_t>(taps));
    if (mode == "nearest") {
      bool up = false;
      if (r == 1 || nearest == "ceil")
        up = true;
      else if (nearest == "round_prefer_floor")
        up = r > 0.5;
      else if (nearest == "round_prefer_ceil")
        up = r >= 0.5;
      else if (nearest != "floor")
        c.fail("nearest_mode '" + nearest + "' is not supported");
      w = {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
    } else if (mode == "linear") {
      w = {1 - r, r};
    } else if (mode == "cubic") {
      const double p = r + 1, q = 1 - r, s = 2 - r;
      w = {((a * p - 5 * a) * p + 8 * a) * p - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
           ((a + 2) * q - (a + 3)) * q * q + 1, ((a * s - 5 * a) * s + 8 * a) * s - 4 * a};
    } else {
      c.fail("mode '" + mode + "' is not supported");
    }
    double kept = 0;
    for (int k = 0; k < taps; ++k) {
      std::int64_t i = static_cast<std::int64_t>(f) - taps / 2 + 1 + k;
      if (i < 0 || i >= in) {
        if (exclude) continue;
        i = std::clamp<std::int64_t>(i, 0, in - 1);
      }
      kept += w[static_cast<std::size_t>(k)];
      rows[static_cast<std::size_t>(o)].push_back({i, w[static_cast<std::size_t>(k)]});
    }
    if (exclude && kept != 0)
      for (auto& [i, weight] : rows[static_cast<std::size_t>(o)]) weight /= kept;
  }
  return rows;
}

Outputs resize(const Ctx& c) {
  at::Tensor x = c.input(0);
  const std::int64_t rank = x.dim();
  std::vector<double> scales, roi;
  std::vector<std::int64_t> sizes;
  auto doubles = [](const at::Tensor& t) {
    const at::Tensor v = t.to(at::kCPU).to(at::kDouble).contiguous();
    return std::vector<double>(v.data_ptr<double>(), v.data_ptr<double>() + v.numel());
  };
  if (c.op.type == "Upsample") {  // (X, scales), or the scales attribute before opset 9
    if (c.has(1)) {
      scales = doubles(c.in[1]);
    } else if (auto it = c.op.attrs.find("scales"); it != c.op.attrs.end()) {
      if (const auto* v = std::get_if<std::vector<double>>(&it->second)) scales = *v;
    }
  } else {
    if (c.has(1) && c.in[1].numel() > 0) roi = doubles(c.in[1]);
    if (c.has(2) && c.in[2].numel() > 0) scales = doubles(c.in[2]);
    if (c.has(3) && c.in[3].numel() > 0) sizes = to_ints(c.in[3]);
  }
  if (scales.empty() == sizes.empty()) c.fail("exactly one of scales and sizes must be given");
  if (static_cast<std::int64_t>(scales.size() + sizes.size()) != rank) c.fail("scales or sizes need one entry per dim");
  const bool integral = !at::isFloatingType(x.scalar_type());
  const at::ScalarType type = x.scalar_type();
  const double extrapolation = c.f("extrapolation_value", 0.0);
  for (std::int64_t d = rank - 1; d >= 0; --d) {  // innermost first, as the reference
    const std::int64_t in = x.size(d);
    const std::int64_t out = sizes.empty() ? static_cast<std::int64_t>(std::floor(in * scales[d])) : sizes[d];
    const double scale = sizes.empty() ? scales[d] : static_cast<double>(out) / static_cast<double>(in);
    const bool crop = resize_ctm(c) == "tf_crop_and_resize";
    if (out == in && scale == 1 && !crop) continue;
    const double start = roi.size() == static_cast<std::size_t>(2 * rank) ? roi[d] : 0;
    const double end = roi.size() == static_cast<std::size_t>(2 * rank) ? roi[d + rank] : 1;
    const auto rows = resize_taps(c, in, out, scale, start, end);
    if (c.s("mode", "nearest") == "nearest" && !crop) {  // a pure selection: exact for any type
      std::vector<std::int64_t> pick;
      for (const auto& row : rows)
        for (const auto& [i, weight] : row)
          if (weight == 1) pick.push_back(i);
      if (static_cast<std::int64_t>(pick.size()) == out) {
        x = at::index_select(x, d, at::tensor(pick, at::kLong).to(x.device()));
        continue;
      }
    }
    at::Tensor m = at::zeros({out, in}, at::kDouble);
    auto ma = m.accessor<double, 2>();
    std::vector<std::int64_t> outside;
    for (std::int64_t o = 0; o < out; ++o) {
      if (rows[static_cast<std::size_t>(o)].empty()) outside.push_back(o);
      for (const auto& [i, weight] : rows[static_cast<std::size_t>(o)]) ma[o][i] += weight;
    }
    at::Tensor moved = x.movedim(d, -1).to(at::kDouble);
    at::Tensor y = at::matmul(moved, m.to(x.device()).t());
    if (!outside.empty()) y.index_fill_(-1, at::tensor(outside, at::kLong).to(x.device()), extrapolation);
    x = y.movedim(-1, d);
    x = integral ? at::round(x).to(type) : x.to(type);
  }
  return {x.contiguous()};
}

using OpFn = Outputs (*)(const Ctx&);

const std::unordered_map<std::string, OpFn>& table() {
  static const std::unordered_map<std::string, OpFn> t = [] {
    std::unordered_map<std::string, OpFn> m;
    for (const char* n : {"Relu",       "Sqrt",     "Erf",
                          "Exp",        "Log",      "Neg",
                          "Abs",        "Tanh",     "Sigmoid",
                          "Reciprocal", "Floor",    "Ceil",
                          "Not",        "Softplus", "Gelu",
                          "LeakyRelu",  "Elu",      "HardSigmoid",
                          "Identity",   "Sin",      "Cos",
                          "Tan",        "Asin",     "Acos",
                          "Atan",       "Sinh",     "Cosh",
                          "Asinh",      "Acosh",    "Atanh",
                          "Sign",       "Round",    "IsNaN",
                          "IsInf",      "Softsign", "HardSwish",
                          "Selu",       "Celu",     "ThresholdedRelu",
                          "Shrink"})
      m[n] = unary;
    for (const char* n : {"Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "LessOrEqual", "Greater",
                          "GreaterOrEqual", "And", "Or", "Mod", "Xor", "PRelu", "BitShift"})
      m[n] = binary;
    m["Dropout"] = dropout;
    m["CastLike"] = cast_like;
    m["ArgMax"] = m["ArgMin"] = arg_extreme;
    m["Hardmax"] = hardmax;
    m["Trilu"] = trilu;
    m["GatherElements"] = gather_elements;
    m["ScatterElements"] = scatter_elements;
    m["GatherND"] = gather_nd;
    m["ScatterND"] = scatter_nd;
    m["EyeLike"] = eye_like;
    m["DepthToSpace"] = m["SpaceToDepth"] = depth_space;
    m["InstanceNormalization"] = instance_norm;
    m["LRN"] = lrn;
    m["TopK"] = top_k;
    m["OneHot"] = one_hot;
    m["Einsum"] = einsum;
    m["NonZero"] = non_zero;
    m["ConvTranspose"] = conv_transpose;
    m["NegativeLogLikelihoodLoss"] = m["SoftmaxCrossEntropyLoss"] = loss;
    m["Resize"] = m["Upsample"] = resize;
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
    for (const char* n : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                          "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"})
      m[n] = reduce;
    m["Split"] = split;
    return m;
  }();
  return t;
}

}  // namespace

std::vector<at::Tensor> run_onnx_op(const Op& op, const std::vector<at::Tensor>& inputs, const std::string& source,
                                    const OpContext& context) {
  auto it = table().find(op.type);
  if (it == table().end())
    throw Error(
        source, op.name,
        "op type '" + op.type + "' is not supported by the executor (docs/design/execution.md lists the supported ops)", ErrorKind::unsupported);
  Ctx c{op, inputs, source, context};
  Outputs out;
  try {
    out = it->second(c);
  } catch (const c10::Error& e) {
    // LibTorch's message without its backtrace, on the op that raised it.
    const std::string what = e.what_without_backtrace();
    c.fail(what.substr(0, what.find('\n')));
  }
  if (out.size() < op.outputs.size())
    c.fail("produced " + std::to_string(out.size()) + " outputs, the graph expects " +
           std::to_string(op.outputs.size()));
  out.resize(op.outputs.size());
  return out;
}

std::vector<std::int64_t> folded_pad_pads(const Op& pad, const std::vector<at::Tensor>& pad_inputs, const Op& pool) {
  if (pad.type != "Pad" || pool.type != "AveragePool" || pad.attr_string("mode", "constant") != "constant") return {};
  std::vector<std::int64_t> pads = pad.attr_ints("pads");
  if (pad_inputs.size() > 1) {  // pads (and value) are inputs since opset 11
    if (!pad_inputs[1].defined()) return {};
    pads = to_ints(pad_inputs[1]);
  }
  if (pad_inputs.size() > 3 && pad_inputs[3].defined()) return {};  // axes
  if (pad_inputs.size() > 2 && pad_inputs[2].defined() && pad_inputs[2].to(at::kCPU).item<double>() != 0.0) return {};
  if (auto v = pad.attrs.find("value"); v != pad.attrs.end()) {  // the value before opset 11
    const double* d = std::get_if<double>(&v->second);
    if (!d || *d != 0.0) return {};
  }
  // [N, C, H, W] begins, then ends: only H and W, the same on both sides.
  if (pads.size() != 8 || pads[0] || pads[1] || pads[4] || pads[5] || pads[2] != pads[6] || pads[3] != pads[7] ||
      pads[2] < 0 || pads[3] < 0)
    return {};
  const std::vector<std::int64_t> kernel = pool.attr_ints("kernel_shape"), own = pool.attr_ints("pads"),
                                  dilations = pool.attr_ints("dilations");
  if (kernel.size() != 2 || pool.attr_int("ceil_mode", 0) != 0 ||
      pool.attr_string("auto_pad", "NOTSET") != "NOTSET" ||
      std::any_of(own.begin(), own.end(), [](std::int64_t p) { return p != 0; }) ||
      std::any_of(dilations.begin(), dilations.end(), [](std::int64_t d) { return d != 1; }) ||
      2 * pads[2] > kernel[0] || 2 * pads[3] > kernel[1])
    return {};
  return {pads[2], pads[3]};
}

at::Tensor prepare_conv_weight(const Op& op, const at::Tensor& w, const std::vector<std::int64_t>& input_dims) {
  if (!w.is_cpu() || w.scalar_type() != at::kFloat) return w;
  switch (conv_kernel(op, input_dims, w.sizes())) {
    case ConvKernel::direct:
      // oneDNN lays a constant weight out for itself once; a build without oneDNN runs
      // at::convolution on channels-last tensors.
      return w.contiguous(at::MemoryFormat::ChannelsLast);
    case ConvKernel::product:
      // [Cout, Cin, 1, 1] with Cout fastest: the product's [Cin, Cout] operand is then row-major.
      return w.permute({1, 2, 3, 0}).contiguous().permute({3, 0, 1, 2});
    case ConvKernel::aten:
      return w.contiguous();
  }
  return w;
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
    // LibTorch 1.13 has no unsigned types above 8 bits: held in the next wider signed type
    // (uint64 values above 2^63 - 1 wrap).
    case onnx::TensorProto::UINT16:
      return at::kInt;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      return at::kLong;
    default:
      throw Error("", "", "ONNX data type " + std::to_string(t) + " is not supported by the executor", ErrorKind::unsupported);
  }
}

at::Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& source) {
  std::vector<std::int64_t> dims(p.dims().begin(), p.dims().end());
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  const at::ScalarType st = onnx_scalar_type(p.data_type());
  at::TensorOptions o = at::TensorOptions().dtype(st);
  if (p.data_location() == onnx::TensorProto::EXTERNAL) return {};
  if (n == 0) return at::empty(dims, o);
  if (!p.raw_data().empty()) {
    // Unsigned types wider than 8 bits are read as the signed type of their width, then widened.
    const at::ScalarType stored = p.data_type() == onnx::TensorProto::UINT16   ? at::kShort
                                  : p.data_type() == onnx::TensorProto::UINT32 ? at::kInt
                                                                               : st;
    const std::size_t want = static_cast<std::size_t>(n) * at::elementSize(stored);
    if (p.raw_data().size() != want)
      throw Error(source, p.name(),
                  "raw_data has " + std::to_string(p.raw_data().size()) + " bytes, dims say " + std::to_string(want));
    at::Tensor t = at::empty(dims, at::TensorOptions().dtype(stored));
    std::memcpy(t.data_ptr(), p.raw_data().data(), want);
    if (stored == st) return t;
    const std::int64_t bits = p.data_type() == onnx::TensorProto::UINT16 ? 0xFFFF : 0xFFFFFFFF;
    return at::bitwise_and(t.to(st), at::Scalar(bits));
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
  if (p.uint64_data_size()) {
    std::vector<std::int64_t> v(p.uint64_data().begin(), p.uint64_data().end());  // wraps above 2^63 - 1
    return typed(v, at::kLong);
  }
  return {};
}

}  // namespace devplace::exec
