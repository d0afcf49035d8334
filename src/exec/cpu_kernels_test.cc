// CpuKernels against ATen's at::matmul on every shape and layout the interpreter hands it.
#include "exec/cpu_kernels.h"

#include <gtest/gtest.h>

#include "exec/onnx_ops.h"

namespace devplace::exec {
namespace {

void expect_same(const at::Tensor& got, const at::Tensor& want) {
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_TRUE(at::allclose(got, want, 1e-4, 1e-4)) << "max difference " << (got - want).abs().max().item<float>();
}

TEST(CpuKernels, MatchAtenOnEveryLayoutTheInterpreterUses) {
  at::manual_seed(7);
  CpuKernels products;
  const at::Tensor a = at::randn({37, 64}), w = at::randn({48, 64}), bias = at::randn({48});
  // A Gemm with transB / a 1x1 convolution: b is a transposed view, the bias added by the product;
  // as a constant (a weight) b is laid out once and reused.
  expect_same(products.matmul(a, w.t(), bias), at::addmm(bias, a, w.t()));
  for (int run = 0; run < 2; ++run) expect_same(products.matmul(a, w.t(), bias, true), at::addmm(bias, a, w.t()));
  // A transposed a.
  const at::Tensor cols = at::randn({64, 37});
  expect_same(products.matmul(cols.t(), w.t()), at::mm(cols.t(), w.t()));
  // [batch, seq, hidden] x [hidden, out]: BERT's projections.
  const at::Tensor x = at::randn({2, 5, 64});
  expect_same(products.matmul(x, w.t(), bias), at::matmul(x, w.t()) + bias);
  // Attention: the same batch dims on both sides, b a transposed view.
  const at::Tensor q = at::randn({2, 3, 5, 16}), k = at::randn({2, 3, 5, 16});
  expect_same(products.matmul(q, k.transpose(-1, -2)), at::matmul(q, k.transpose(-1, -2)));
  // A broadcast of the batch dims oneDNN is not given: ATen's result, the same values.
  const at::Tensor one = at::randn({1, 3, 16, 5});
  expect_same(products.matmul(q, one), at::matmul(q, one));
  // Run again: the built product is reused and computes on the new values.
  const at::Tensor a2 = at::randn({37, 64});
  expect_same(products.matmul(a2, w.t(), bias), at::addmm(bias, a2, w.t()));
}

TEST(CpuKernels, ConvolutionsMatchAten) {
  at::manual_seed(3);
  CpuKernels kernels;
  struct Case {
    std::vector<std::int64_t> x, w, strides, pads, dilations;
  };
  for (const Case& k : {Case{{1, 8, 13, 11}, {6, 8, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
                        Case{{2, 5, 17, 17}, {7, 5, 1, 7}, {1, 1}, {0, 3}, {1, 1}},
                        Case{{1, 4, 15, 16}, {3, 4, 3, 3}, {2, 2}, {0, 0}, {1, 1}},
                        Case{{1, 4, 9, 9}, {3, 4, 3, 3}, {1, 1}, {2, 2}, {2, 2}}}) {
    const at::Tensor x = at::randn(k.x), w = at::randn(k.w), bias = at::randn({k.w[0]});
    const at::Tensor want = at::convolution(x, w, bias, k.strides, k.pads, k.dilations, false, {0, 0}, 1);
    for (bool constant : {false, true})
      for (int run = 0; run < 2; ++run) {  // again: the built convolution and laid-out weight are reused
        const at::Tensor got = kernels.conv2d(x, w, bias, k.strides, k.pads, k.dilations, constant);
        expect_same(got, want);
        EXPECT_TRUE(got.is_contiguous(at::MemoryFormat::ChannelsLast));
      }
    expect_same(kernels.conv2d(x, w, {}, k.strides, k.pads, k.dilations),
                at::convolution(x, w, {}, k.strides, k.pads, k.dilations, false, {0, 0}, 1));
  }
}

TEST(CpuKernels, PoolingMatchesAten) {
  at::manual_seed(11);
  CpuKernels kernels;
  const at::Tensor x = at::randn({2, 5, 11, 12});
  for (std::int64_t stride : {1, 2})
    for (std::int64_t pad : {0, 1}) {
      const std::vector<std::int64_t> k = {3, 3}, s = {stride, stride}, p = {pad, pad};
      expect_same(kernels.pool2d(x, true, k, s, p, false), at::max_pool2d(x, k, s, p));
      for (bool include_pad : {false, true})
        for (int run = 0; run < 2; ++run)
          expect_same(kernels.pool2d(x, false, k, s, p, include_pad), at::avg_pool2d(x, k, s, p, false, include_pad));
    }
  // Negative inputs: a padded cell never wins a max.
  const at::Tensor negative = -at::rand({1, 2, 4, 4}) - 1;
  expect_same(kernels.pool2d(negative, true, {3, 3}, {1, 1}, {1, 1}, false),
              at::max_pool2d(negative, {3, 3}, {1, 1}, {1, 1}));
}

// The executor folds a zero Pad into the AveragePool that alone reads it; the pool then computes
// what the two ops compute.
TEST(CpuKernels, AZeroPadFoldsIntoTheAveragePoolAfterIt) {
  at::manual_seed(13);
  Op pad, pool;
  pad.name = "pad", pad.type = "Pad", pad.attrs["mode"] = std::string("constant");
  pool.name = "pool", pool.type = "AveragePool";
  pad.outputs = pool.outputs = {0};  // one output each (run_onnx_op returns as many)
  pool.attrs["kernel_shape"] = std::vector<std::int64_t>{3, 3};
  const at::Tensor x = at::randn({1, 4, 7, 6});
  const at::Tensor pads = at::tensor(std::vector<std::int64_t>{0, 0, 1, 1, 0, 0, 1, 1});
  const at::Tensor padded = run_onnx_op(pad, {x, pads}, "t")[0];
  ASSERT_EQ(padded.sizes(), (std::vector<std::int64_t>{1, 4, 9, 8}));
  const at::Tensor want = run_onnx_op(pool, {padded}, "t")[0];
  const std::vector<std::int64_t> folded = folded_pad_pads(pad, {at::Tensor(), pads}, pool);
  ASSERT_EQ(folded, (std::vector<std::int64_t>{1, 1}));
  CpuKernels kernels;
  OpContext context;
  context.kernels = &kernels;
  context.folded_pads = folded;
  expect_same(run_onnx_op(pool, {x}, "t", context)[0], want);
  // Not foldable: pads that are not constant, a value other than zero, a pool with pads of its own.
  EXPECT_TRUE(folded_pad_pads(pad, {at::Tensor(), at::Tensor()}, pool).empty());
  EXPECT_TRUE(folded_pad_pads(pad, {at::Tensor(), pads, at::tensor(1.0f)}, pool).empty());
  Op padded_pool = pool;
  padded_pool.attrs["pads"] = std::vector<std::int64_t>{1, 1, 1, 1};
  EXPECT_TRUE(folded_pad_pads(pad, {at::Tensor(), pads}, padded_pool).empty());
}

// An integer MaxPool is pooled as floats (exact for 8-bit values) and returned in its own type.
TEST(CpuKernels, AnIntegerMaxPoolKeepsItsType) {
  Op pool;
  pool.name = "pool", pool.type = "MaxPool", pool.outputs = {0};
  pool.attrs["kernel_shape"] = std::vector<std::int64_t>{2, 2};
  const at::Tensor x = at::arange(16, at::kByte).view({1, 1, 4, 4});
  const at::Tensor y = run_onnx_op(pool, {x}, "t")[0];
  EXPECT_EQ(y.scalar_type(), at::kByte);
  EXPECT_TRUE(at::equal(y, at::tensor(std::vector<std::uint8_t>{5, 6, 7, 9, 10, 11, 13, 14, 15}).view({1, 1, 3, 3})));
}

TEST(CpuKernels, OtherTypesGoToAten) {
  CpuKernels products;
  const at::Tensor a = at::arange(6, at::kLong).view({2, 3}), b = at::arange(6, at::kLong).view({3, 2});
  const at::Tensor y = products.matmul(a, b);
  EXPECT_EQ(y.scalar_type(), at::kLong);
  EXPECT_TRUE(at::equal(y, at::matmul(a, b)));
}

}  // namespace
}  // namespace devplace::exec
