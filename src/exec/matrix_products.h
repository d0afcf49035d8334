// Matrix products of float CPU tensors on oneDNN: ONNX MatMul and Gemm, and the convolutions the
// interpreter lowers to one product (1x1, and small outputs over the unfolded input). oneDNN
// picks its code for the processor from cpuid, so their speed does not follow OpenBLAS's kernel
// choice (which OPENBLAS_CORETYPE can force), and it runs on the calling thread's OpenMP team,
// the same threads as ATen's other kernels: no second pool competes for the worker's cores.
// Internal to exec/ (it includes ATen).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <ATen/ATen.h>

namespace devplace::exec {

// Built products, reused while the shapes and layouts repeat (they do, run after run). One per
// thread that runs ops: not thread-safe.
class MatrixProducts {
 public:
  MatrixProducts();
  ~MatrixProducts();
  MatrixProducts(const MatrixProducts&) = delete;
  MatrixProducts& operator=(const MatrixProducts&) = delete;

  // a [..., M, K] x b [..., K, N] (+ bias [N]) with NumPy's broadcasting of the batch dims, as
  // at::matmul; float CPU tensors of any strides go to oneDNN, anything else to ATen.
  at::Tensor matmul(const at::Tensor& a, const at::Tensor& b, const c10::optional<at::Tensor>& bias = {});

  // "oneDNN", or what runs the products in a build without it.
  static const char* library();

 private:
  at::Tensor product(const at::Tensor& a, const at::Tensor& b, const c10::optional<at::Tensor>& bias);
  struct Built;
  struct Engine;
  std::unique_ptr<Engine> engine_;
  std::map<std::vector<std::int64_t>, std::unique_ptr<Built>> built_;
};

}  // namespace devplace::exec
