#include "graph/op_costs.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <set>

#include "util/log.h"

namespace devplace {
namespace {

// Byte counts of a hostile file's tensors saturate (Tensor::bytes); so do their sums here.
std::int64_t add_saturating(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::int64_t>::max() : sum;
}

// FLOPs per output element of the elementwise ops that are not a single add or multiply.
// Transcendentals (exp, log, erf, tanh, sigmoid, sqrt, pow, sin, cos ...) count 4: a vectorised
// polynomial is a handful of FMAs. Composites of a transcendental and a few multiplies (GELU,
// Swish, Mish, Softplus) count 8. Everything else in the class counts 1.
constexpr double kTranscendentalFlops = 4;
constexpr double kCompositeActivationFlops = 8;
// Normalisation per element: BatchNormalization at inference is a scale and a shift plus the
// (amortised) rsqrt -> 4; LayerNorm / MVN / Instance / Group norms also compute mean and variance
// over the element (sum, square, subtract, scale, shift ...) -> 8.
constexpr double kBatchNormFlops = 4;
constexpr double kLayerNormFlops = 8;
// Softmax per element: max, subtract, exp, sum, divide.
constexpr double kSoftmaxFlops = 5;

// Product of dims with unknown dims counted as 1 (the documented fallback, as Tensor::elements).
double prod(const Shape& s, std::size_t from = 0) {
  double n = 1;
  for (std::size_t i = from; i < s.size(); ++i) n *= (s[i] == kUnknownDim ? 1 : static_cast<double>(s[i]));
  return n;
}

std::int64_t dim_or_1(std::int64_t d) { return d == kUnknownDim ? 1 : d; }

// Integer-list attribute; OpenVINO importers may keep the XML text ("3,3"), so parse that too.
std::vector<std::int64_t> ints_attr(const Op& op, const std::string& key) {
  auto v = op.attr_ints(key);
  if (!v.empty()) return v;
  std::string s = op.attr_string(key);
  std::vector<std::int64_t> out;
  const char* p = s.c_str();
  while (*p) {
    char* end = nullptr;
    long long x = std::strtoll(p, &end, 10);
    if (end == p) {
      ++p;
      continue;
    }
    out.push_back(x);
    p = end;
  }
  return out;
}

// Boolean attribute: ints (ONNX transA) or strings (OpenVINO transpose_a="true").
bool bool_attr(const Op& op, const std::string& key) {
  auto it = op.attrs.find(key);
  if (it == op.attrs.end()) return false;
  if (auto* i = std::get_if<std::int64_t>(&it->second)) return *i != 0;
  if (auto* d = std::get_if<double>(&it->second)) return *d != 0;
  if (auto* s = std::get_if<std::string>(&it->second)) return *s == "true" || *s == "True" || *s == "1";
  return false;
}

struct CostContext {
  const Graph& g;
  const Op& op;
  const Tensor* in(std::size_t i) const { return i < op.inputs.size() ? &g.tensor(op.inputs[i]) : nullptr; }
  const Tensor* out(std::size_t i) const { return i < op.outputs.size() ? &g.tensor(op.outputs[i]) : nullptr; }
  double out_elements() const {
    double n = 0;
    for (int t : op.outputs) n += static_cast<double>(g.tensor(t).elements());
    return n;
  }
  double first_out_elements() const { return out(0) ? static_cast<double>(out(0)->elements()) : 0; }
  double first_in_elements() const { return in(0) ? static_cast<double>(in(0)->elements()) : 0; }
};

// Multiply-accumulates of a convolution; `bias` receives the output elements a bias adds to.
double conv_macs(const CostContext& c, double& bias) {
  const std::string& t = c.op.type;
  const Tensor* w = c.in(1);
  if (!w) return 0;
  const double out = c.first_out_elements();
  if (t == "Conv" || t == "QLinearConv" || t == "ConvInteger") {
    // ONNX weight [Cout, Cin/groups, k...]; QLinearConv's weight is input 3.
    const Tensor* wt = t == "QLinearConv" ? c.in(3) : w;
    if (t == "Conv" && c.op.inputs.size() >= 3) bias = out;
    return wt ? out * prod(wt->shape, 1) : 0;
  }
  if (t == "Convolution" || t == "DeformableConvolution") {
    // OpenVINO weight [Cout, Cin, k...] (DeformableConvolution: weight is input 2).
    const Tensor* wt = t == "DeformableConvolution" ? c.in(2) : w;
    return wt ? out * prod(wt->shape, 1) : 0;
  }
  if (t == "GroupConvolution") return out * prod(w->shape, 2);  // [G, Cout/G, Cin/G, k...]
  // Transposed convolutions: every input element scatters into Cout/groups * k outputs.
  // ONNX ConvTranspose weight [Cin, Cout/groups, k...], OpenVINO ConvolutionBackpropData
  // [Cin, Cout, k...], GroupConvolutionBackpropData [G, Cin/G, Cout/G, k...].
  const double in = c.first_in_elements();
  if (t == "ConvTranspose") {
    if (c.op.inputs.size() >= 3) bias = out;
    return in * prod(w->shape, 1);
  }
  if (t == "ConvolutionBackpropData") return in * prod(w->shape, 1);
  if (t == "GroupConvolutionBackpropData") return in * prod(w->shape, 2);
  return 0;
}

double matmul_macs(const CostContext& c, double& extra_flops) {
  const std::string& t = c.op.type;
  const Tensor* a = c.in(0);
  const Tensor* b = c.in(1);
  const double out = c.first_out_elements();
  if (!a) return 0;
  if (t == "ScaledDotProductAttention") {
    // Q [..., L, E], K [..., S, E], V [..., S, Ev]: Q*K^T then P*V, softmax over [..., L, S].
    const Tensor* v = c.in(2);
    if (!b || a->shape.empty() || b->shape.size() < 2) return 0;
    const double e = static_cast<double>(dim_or_1(a->shape.back()));
    const double s = static_cast<double>(dim_or_1(b->shape[b->shape.size() - 2]));
    const double scores = out / (c.out(0) && !c.out(0)->shape.empty() ? dim_or_1(c.out(0)->shape.back()) : 1) * s;
    const double ev = v && !v->shape.empty() ? static_cast<double>(dim_or_1(v->shape.back())) : e;
    extra_flops = kSoftmaxFlops * scores;
    return scores * e + scores * ev;
  }
  if (t == "FullyConnected") {  // OpenVINO internal: [.., K] x weights [N, K]
    return a->shape.empty() ? 0 : out * dim_or_1(a->shape.back());
  }
  bool trans_a = false;
  if (t == "Gemm") {
    trans_a = bool_attr(c.op, "transA");
    if (c.op.inputs.size() >= 3) extra_flops = out;  // + C
  } else {
    trans_a = bool_attr(c.op, "transpose_a");  // OpenVINO MatMul; absent in ONNX MatMul
  }
  const Tensor* lhs = a;
  if (lhs->shape.empty()) return 0;
  std::int64_t k;
  if (lhs->shape.size() == 1) {
    k = lhs->shape[0];  // a vector: [K] x [K, N]
  } else {
    k = trans_a ? lhs->shape[lhs->shape.size() - 2] : lhs->shape.back();
  }
  return out * dim_or_1(k);
}

double pool_flops(const CostContext& c) {
  const std::string& t = c.op.type;
  if (t.rfind("Global", 0) == 0) return c.first_in_elements();
  auto kernel = ints_attr(c.op, "kernel_shape");
  if (kernel.empty()) kernel = ints_attr(c.op, "kernel");
  double k = 1;
  for (auto d : kernel) k *= static_cast<double>(std::max<std::int64_t>(d, 1));
  if (kernel.empty()) {
    // Adaptive / ROI pools and files without a kernel attribute: each input element is read once.
    const double out = c.first_out_elements();
    k = out > 0 ? std::max(1.0, c.first_in_elements() / out) : 1;
  }
  return c.first_out_elements() * k;
}

double elementwise_factor(const Op& op) {
  switch (op_type_info(op.type).element_cost) {
    case ElementCost::composite:
      return kCompositeActivationFlops;
    case ElementCost::transcendental:
      return kTranscendentalFlops;
    case ElementCost::simple:
      break;
  }
  if (op.type == "Resize" || op.type == "Interpolate" || op.type == "Upsample") {
    std::string mode = op.attr_string("mode");
    return mode.find("linear") != std::string::npos || mode.find("cubic") != std::string::npos ? 4 : 1;
  }
  return 1;
}

void compute(Graph& g, Op& op, std::set<std::string>& warned) {
  const OpClass cls = classify(op.type);
  const CostContext c{g, op};
  double flops = 0, macs = 0;
  switch (cls) {
    case OpClass::conv: {
      double bias = 0;
      macs = conv_macs(c, bias);
      flops = 2 * macs + bias;
      break;
    }
    case OpClass::matmul: {
      double extra = 0;
      macs = matmul_macs(c, extra);
      flops = 2 * macs + extra;
      break;
    }
    case OpClass::pool:
      flops = pool_flops(c);
      break;
    case OpClass::elementwise:
      flops = c.out_elements() * elementwise_factor(op);
      break;
    case OpClass::normalization:
      flops = c.first_out_elements() *
              (op.type == "BatchNormalization" || op.type == "BatchNormInference" ? kBatchNormFlops : kLayerNormFlops);
      break;
    case OpClass::softmax:
      flops = kSoftmaxFlops * c.first_out_elements();
      break;
    case OpClass::reduce:
      flops = c.first_in_elements();
      break;
    case OpClass::data_movement:
    case OpClass::free:
      flops = 0;
      break;
    case OpClass::other:
      if (!is_known_op_type(op.type) && warned.insert(op.type).second)
        log::warn("op_costs.unknown:" + op.type, "unknown op type '" + op.type + "' (e.g. op '" + op.name +
                                                     "'): costed as one FLOP per output element, class other");
      flops = c.out_elements();
      break;
  }

  if (op.flops <= 0) {
    op.flops = flops;
    op.macs = macs;
  }
  if (op.weight_bytes == 0) {
    std::int64_t w = 0;
    if (is_folded(g, op)) {
      // A constant-producing op (Const, or a Convert/Multiply chain on constants that the
      // runtime folds at load time) holds the constants that some real kernel reads.
      for (int t : op.outputs) {
        bool read_by_kernel = g.tensor(t).is_graph_output;
        for (int c : g.tensor(t).consumers) read_by_kernel |= !is_folded(g, g.op(c));
        if (read_by_kernel) w = add_saturating(w, g.tensor(t).bytes());
      }
    } else {
      // Initializers (no producer) are the consuming op's own weights; a tensor made by a
      // Const op is that op's weight already (OpenVINO), and counting it here would double it.
      for (int t : op.inputs)
        if (g.tensor(t).is_constant && g.tensor(t).producer < 0) w = add_saturating(w, g.tensor(t).bytes());
    }
    op.weight_bytes = w;
  }
  if (is_folded(g, op)) {
    op.flops = op.macs = 0;
    op.bytes_accessed = 0;
    return;
  }
  if (op.bytes_accessed == 0 && cls != OpClass::free) {
    std::int64_t b = op.weight_bytes;
    for (int t : op.inputs)
      if (!(g.tensor(t).is_constant && g.tensor(t).producer < 0)) b = add_saturating(b, g.tensor(t).bytes());
    for (int t : op.outputs) b = add_saturating(b, g.tensor(t).bytes());
    op.bytes_accessed = b;
  }
}

}  // namespace

bool is_folded(const Graph& g, const Op& op) {
  if (op.type == "Const" || op.type == "Constant") return true;
  if (op.outputs.empty()) return false;
  for (int t : op.outputs)
    if (!g.tensor(t).is_constant) return false;
  return true;
}

void annotate_costs(Graph& g) {
  std::set<std::string> warned;
  for (Op& op : g.mutable_ops()) compute(g, op, warned);
}

}  // namespace devplace
