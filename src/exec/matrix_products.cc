#include "exec/matrix_products.h"

#ifdef DEVPLACE_WITH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace devplace::exec {

#ifndef DEVPLACE_WITH_ONEDNN
// Built without oneDNN's headers (a LibTorch wheel): ATen's products, through the BLAS.
struct MatrixProducts::Engine {};
struct MatrixProducts::Built {};
MatrixProducts::MatrixProducts() = default;
MatrixProducts::~MatrixProducts() = default;
at::Tensor MatrixProducts::matmul(const at::Tensor& a, const at::Tensor& b, const c10::optional<at::Tensor>& bias) {
  return product(a, b, bias);
}
at::Tensor MatrixProducts::product(const at::Tensor& a, const at::Tensor& b, const c10::optional<at::Tensor>& bias) {
  at::Tensor y = at::matmul(a, b);
  return bias ? y.add_(*bias) : y;
}
const char* MatrixProducts::library() { return "ATen (no oneDNN headers at build time)"; }
#else
const char* MatrixProducts::library() { return "oneDNN"; }

struct MatrixProducts::Engine {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

struct MatrixProducts::Built {
  dnnl::matmul product;
  dnnl::memory::desc a, b, bias, c;
};

MatrixProducts::MatrixProducts() : engine_(std::make_unique<Engine>()) {}
MatrixProducts::~MatrixProducts() = default;

namespace {

// A matrix oneDNN's optimised products read: rows or columns dense (either orientation).
at::Tensor dense_in_one_orientation(const at::Tensor& m) {
  const std::int64_t rows = m.size(-2), cols = m.size(-1);
  const std::int64_t rs = m.stride(-2), cs = m.stride(-1);
  if ((cs == 1 && rs >= cols) || (rs == 1 && cs >= rows) || rows == 1 || cols == 1) return m;
  return m.contiguous();
}

// The batch dims of a 3-D view [batch, rows, cols] of m when they collapse into one without a copy,
// else a contiguous copy's.
at::Tensor as_batch_of_matrices(const at::Tensor& m) {
  if (m.dim() == 3) return m;
  std::vector<std::int64_t> shape = {1, m.size(-2), m.size(-1)};
  for (std::int64_t d = 0; d + 2 < m.dim(); ++d) shape[0] *= m.size(d);
  return m.reshape(shape);
}

dnnl::memory::dims to_dims(at::IntArrayRef r) { return dnnl::memory::dims(r.begin(), r.end()); }

}  // namespace

at::Tensor MatrixProducts::matmul(const at::Tensor& a, const at::Tensor& b, const c10::optional<at::Tensor>& bias) {
  try {
    return product(a, b, bias);
  } catch (const dnnl::error& e) {
    TORCH_CHECK(false, "oneDNN matmul of ", a.sizes(), " x ", b.sizes(), ": ", e.what());
  }
}

at::Tensor MatrixProducts::product(const at::Tensor& a_in, const at::Tensor& b_in, const c10::optional<at::Tensor>& bias) {
  const bool float_cpu = a_in.is_cpu() && b_in.is_cpu() && a_in.scalar_type() == at::kFloat &&
                         b_in.scalar_type() == at::kFloat && a_in.dim() >= 2 && b_in.dim() >= 2 &&
                         (!bias || (bias->is_cpu() && bias->scalar_type() == at::kFloat && bias->dim() == 1 &&
                                    bias->size(0) == b_in.size(-1)));
  // Same batch dims, or b one matrix (a weight): the products models make; other broadcasts go to ATen.
  const bool same_batch =
      b_in.dim() == 2 || (a_in.dim() == b_in.dim() && a_in.sizes().slice(0, a_in.dim() - 2).equals(
                                                            b_in.sizes().slice(0, b_in.dim() - 2)));
  if (!float_cpu || !same_batch || a_in.size(-1) != b_in.size(-2) || a_in.numel() == 0 || b_in.numel() == 0) {
    at::Tensor y = at::matmul(a_in, b_in);
    return bias ? y.add_(*bias) : y;
  }
  std::vector<std::int64_t> out_shape(a_in.sizes().begin(), a_in.sizes().end());
  out_shape.back() = b_in.size(-1);
  at::Tensor a, b;
  if (b_in.dim() == 2) {
    // [..., M, K] x [K, N]: one product over all rows when a's rows collapse without a copy.
    a = dense_in_one_orientation(a_in.dim() == 2 ? a_in : a_in.reshape({-1, a_in.size(-1)}));
    b = dense_in_one_orientation(b_in);
  } else {
    a = dense_in_one_orientation(as_batch_of_matrices(a_in));
    b = dense_in_one_orientation(as_batch_of_matrices(b_in));
  }
  const bool batched = a.dim() == 3;
  std::vector<std::int64_t> c_dims(a.sizes().begin(), a.sizes().end());
  c_dims.back() = b.size(-1);
  at::Tensor c = at::empty(c_dims, a.options());
  c10::optional<at::Tensor> bias_view;
  if (bias) bias_view = batched ? bias->contiguous().view({1, 1, -1}) : bias->contiguous().view({1, -1});

  std::vector<std::int64_t> key;
  for (const at::Tensor* t : {&a, &b}) {
    key.insert(key.end(), t->sizes().begin(), t->sizes().end());
    key.insert(key.end(), t->strides().begin(), t->strides().end());
  }
  key.push_back(bias ? 1 : 0);
  std::unique_ptr<Built>& built = built_[key];
  if (!built) {
    auto f32 = dnnl::memory::data_type::f32;
    auto out = std::make_unique<Built>();
    out->a = dnnl::memory::desc(to_dims(a.sizes()), f32, to_dims(a.strides()));
    out->b = dnnl::memory::desc(to_dims(b.sizes()), f32, to_dims(b.strides()));
    out->c = dnnl::memory::desc(to_dims(c.sizes()), f32, to_dims(c.strides()));
    if (bias_view) {
      out->bias = dnnl::memory::desc(to_dims(bias_view->sizes()), f32, to_dims(bias_view->strides()));
      out->product = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(out->a, out->b, out->bias, out->c),
                                                               engine_->engine));
    } else {
      out->product =
          dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(out->a, out->b, out->c), engine_->engine));
    }
    built = std::move(out);
  }
  const dnnl::engine& e = engine_->engine;
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, dnnl::memory(built->a, e, a.data_ptr())},
      {DNNL_ARG_WEIGHTS, dnnl::memory(built->b, e, b.data_ptr())},
      {DNNL_ARG_DST, dnnl::memory(built->c, e, c.data_ptr())}};
  if (bias_view) args.emplace(DNNL_ARG_BIAS, dnnl::memory(built->bias, e, bias_view->data_ptr()));
  built->product.execute(engine_->stream, args);
  engine_->stream.wait();
  return c.view(out_shape);
}
#endif

}  // namespace devplace::exec
