#include "exec/cpu_kernels.h"

#ifdef DEVPLACE_WITH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace devplace::exec {

#ifndef DEVPLACE_WITH_ONEDNN
// Built without oneDNN's headers (a LibTorch wheel): ATen's kernels, nothing kept between calls.
struct CpuKernels::Engine {};
struct CpuKernels::Built {};
struct CpuKernels::BuiltConv {};
struct CpuKernels::BuiltPool {};
CpuKernels::CpuKernels() = default;
CpuKernels::~CpuKernels() = default;
at::Tensor CpuKernels::matmul(const at::Tensor& a, const at::Tensor& b, const c10::optional<at::Tensor>& bias,
                              bool) {
  at::Tensor y = at::matmul(a, b);
  return bias ? y.add_(*bias) : y;
}
at::Tensor CpuKernels::conv2d(const at::Tensor& x, const at::Tensor& w, const c10::optional<at::Tensor>& bias,
                              at::IntArrayRef strides, at::IntArrayRef pads, at::IntArrayRef dilations, bool) {
  return at::convolution(x.contiguous(at::MemoryFormat::ChannelsLast), w, bias, strides, pads, dilations, false,
                         {0, 0}, 1);
}
at::Tensor CpuKernels::pool2d(const at::Tensor& x, bool max, at::IntArrayRef kernel, at::IntArrayRef strides,
                              at::IntArrayRef pads, bool include_pad) {
  const at::Tensor v = x.contiguous(at::MemoryFormat::ChannelsLast);
  return max ? at::max_pool2d(v, kernel, strides, pads) : at::avg_pool2d(v, kernel, strides, pads, false, include_pad);
}
const char* CpuKernels::library() { return "ATen (built without oneDNN's headers)"; }
#else
const char* CpuKernels::library() { return "oneDNN"; }

struct CpuKernels::Engine {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

namespace {

// A constant weight reordered into the layout a kernel reads fastest, and the tensor it came from,
// kept alive so that the address a kernel is keyed on never names another tensor.
struct LaidOutWeight {
  dnnl::memory memory;
  at::Tensor source;
};

}  // namespace

struct CpuKernels::BuiltConv {
  dnnl::convolution_forward conv;
  dnnl::memory::desc x, w, bias, y;
  LaidOutWeight packed;  // a constant w
};

struct CpuKernels::BuiltPool {
  dnnl::pooling_forward pool;
  dnnl::memory::desc x, y;
};

struct CpuKernels::Built {
  dnnl::matmul product;
  dnnl::memory::desc a, b, bias, c;
  LaidOutWeight packed;  // a constant b
};

CpuKernels::CpuKernels() : engine_(std::make_unique<Engine>()) {}
CpuKernels::~CpuKernels() = default;

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

// A float tensor as it lies in memory, or (any_layout) with the layout left to the kernel.
dnnl::memory::desc plain_desc(const at::Tensor& t) {
  return dnnl::memory::desc(to_dims(t.sizes()), dnnl::memory::data_type::f32, to_dims(t.strides()));
}
dnnl::memory::desc any_layout(const at::Tensor& t) {
  return dnnl::memory::desc(to_dims(t.sizes()), dnnl::memory::data_type::f32, dnnl::memory::format_tag::any);
}

// Appends t's sizes and strides to a key of built kernels.
void add_layout(std::vector<std::int64_t>& key, const at::Tensor& t) {
  key.insert(key.end(), t.sizes().begin(), t.sizes().end());
  key.insert(key.end(), t.strides().begin(), t.strides().end());
}

// The weight `w` in `layout`, reordered on the first call and kept in `out` after.
const dnnl::memory& lay_out_once(LaidOutWeight& out, const at::Tensor& w, const dnnl::memory::desc& layout,
                                 const dnnl::engine& e, dnnl::stream& stream) {
  if (!out.source.defined()) {
    dnnl::memory plain(plain_desc(w), e, w.data_ptr());
    out.memory = dnnl::memory(layout, e);
    dnnl::reorder(plain, out.memory).execute(stream, plain, out.memory);
    stream.wait();
    out.source = w;
  }
  return out.memory;
}

}  // namespace

at::Tensor CpuKernels::matmul(const at::Tensor& a, const at::Tensor& b, const c10::optional<at::Tensor>& bias,
                              bool b_constant) {
  try {
    return product(a, b, bias, b_constant);
  } catch (const dnnl::error& e) {
    TORCH_CHECK(false, "oneDNN matmul of ", a.sizes(), " x ", b.sizes(), ": ", e.what());
  }
}

