// The one table of what devplace knows about an op type, for both vocabularies it reads (ONNX
// "Conv", "Gemm", "Relu" ... and OpenVINO "Convolution", "GroupConvolution", "ReLU" ...): its cost
// class (graph/op_costs), its name in the learned placers' feature vocabulary (learn/features),
// how an OpenVINO importer infers its output shape (io/openvino_import) and how many FLOPs an
// elementwise op spends per element. A new op type is taught here once. The executor's kernels
// (exec/onnx_ops) are implementations, not knowledge, and stay with the executor.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace devplace {

enum class OpClass {
  conv,           // Conv, ConvTranspose, Convolution, GroupConvolution
  matmul,         // MatMul, Gemm, FullyConnected
  pool,           // MaxPool, AveragePool, GlobalAveragePool, AvgPool ...
  elementwise,    // Add, Relu, Mul, Erf, Gelu, Clamp, Convert ...
  normalization,  // BatchNormalization, LayerNormalization, MVN, ...
  softmax,        // Softmax, SoftMax, LogSoftmax
  reduce,         // ReduceMean, ReduceSum, ...
  data_movement,  // Concat, Transpose, Gather, Slice, Split, Pad ... (copy bytes, no math)
  free,           // Reshape, Flatten, Squeeze, ShapeOf, Constant, Parameter, Result ... (no kernel)
  other,          // anything we do not know: one FLOP per output element
};

// How an OpenVINO importer derives the op's output shape from its inputs when the IR's shape has
// unknown dims: the first input's shape, the numpy broadcast of all inputs, or a rule of its own.
enum class ShapeRule { own, same_as_input, broadcasting };

// FLOPs per output element of an elementwise op: 1 (simple), a transcendental (exp, erf, tanh,
// sigmoid, sqrt, pow ...: a vectorised polynomial, a handful of FMAs) or a composite of a
// transcendental and a few multiplies (GELU, Swish, Mish, Softplus). Values in op_costs.cc.
enum class ElementCost { simple, transcendental, composite };

struct OpTypeInfo {
  OpClass op_class = OpClass::other;
  std::string_view feature_name = "other";  // an entry of learn/representation/features.h kOpTypeVocabulary
  ShapeRule shape_rule = ShapeRule::own;
  ElementCost element_cost = ElementCost::simple;
};

// What the table says of `op_type` (case-sensitive); the defaults above for an unknown type.
const OpTypeInfo& op_type_info(const std::string& op_type);
// True when the table has a row for `op_type`.
bool is_known_op_type(const std::string& op_type);
// Every type the table has a row for, sorted.
std::vector<std::string> known_op_types();

const char* op_class_name(OpClass c);
// Parses a name produced by op_class_name; returns false for an unknown name.
bool parse_op_class(const std::string& name, OpClass& out);

// The class of an op type (case-sensitive names of both vocabularies); `other` when unknown.
inline OpClass classify(const std::string& op_type) { return op_type_info(op_type).op_class; }

}  // namespace devplace
