// The model-like synthetic families (place/synthetic.h): Inception/ResNet-like CNNs and
// BERT-like encoders, so the learned placer's corpus has the branch and attention structure of
// real models without any model file. Seeded; a pure function of the options.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "place/synthetic.h"
#include "util/error.h"

namespace devplace {

namespace {

std::int64_t elements(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// Adds ops with their costs; every op has one f32 output.
class Builder {
 public:
  explicit Builder(Graph& g) : g_(g) {}

  // The graph input, as a pseudo-op index -1.
  int input(const Shape& shape) {
    input_ = g_.tensor_id("input");
    g_.tensor(input_).shape = shape;
    g_.tensor(input_).is_graph_input = true;
    input_shape_ = shape;
    return -1;
  }
  const Shape& shape(int op) const { return op < 0 ? input_shape_ : shapes_[op]; }
  int count() const { return static_cast<int>(shapes_.size()); }

  // `extra_flops` per output element (1 for Add/Relu); macs and weights for Conv/MatMul/Gather.
  int add(const std::string& type, const std::vector<int>& srcs, const Shape& out, double flops_per_element,
          double macs = 0, std::int64_t weight_bytes = 0) {
    Op op;
    const int index = count();
    op.name = type + "_" + std::to_string(index);
    op.type = type;
    std::int64_t in_bytes = 0;
    for (int s : srcs) {
      op.inputs.push_back(s < 0 ? input_ : outputs_[s]);
      in_bytes += elements(shape(s)) * 4;
    }
    const int t = g_.tensor_id(op.name + ":0");
    g_.tensor(t).shape = out;
    op.outputs = {t};
    op.macs = macs;
    op.flops = macs > 0 ? 2 * macs : flops_per_element * static_cast<double>(elements(out));
    op.weight_bytes = weight_bytes;
    op.bytes_accessed = in_bytes + elements(out) * 4 + weight_bytes;
    g_.add_op(std::move(op));
    outputs_.push_back(t);
    shapes_.push_back(out);
    read_.push_back(0);
    for (int s : srcs)
      if (s >= 0) read_[s] = 1;
    return index;
  }

  // Ops nobody reads become graph outputs; then the graph is finalized.
  void finish() {
    for (int i = 0; i < count(); ++i)
      if (!read_[i]) g_.tensor(outputs_[i]).is_graph_output = true;
    g_.finalize();
  }

 private:
  Graph& g_;
  int input_ = -1;
  Shape input_shape_;
  std::vector<int> outputs_;
  std::vector<Shape> shapes_;
  std::vector<char> read_;
};

void check(const SyntheticOptions& o) {
  if (o.ops < 1 || o.width < 1 || o.tokens < 1 || o.hidden < 1 || o.side < 1)
    throw Error("", "", "synthetic model: ops, width, tokens, hidden and side must be positive");
}

}  // namespace

std::unique_ptr<SyntheticProblem> make_branchy_cnn(const SyntheticOptions& o) {
  check(o);
  std::mt19937_64 rng(o.seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto sp = std::make_unique<SyntheticProblem>();
  sp->graph.set_name("synthetic-cnn-" + std::to_string(o.ops));
  Builder b(sp->graph);

  // conv (k x k, stride) + ReLU; returns the ReLU.
  auto conv = [&](int x, std::int64_t cout, int k, int stride, bool relu = true) {
    const Shape& in = b.shape(x);
    const std::int64_t cin = in[1], h = std::max<std::int64_t>(1, in[2] / stride),
                       w = std::max<std::int64_t>(1, in[3] / stride);
    const double macs = static_cast<double>(h * w * cout * cin * k * k);
    const int c = b.add("Conv", {x}, {1, cout, h, w}, 0, macs, cout * cin * k * k * 4);
    return relu ? b.add("Relu", {c}, {1, cout, h, w}, 1) : c;
  };
  auto pool = [&](int x, int stride, const char* type) {
    const Shape& in = b.shape(x);
    const std::int64_t h = std::max<std::int64_t>(1, in[2] / stride), w = std::max<std::int64_t>(1, in[3] / stride);
    return b.add(type, {x}, {1, in[1], h, w}, 9);
  };

  const std::int64_t side = o.side, base = o.hidden;
  int x = b.input({1, 3, side * 8, side * 8});
  x = conv(x, 32, 3, 2);
  x = conv(x, 32, 3, 1);
  x = conv(x, 64, 3, 1);
  x = pool(x, 2, "MaxPool");
  x = conv(x, std::max<std::int64_t>(16, base / 2), 1, 1);
  x = conv(x, base, 3, 1);
  x = pool(x, 2, "MaxPool");
  static constexpr int kKernels[] = {1, 3, 5};
  while (b.count() < o.ops) {
    const Shape in = b.shape(x);
    const std::int64_t c = in[1];
    const bool reduce = in[2] > 4 && chance(0.15);
    if (!reduce && chance(o.skip_prob)) {  // residual bottleneck
      const std::int64_t mid = std::max<std::int64_t>(8, c / 4);
      int y = conv(x, mid, 1, 1);
      y = conv(y, mid, 3, 1);
      y = conv(y, c, 1, 1, false);
      const int sum = b.add("Add", {y, x}, in, 1);
      x = b.add("Relu", {sum}, in, 1);
      continue;
    }
    const int towers = 2 + pick(std::max(1, o.width - 1));
    std::vector<int> outs;
    std::int64_t out_channels = 0;
    for (int t = 0; t < towers; ++t) {
      const std::int64_t cout = std::max<std::int64_t>(8, (c / towers) * (1 + pick(3)) / 2);
      int y = x;
      if (t == towers - 1 && chance(0.5)) {  // pooling tower
        y = pool(y, reduce ? 2 : 1, reduce ? "MaxPool" : "AveragePool");
        if (!reduce) y = conv(y, cout, 1, 1);
      } else {
        const int depth = 1 + pick(3);
        for (int k = 0; k < depth; ++k) {
          const int kernel = k == 0 ? 1 : kKernels[pick(3)];
          y = conv(y, cout, kernel, reduce && k == depth - 1 ? 2 : 1);
        }
        if (reduce && depth == 1) y = pool(y, 2, "MaxPool");
      }
      out_channels += b.shape(y)[1];
      outs.push_back(y);
    }
    const Shape& first = b.shape(outs[0]);
    x = b.add("Concat", outs, {1, out_channels, first[2], first[3]}, 0);
  }
  const std::int64_t c = b.shape(x)[1];
  x = b.add("GlobalAveragePool", {x}, {1, c, 1, 1}, 1);
  b.add("Gemm", {x}, {1, 1000}, 0, static_cast<double>(c * 1000), c * 1000 * 4);
  b.finish();
  sp->problem = std::make_unique<Problem>(sp->graph, synthetic_cluster(o.gpus));
  return sp;
}

std::unique_ptr<SyntheticProblem> make_transformer_encoder(const SyntheticOptions& o) {
  check(o);
  auto sp = std::make_unique<SyntheticProblem>();
  sp->graph.set_name("synthetic-encoder-" + std::to_string(o.ops));
  Builder b(sp->graph);
  const std::int64_t S = o.tokens, H = o.hidden, heads = std::max<std::int64_t>(1, H / 64), F = 4 * H;
  const Shape act = {1, S, H};
  auto linear = [&](int x, std::int64_t out) {  // MatMul + bias Add, as exporters write it
    const std::int64_t in = b.shape(x).back();
    const int m = b.add("MatMul", {x}, {1, S, out}, 0, static_cast<double>(S * in * out), in * out * 4);
    return b.add("Add", {m}, {1, S, out}, 1, 0, out * 4);
  };
  auto norm = [&](int x) { return b.add("LayerNormalization", {x}, act, 5, 0, 2 * H * 4); };

  int x = b.input({1, S});
  x = b.add("Gather", {x}, act, 0, 0, 30522 * H * 4);  // word embeddings
  x = b.add("Add", {x}, act, 1, 0, 512 * H * 4);       // position embeddings
  x = norm(x);
  constexpr int kOpsPerLayer = 29;  // as built below
  const int layers = std::max(1, o.ops / kOpsPerLayer);
  const Shape scores = {1, heads, S, S}, split = {1, heads, S, H / heads};
  for (int l = 0; l < layers; ++l) {
    const int q = b.add("Transpose", {linear(x, H)}, split, 0);
    const int k = b.add("Transpose", {linear(x, H)}, {1, heads, H / heads, S}, 0);
    const int v = b.add("Transpose", {linear(x, H)}, split, 0);
    int s = b.add("MatMul", {q, k}, scores, 0, static_cast<double>(S * S * H));
    s = b.add("Div", {s}, scores, 1);
    s = b.add("Softmax", {s}, scores, 5);
    int a = b.add("MatMul", {s, v}, split, 0, static_cast<double>(S * S * H));
    a = b.add("Transpose", {a}, act, 0);
    a = linear(a, H);
    x = norm(b.add("Add", {a, x}, act, 1));
    int f = linear(x, F);
    const Shape wide = {1, S, F};
    const int d = b.add("Div", {f}, wide, 1);
    const int e = b.add("Erf", {d}, wide, 8);
    const int one = b.add("Add", {e}, wide, 1);
    f = b.add("Mul", {b.add("Mul", {f, one}, wide, 1)}, wide, 1);
    f = linear(f, H);
    x = norm(b.add("Add", {f, x}, act, 1));
  }
  b.finish();
  sp->problem = std::make_unique<Problem>(sp->graph, synthetic_cluster(o.gpus));
  return sp;
}

std::unique_ptr<SyntheticProblem> make_transformer_decoder(const SyntheticOptions& o) {
  check(o);
  auto sp = std::make_unique<SyntheticProblem>();
  sp->graph.set_name("synthetic-decoder-" + std::to_string(o.ops));
  Builder b(sp->graph);
  const std::int64_t S = o.tokens, H = o.hidden, D = 64, heads = std::max<std::int64_t>(1, H / D),
                     kv_heads = std::max<std::int64_t>(1, heads / 4), KV = kv_heads * D, F = (8 * H / 3 + 63) / 64 * 64;
  const Shape act = {1, S, H}, column = {1, S, 1}, dims = {4};
  auto matmul = [&](int x, std::int64_t out) {  // no bias, as LLaMA-like exports have
    const std::int64_t in = b.shape(x).back();
    return b.add("MatMul", {x}, {1, S, out}, 0, static_cast<double>(S * in * out), in * out * 4);
  };
  // RMSNorm as exporters write it: x * weight / sqrt(mean(x^2) + eps).
  auto rms_norm = [&](int x) {
    int m = b.add("ReduceMean", {b.add("Power", {x}, act, 1)}, column, 1);
    m = b.add("Sqrt", {b.add("Add", {m}, column, 1)}, column, 1);
    return b.add("Multiply", {b.add("Divide", {x, m}, act, 1)}, act, 1, 0, H * 4);
  };
  // The tiny shape arithmetic runtimes keep in the graph (ShapeOf, Gather, Concat) feeding a Reshape.
  auto reshape = [&](int x, const Shape& out) {
    const int shape = b.add("Concat", {b.add("Gather", {b.add("ShapeOf", {x}, dims, 0)}, {1}, 0)}, dims, 0);
    return b.add("Reshape", {x, shape}, out, 0);
  };
  // Rotary position embedding: x * cos + rotate_half(x) * sin.
  auto rope = [&](int x, int cos, int sin) {
    const Shape sh = b.shape(x);  // a copy: add() may move the shapes it holds
    Shape half = sh;
    half.back() /= 2;
    const int lo = b.add("StridedSlice", {x}, half, 0), hi = b.add("StridedSlice", {x}, half, 0);
    const int rotated = b.add("Concat", {b.add("Negative", {hi}, half, 1), lo}, sh, 0);
    return b.add("Add", {b.add("Multiply", {x, cos}, sh, 1), b.add("Multiply", {rotated, sin}, sh, 1)}, sh, 1);
  };

  int x = b.input({1, S});
  const int positions = b.add("Convert", {x}, {1, S}, 1);
  const int angles = b.add("MatMul", {positions}, {1, S, D}, 0, static_cast<double>(S * D), D * 4);
  const int cos = b.add("Unsqueeze", {b.add("Cos", {angles}, {1, S, D}, 8)}, {1, 1, S, D}, 0);
  const int sin = b.add("Unsqueeze", {b.add("Sin", {angles}, {1, S, D}, 8)}, {1, 1, S, D}, 0);
  const int mask = b.add("Select", {b.add("Greater", {positions}, {1, 1, S, S}, 1)}, {1, 1, S, S}, 1);
  x = b.add("Gather", {x}, act, 0, 0, 32000 * H * 4);  // token embeddings
  constexpr int kOpsPerLayer = 81;  // as built below
  const int layers = std::max(1, o.ops / kOpsPerLayer);
  const Shape scores = {1, heads, S, S}, split = {1, heads, S, D}, kv_split = {1, kv_heads, S, D};
  for (int l = 0; l < layers; ++l) {
    const int n = rms_norm(x);
    const int q = rope(b.add("Transpose", {reshape(matmul(n, H), {1, S, heads, D})}, split, 0), cos, sin);
    const int k_new = rope(b.add("Transpose", {reshape(matmul(n, KV), {1, S, kv_heads, D})}, kv_split, 0), cos, sin);
    const int v_new = b.add("Transpose", {reshape(matmul(n, KV), {1, S, kv_heads, D})}, kv_split, 0);
    // The key/value cache: the (empty) past read from state, the new rows appended and stored back.
    const int k = b.add("Concat", {b.add("ReadValue", {}, {1, kv_heads, 0, D}, 0), k_new}, kv_split, 0);
    const int v = b.add("Concat", {b.add("ReadValue", {}, {1, kv_heads, 0, D}, 0), v_new}, kv_split, 0);
    b.add("Assign", {k}, kv_split, 0);
    b.add("Assign", {v}, kv_split, 0);
    // Grouped-query attention: every key/value head serves heads / kv_heads query heads.
    auto widen = [&](int t) {
      const int u = b.add("Unsqueeze", {t}, {1, kv_heads, 1, S, D}, 0);
      return reshape(b.add("Broadcast", {u}, {1, kv_heads, heads / kv_heads, S, D}, 0), split);
    };
    int s = b.add("MatMul", {q, widen(k)}, scores, 0, static_cast<double>(S * S * heads * D));
    s = b.add("Softmax", {b.add("Add", {b.add("Multiply", {s}, scores, 1), mask}, scores, 1)}, scores, 5);
    int a = b.add("MatMul", {s, widen(v)}, split, 0, static_cast<double>(S * S * heads * D));
    a = matmul(reshape(b.add("Transpose", {a}, {1, S, heads, D}, 0), act), H);
    x = b.add("Add", {a, x}, act, 1);
    const int m = rms_norm(x);
    const Shape wide = {1, S, F};
    const int gate = matmul(m, F);
    const int swish = b.add("Multiply", {gate, b.add("Sigmoid", {gate}, wide, 4)}, wide, 1);
    x = b.add("Add", {matmul(b.add("Multiply", {swish, matmul(m, F)}, wide, 1), H), x}, act, 1);
  }
  b.add("MatMul", {rms_norm(x)}, {1, S, 32000}, 0, static_cast<double>(S * H * 32000), H * 32000 * 4);
  b.finish();
  sp->problem = std::make_unique<Problem>(sp->graph, synthetic_cluster(o.gpus));
  return sp;
}

}  // namespace devplace