at::Tensor CpuKernels::product(const at::Tensor& a_in, const at::Tensor& b_in, const c10::optional<at::Tensor>& bias,
                               bool b_constant) {
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
    if (b.data_ptr() != b_in.data_ptr()) b_constant = false;  // a copy: a new tensor each call
  } else {
    a = dense_in_one_orientation(as_batch_of_matrices(a_in));
    b = dense_in_one_orientation(as_batch_of_matrices(b_in));
    b_constant = false;
  }
  const bool batched = a.dim() == 3;
  std::vector<std::int64_t> c_dims(a.sizes().begin(), a.sizes().end());
  c_dims.back() = b.size(-1);
  at::Tensor c = at::empty(c_dims, a.options());
  c10::optional<at::Tensor> bias_view;
  if (bias) bias_view = batched ? bias->contiguous().view({1, 1, -1}) : bias->contiguous().view({1, -1});

  std::vector<std::int64_t> key;
  add_layout(key, a);
  add_layout(key, b);
  key.push_back(bias ? 1 : 0);
  // A constant b (a weight) is reordered once into the layout the product reads fastest; the key
  // names its storage, which the entry keeps alive, so an address is never a different tensor's.
  if (b_constant) key.push_back(reinterpret_cast<std::intptr_t>(b.data_ptr()));
  std::unique_ptr<Built>& built = built_[key];
  const dnnl::engine& e = engine_->engine;
  if (!built) {
    auto out = std::make_unique<Built>();
    out->a = plain_desc(a);
    out->b = b_constant ? any_layout(b) : plain_desc(b);
    out->c = plain_desc(c);
    if (bias_view) out->bias = plain_desc(*bias_view);
    const dnnl::matmul::desc d = bias_view ? dnnl::matmul::desc(out->a, out->b, out->bias, out->c)
                                           : dnnl::matmul::desc(out->a, out->b, out->c);
    const dnnl::matmul::primitive_desc pd(d, e);
    out->product = dnnl::matmul(pd);
    if (b_constant) out->b = pd.weights_desc();
    built = std::move(out);
  }
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, dnnl::memory(built->a, e, a.data_ptr())},
      {DNNL_ARG_WEIGHTS, b_constant ? lay_out_once(built->packed, b, built->b, e, engine_->stream)
                                    : dnnl::memory(built->b, e, b.data_ptr())},
      {DNNL_ARG_DST, dnnl::memory(built->c, e, c.data_ptr())}};
  if (bias_view) args.emplace(DNNL_ARG_BIAS, dnnl::memory(built->bias, e, bias_view->data_ptr()));
  built->product.execute(engine_->stream, args);
  engine_->stream.wait();
  return c.view(out_shape);
}

at::Tensor CpuKernels::conv2d(const at::Tensor& x, const at::Tensor& w, const c10::optional<at::Tensor>& bias,
                              at::IntArrayRef strides, at::IntArrayRef pads, at::IntArrayRef dilations,
                              bool w_constant) {
  try {
    return convolution(x, w, bias, strides, pads, dilations, w_constant);
  } catch (const dnnl::error& e) {
    TORCH_CHECK(false, "oneDNN convolution of ", x.sizes(), " by ", w.sizes(), ": ", e.what());
  }
}

