// MatrixProducts against ATen's at::matmul on every shape and layout the interpreter hands it.
#include "exec/matrix_products.h"

#include <gtest/gtest.h>

namespace devplace::exec {
namespace {

void expect_same(const at::Tensor& got, const at::Tensor& want) {
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_TRUE(at::allclose(got, want, 1e-4, 1e-4)) << "max difference " << (got - want).abs().max().item<float>();
}

TEST(MatrixProducts, MatchAtenOnEveryLayoutTheInterpreterUses) {
  at::manual_seed(7);
  MatrixProducts products;
  const at::Tensor a = at::randn({37, 64}), w = at::randn({48, 64}), bias = at::randn({48});
  // A Gemm with transB / a 1x1 convolution: b is a transposed view, the bias added by the product.
  expect_same(products.matmul(a, w.t(), bias), at::addmm(bias, a, w.t()));
  // A transposed a (the unfolded input of a small-output convolution).
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

TEST(MatrixProducts, OtherTypesGoToAten) {
  MatrixProducts products;
  const at::Tensor a = at::arange(6, at::kLong).view({2, 3}), b = at::arange(6, at::kLong).view({3, 2});
  const at::Tensor y = products.matmul(a, b);
  EXPECT_EQ(y.scalar_type(), at::kLong);
  EXPECT_TRUE(at::equal(y, at::matmul(a, b)));
}

}  // namespace
}  // namespace devplace::exec
