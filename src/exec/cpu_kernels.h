// Matrix products, 2-D convolutions and 2-D pooling of float CPU tensors on oneDNN: ONNX MatMul
// and Gemm, 1x1 convolutions as one product over the channels-last input, the other ungrouped
// 2-D convolutions, MaxPool and AveragePool, on channels-last tensors. oneDNN picks its code for
// the processor from cpuid, so their speed does not follow OpenBLAS's kernel choice (which
// OPENBLAS_CORETYPE can force), and it runs on the calling thread's OpenMP team, the same
// threads as ATen's other kernels: no second pool competes for the worker's cores.
// Internal to exec/ (it includes ATen).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <ATen/ATen.h>

namespace devplace::exec {

// Built kernels, reused while the shapes and layouts repeat (they do, run after run), and
// weights laid out for them once. One per thread that runs ops: not thread-safe.
class CpuKernels {
 public:
  CpuKernels();
  ~CpuKernels();
  CpuKernels(const CpuKernels&) = delete;
  CpuKernels& operator=(const CpuKernels&) = delete;

  // a [..., M, K] x b [..., K, N] (+ bias [N]) with NumPy's broadcasting of the batch dims, as
  // at::matmul; float CPU tensors of any strides go to oneDNN, anything else to ATen.
  // `b_constant`: b (one matrix) holds the same values for as long as this object lives (a
  // weight): it is reordered once into oneDNN's blocked layout and kept, with a reference to b so
  // that its address never names another tensor.
  at::Tensor matmul(const at::Tensor& a, const at::Tensor& b, const c10::optional<at::Tensor>& bias = {},
                    bool b_constant = false);

  // An ungrouped 2-D convolution of x [N, C, H, W] by w [Cout, C, kh, kw] (+ bias [Cout]), pads
  // [top, left] applied on both sides, dilations as ONNX's (1 = none); the output is
  // channels-last. `w_constant` as b_constant above. Float CPU tensors only (at::convolution
  // otherwise; the caller checks).
  at::Tensor conv2d(const at::Tensor& x, const at::Tensor& w, const c10::optional<at::Tensor>& bias,
                    at::IntArrayRef strides, at::IntArrayRef pads, at::IntArrayRef dilations, bool w_constant = false);

  // 2-D max or average pooling of x [N, C, H, W], without dilation, rounding the output size
  // down, pads [top, left] on both sides (padding never wins a max; `include_pad`: an average
  // counts the padded cells). The output is channels-last. Float CPU tensors only.
  at::Tensor pool2d(const at::Tensor& x, bool max, at::IntArrayRef kernel, at::IntArrayRef strides,
                    at::IntArrayRef pads, bool include_pad);

  // "oneDNN", or what runs the products in a build without it.
  static const char* library();

 private:
  at::Tensor product(const at::Tensor& a, const at::Tensor& b, const c10::optional<at::Tensor>& bias, bool b_constant);
  at::Tensor convolution(const at::Tensor& x, const at::Tensor& w, const c10::optional<at::Tensor>& bias,
                         at::IntArrayRef strides, at::IntArrayRef pads, at::IntArrayRef dilations, bool w_constant);
  at::Tensor pooling(const at::Tensor& x, bool max, at::IntArrayRef kernel, at::IntArrayRef strides,
                     at::IntArrayRef pads, bool include_pad);
  struct Engine;
  struct Built;  // a matmul
  struct BuiltConv;
  struct BuiltPool;
  std::unique_ptr<Engine> engine_;
  // Keyed by the operands' sizes and strides, the attributes, and a constant weight's address.
  std::map<std::vector<std::int64_t>, std::unique_ptr<Built>> built_;
  std::map<std::vector<std::int64_t>, std::unique_ptr<BuiltConv>> built_convs_;
  std::map<std::vector<std::int64_t>, std::unique_ptr<BuiltPool>> built_pools_;
};

}  // namespace devplace::exec