at::Tensor CpuKernels::convolution(const at::Tensor& x_in, const at::Tensor& w, const c10::optional<at::Tensor>& bias,
                                   at::IntArrayRef strides, at::IntArrayRef pads, at::IntArrayRef dilations,
                                   bool w_constant) {
  TORCH_CHECK(x_in.dim() == 4 && w.dim() == 4 && x_in.size(1) == w.size(1) && strides.size() == 2 &&
                  pads.size() == 2 && dilations.size() == 2,
              "an ungrouped 2-D convolution needs x [N, C, H, W] and w [Cout, C, kh, kw]");
  const at::Tensor x = x_in.contiguous(at::MemoryFormat::ChannelsLast);
  std::vector<std::int64_t> y_dims = {x.size(0), w.size(0), 0, 0};
  for (int d = 0; d < 2; ++d)
    y_dims[2 + d] = (x.size(2 + d) + 2 * pads[d] - dilations[d] * (w.size(2 + d) - 1) - 1) / strides[d] + 1;
  TORCH_CHECK(y_dims[2] > 0 && y_dims[3] > 0, "the kernel is larger than the padded input");
  at::Tensor y = at::empty(y_dims, x.options().memory_format(at::MemoryFormat::ChannelsLast));
  const at::Tensor b = bias ? bias->contiguous() : at::Tensor();

  std::vector<std::int64_t> key;
  add_layout(key, x);
  add_layout(key, w);
  for (at::IntArrayRef r : {strides, pads, dilations}) key.insert(key.end(), r.begin(), r.end());
  key.push_back(bias ? 1 : 0);
  if (w_constant) key.push_back(reinterpret_cast<std::intptr_t>(w.data_ptr()));
  std::unique_ptr<BuiltConv>& built = built_convs_[key];
  const dnnl::engine& e = engine_->engine;
  if (!built) {
    auto out = std::make_unique<BuiltConv>();
    out->x = plain_desc(x);
    out->w = w_constant ? any_layout(w) : plain_desc(w);
    out->y = plain_desc(y);
    if (bias) out->bias = plain_desc(b);
    const dnnl::memory::dims s = to_dims(strides), p = to_dims(pads);
    const dnnl::memory::dims dil = {dilations[0] - 1, dilations[1] - 1};  // oneDNN counts the gaps
    const auto fwd = dnnl::prop_kind::forward_inference;
    const auto direct = dnnl::algorithm::convolution_direct;
    const dnnl::convolution_forward::desc d =
        bias ? dnnl::convolution_forward::desc(fwd, direct, out->x, out->w, out->bias, out->y, s, dil, p, p)
             : dnnl::convolution_forward::desc(fwd, direct, out->x, out->w, out->y, s, dil, p, p);
    const dnnl::convolution_forward::primitive_desc pd(d, e);
    out->conv = dnnl::convolution_forward(pd);
    if (w_constant) out->w = pd.weights_desc();
    built = std::move(out);
  }
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, dnnl::memory(built->x, e, x.data_ptr())},
      {DNNL_ARG_WEIGHTS, w_constant ? lay_out_once(built->packed, w, built->w, e, engine_->stream)
                                    : dnnl::memory(built->w, e, w.data_ptr())},
      {DNNL_ARG_DST, dnnl::memory(built->y, e, y.data_ptr())}};
  if (bias) args.emplace(DNNL_ARG_BIAS, dnnl::memory(built->bias, e, b.data_ptr()));
  built->conv.execute(engine_->stream, args);
  engine_->stream.wait();
  return y;
}

at::Tensor CpuKernels::pool2d(const at::Tensor& x, bool max, at::IntArrayRef kernel, at::IntArrayRef strides,
                              at::IntArrayRef pads, bool include_pad) {
  try {
    return pooling(x, max, kernel, strides, pads, include_pad);
  } catch (const dnnl::error& e) {
    TORCH_CHECK(false, "oneDNN pooling of ", x.sizes(), ": ", e.what());
  }
}

at::Tensor CpuKernels::pooling(const at::Tensor& x_in, bool max, at::IntArrayRef kernel, at::IntArrayRef strides,
                               at::IntArrayRef pads, bool include_pad) {
  TORCH_CHECK(x_in.dim() == 4 && kernel.size() == 2 && strides.size() == 2 && pads.size() == 2,
              "2-D pooling needs x [N, C, H, W] and two kernel dims, strides and pads");
  const at::Tensor x = x_in.contiguous(at::MemoryFormat::ChannelsLast);
  std::vector<std::int64_t> y_dims = {x.size(0), x.size(1), 0, 0};
  for (int d = 0; d < 2; ++d) y_dims[2 + d] = (x.size(2 + d) + 2 * pads[d] - kernel[d]) / strides[d] + 1;
  TORCH_CHECK(y_dims[2] > 0 && y_dims[3] > 0, "the window is larger than the padded input");
  at::Tensor y = at::empty(y_dims, x.options().memory_format(at::MemoryFormat::ChannelsLast));
  std::vector<std::int64_t> key;
  add_layout(key, x);
  for (at::IntArrayRef r : {kernel, strides, pads}) key.insert(key.end(), r.begin(), r.end());
  key.push_back((max ? 1 : 0) + (include_pad ? 2 : 0));
  std::unique_ptr<BuiltPool>& built = built_pools_[key];
  const dnnl::engine& e = engine_->engine;
  if (!built) {
    auto out = std::make_unique<BuiltPool>();
    out->x = plain_desc(x);
    out->y = plain_desc(y);
    const auto kind = max           ? dnnl::algorithm::pooling_max
                      : include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                    : dnnl::algorithm::pooling_avg_exclude_padding;
    const dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, kind, out->x, out->y, to_dims(strides),
                                        to_dims(kernel), to_dims(pads), to_dims(pads));
    out->pool = dnnl::pooling_forward(dnnl::pooling_forward::primitive_desc(d, e));
    built = std::move(out);
  }
  built->pool.execute(engine_->stream, {{DNNL_ARG_SRC, dnnl::memory(built->x, e, x.data_ptr())},
                                        {DNNL_ARG_DST, dnnl::memory(built->y, e, y.data_ptr())}});
  engine_->stream.wait();
  return y;
}
#endif

}  // namespace devplace::exec
