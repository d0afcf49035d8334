// The ONNX op interpreter: one ONNX node evaluated with ATen ops. Internal to exec/ (it
// includes ATen): the command line reaches it only through executor.h.
//
// Inputs arrive in ONNX port order; an omitted optional input is an undefined at::Tensor.
// Semantics follow the ONNX operator spec at opset 17 for the ops listed in
// supported_onnx_ops(); anything else throws Error naming the op and its type.
// Stateless and thread-safe: several workers call it at once (each with its own CpuKernels).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "graph/graph.h"

namespace onnx {
class TensorProto;
}

namespace devplace::exec {

class CpuKernels;

// What the caller knows about one op beyond its inputs; the defaults evaluate it on its own.
struct OpContext {
  // The caller owns input 0 exclusively, so an element-wise op (Relu, Add, Mul, Sub, Div,
  // Sigmoid, Tanh, Erf) may write its result into it instead of a new tensor.
  bool overwrite_input0 = false;
  // The calling thread's built kernels (exec/cpu_kernels.h), reused run after run; null builds
  // them for this call alone.
  CpuKernels* kernels = nullptr;
  // Bit i set when input i is a weight that keeps its values run after run, so that `kernels`
  // may lay it out once.
  std::uint64_t constant_inputs = 0;
  // An AveragePool whose input arrives without the zero padding [height, width] (on both sides)
  // of a Pad folded into it (folded_pad_pads): it pads and counts the padded cells itself. A view
  // of the caller's pads, which outlive the call.
  at::IntArrayRef folded_pads;
};

// The pads [height, width] when `pad` (a Pad op; `pad_inputs` its inputs, undefined where not
// constant) only zero-pads the spatial dims of a 4-D tensor symmetrically and `pool` (its only
// reader) is an AveragePool that can pad them itself exactly (no pads of its own, no dilation,
// floor rounding, pads at most half the window); empty otherwise. The Pad then passes its input
// on, and the pool runs with OpContext::folded_pads: one pass over the data instead of two.
std::vector<std::int64_t> folded_pad_pads(const Op& pad, const std::vector<at::Tensor>& pad_inputs, const Op& pool);

// Evaluates `op` on `inputs` (on the device the inputs are on) and returns its outputs in port
// order. Throws Error(source, op.name, reason) for an unsupported type or bad inputs.
std::vector<at::Tensor> run_onnx_op(const Op& op, const std::vector<at::Tensor>& inputs, const std::string& source,
                                    const OpContext& context = {});

// A Conv's weight `w` in the layout the kernel run_onnx_op picks for it reads best (channels-last
// for oneDNN's direct convolutions, output channels fastest for the 1x1 ones it runs as one matrix
// product), given the input dims the graph declares; the executor calls it once at load time.
// Any layout stays correct.
at::Tensor prepare_conv_weight(const Op& op, const at::Tensor& w, const std::vector<std::int64_t>& input_dims);

// The op types run_onnx_op understands.
const std::vector<std::string>& supported_onnx_ops();

// The at::ScalarType of an ONNX TensorProto data_type (1 float, 7 int64 ...); throws for others.
at::ScalarType onnx_scalar_type(int onnx_data_type);

// The values of `proto` as a CPU tensor, or an undefined tensor when the proto carries no data
// (a stripped initializer). Throws Error for a malformed proto.
at::Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& source);

}  // namespace devplace::exec
