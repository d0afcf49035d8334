#include "graph/op_types.h"

#include <algorithm>
#include <unordered_map>

namespace devplace {
namespace {

// Columns: cost class, feature name, OpenVINO shape rule, FLOPs per element. A spelling without a
// feature name of its own takes its class's (pool -> avgpool, normalization -> layernorm,
// free -> reshape, other -> other).
const std::unordered_map<std::string, OpTypeInfo>& table() {
  static const std::unordered_map<std::string, OpTypeInfo> t = {
    // conv
    {"Conv", {OpClass::conv, "conv", ShapeRule::own, ElementCost::simple}},
    {"ConvInteger", {OpClass::conv, "conv", ShapeRule::own, ElementCost::simple}},
    {"Convolution", {OpClass::conv, "conv", ShapeRule::own, ElementCost::simple}},
    {"ConvolutionBackpropData", {OpClass::conv, "conv", ShapeRule::own, ElementCost::simple}},
    {"ConvTranspose", {OpClass::conv, "conv", ShapeRule::own, ElementCost::simple}},
    {"DeformableConvolution", {OpClass::conv, "conv", ShapeRule::own, ElementCost::simple}},
    {"GroupConvolution", {OpClass::conv, "conv", ShapeRule::own, ElementCost::simple}},
    {"GroupConvolutionBackpropData", {OpClass::conv, "conv", ShapeRule::own, ElementCost::simple}},
    {"QLinearConv", {OpClass::conv, "conv", ShapeRule::own, ElementCost::simple}},
    // matmul
    {"FullyConnected", {OpClass::matmul, "matmul", ShapeRule::own, ElementCost::simple}},
    {"Gemm", {OpClass::matmul, "matmul", ShapeRule::own, ElementCost::simple}},
    {"MatMul", {OpClass::matmul, "matmul", ShapeRule::own, ElementCost::simple}},
    {"MatMulInteger", {OpClass::matmul, "matmul", ShapeRule::own, ElementCost::simple}},
    {"QLinearMatMul", {OpClass::matmul, "matmul", ShapeRule::own, ElementCost::simple}},
    {"ScaledDotProductAttention", {OpClass::matmul, "matmul", ShapeRule::own, ElementCost::simple}},
    // pool
    {"AdaptiveAvgPool", {OpClass::pool, "avgpool", ShapeRule::own, ElementCost::simple}},
    {"AdaptiveMaxPool", {OpClass::pool, "maxpool", ShapeRule::own, ElementCost::simple}},
    {"AveragePool", {OpClass::pool, "avgpool", ShapeRule::own, ElementCost::simple}},
    {"AvgPool", {OpClass::pool, "avgpool", ShapeRule::own, ElementCost::simple}},
    {"GlobalAveragePool", {OpClass::pool, "globalpool", ShapeRule::own, ElementCost::simple}},
    {"GlobalLpPool", {OpClass::pool, "globalpool", ShapeRule::own, ElementCost::simple}},
    {"GlobalMaxPool", {OpClass::pool, "globalpool", ShapeRule::own, ElementCost::simple}},
    {"LpPool", {OpClass::pool, "avgpool", ShapeRule::own, ElementCost::simple}},
    {"MaxPool", {OpClass::pool, "maxpool", ShapeRule::own, ElementCost::simple}},
    {"MaxRoiPool", {OpClass::pool, "avgpool", ShapeRule::own, ElementCost::simple}},
    {"ROIAlign", {OpClass::pool, "avgpool", ShapeRule::own, ElementCost::simple}},
    {"RoiAlign", {OpClass::pool, "avgpool", ShapeRule::own, ElementCost::simple}},
    {"ROIPooling", {OpClass::pool, "avgpool", ShapeRule::own, ElementCost::simple}},
    // elementwise
    {"Abs", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::simple}},
    {"Acos", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::transcendental}},
    {"Acosh", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::transcendental}},
    {"Add", {OpClass::elementwise, "add", ShapeRule::broadcasting, ElementCost::simple}},
    {"And", {OpClass::elementwise, "compare", ShapeRule::own, ElementCost::simple}},
    {"Asin", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::transcendental}},
    {"Asinh", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::transcendental}},
    {"Atan", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::transcendental}},
    {"Atanh", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::transcendental}},
    {"BiasGelu", {OpClass::elementwise, "gelu", ShapeRule::own, ElementCost::composite}},
    {"BitShift", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Cast", {OpClass::elementwise, "convert", ShapeRule::own, ElementCost::simple}},
    {"CastLike", {OpClass::elementwise, "convert", ShapeRule::own, ElementCost::simple}},
    {"Ceil", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Ceiling", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::simple}},
    {"Celu", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::transcendental}},
    {"Clamp", {OpClass::elementwise, "clamp", ShapeRule::same_as_input, ElementCost::simple}},
    {"Clip", {OpClass::elementwise, "clamp", ShapeRule::own, ElementCost::simple}},
    {"Convert", {OpClass::elementwise, "convert", ShapeRule::same_as_input, ElementCost::simple}},
    {"ConvertLike", {OpClass::elementwise, "convert", ShapeRule::same_as_input, ElementCost::simple}},
    {"Cos", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"Cosh", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::transcendental}},
    {"CumSum", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::simple}},
    {"DequantizeLinear", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Div", {OpClass::elementwise, "div", ShapeRule::own, ElementCost::simple}},
    {"Divide", {OpClass::elementwise, "div", ShapeRule::broadcasting, ElementCost::simple}},
    {"Dropout", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Elu", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"Equal", {OpClass::elementwise, "compare", ShapeRule::broadcasting, ElementCost::simple}},
    {"Erf", {OpClass::elementwise, "erf", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"Exp", {OpClass::elementwise, "exp", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"FakeQuantize", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::simple}},
    {"FastGelu", {OpClass::elementwise, "gelu", ShapeRule::own, ElementCost::composite}},
    {"Floor", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::simple}},
    {"FloorMod", {OpClass::elementwise, "elementwise", ShapeRule::broadcasting, ElementCost::simple}},
    {"Gelu", {OpClass::elementwise, "gelu", ShapeRule::same_as_input, ElementCost::composite}},
    {"Greater", {OpClass::elementwise, "compare", ShapeRule::broadcasting, ElementCost::simple}},
    {"GreaterEqual", {OpClass::elementwise, "compare", ShapeRule::broadcasting, ElementCost::simple}},
    {"GreaterOrEqual", {OpClass::elementwise, "compare", ShapeRule::own, ElementCost::simple}},
    {"HardSigmoid", {OpClass::elementwise, "sigmoid", ShapeRule::own, ElementCost::simple}},
    {"HardSwish", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::composite}},
    {"HSigmoid", {OpClass::elementwise, "sigmoid", ShapeRule::same_as_input, ElementCost::simple}},
    {"HSwish", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::composite}},
    {"Interpolate", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"IsInf", {OpClass::elementwise, "compare", ShapeRule::own, ElementCost::simple}},
    {"IsNaN", {OpClass::elementwise, "compare", ShapeRule::own, ElementCost::simple}},
    {"LeakyRelu", {OpClass::elementwise, "relu", ShapeRule::own, ElementCost::simple}},
    {"Less", {OpClass::elementwise, "compare", ShapeRule::broadcasting, ElementCost::simple}},
    {"LessEqual", {OpClass::elementwise, "compare", ShapeRule::broadcasting, ElementCost::simple}},
    {"LessOrEqual", {OpClass::elementwise, "compare", ShapeRule::own, ElementCost::simple}},
    {"Log", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"LogicalAnd", {OpClass::elementwise, "compare", ShapeRule::broadcasting, ElementCost::simple}},
    {"LogicalNot", {OpClass::elementwise, "compare", ShapeRule::same_as_input, ElementCost::simple}},
    {"LogicalOr", {OpClass::elementwise, "compare", ShapeRule::broadcasting, ElementCost::simple}},
    {"LogicalXor", {OpClass::elementwise, "compare", ShapeRule::broadcasting, ElementCost::simple}},
    {"Max", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Maximum", {OpClass::elementwise, "elementwise", ShapeRule::broadcasting, ElementCost::simple}},
    {"Mean", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Min", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Minimum", {OpClass::elementwise, "elementwise", ShapeRule::broadcasting, ElementCost::simple}},
    {"Mish", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::composite}},
    {"Mod", {OpClass::elementwise, "elementwise", ShapeRule::broadcasting, ElementCost::simple}},
    {"Mul", {OpClass::elementwise, "mul", ShapeRule::own, ElementCost::simple}},
    {"Multiply", {OpClass::elementwise, "mul", ShapeRule::broadcasting, ElementCost::simple}},
    {"Neg", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Negative", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::simple}},
    {"Not", {OpClass::elementwise, "compare", ShapeRule::own, ElementCost::simple}},
    {"NotEqual", {OpClass::elementwise, "compare", ShapeRule::broadcasting, ElementCost::simple}},
    {"Or", {OpClass::elementwise, "compare", ShapeRule::own, ElementCost::simple}},
    {"Pow", {OpClass::elementwise, "pow", ShapeRule::own, ElementCost::transcendental}},
    {"Power", {OpClass::elementwise, "pow", ShapeRule::broadcasting, ElementCost::transcendental}},
    {"PReLU", {OpClass::elementwise, "relu", ShapeRule::own, ElementCost::simple}},
    {"PRelu", {OpClass::elementwise, "relu", ShapeRule::same_as_input, ElementCost::simple}},
    {"QuantizeLinear", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Range", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Reciprocal", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"ReLU", {OpClass::elementwise, "relu", ShapeRule::same_as_input, ElementCost::simple}},
    {"Relu", {OpClass::elementwise, "relu", ShapeRule::same_as_input, ElementCost::simple}},
    {"Resize", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Round", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::simple}},
    {"Select", {OpClass::elementwise, "select", ShapeRule::broadcasting, ElementCost::simple}},
    {"Selu", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"Sigmoid", {OpClass::elementwise, "sigmoid", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"Sign", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::simple}},
    {"Sin", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"Sinh", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::transcendental}},
    {"SoftPlus", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::composite}},
    {"Softplus", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::composite}},
    {"SoftSign", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"Softsign", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::transcendental}},
    {"Sqrt", {OpClass::elementwise, "sqrt", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"SquaredDifference", {OpClass::elementwise, "elementwise", ShapeRule::broadcasting, ElementCost::simple}},
    {"Sub", {OpClass::elementwise, "sub", ShapeRule::own, ElementCost::simple}},
    {"Subtract", {OpClass::elementwise, "sub", ShapeRule::broadcasting, ElementCost::simple}},
    {"Sum", {OpClass::elementwise, "add", ShapeRule::own, ElementCost::simple}},
    {"Swish", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::composite}},
    {"Tan", {OpClass::elementwise, "elementwise", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"Tanh", {OpClass::elementwise, "tanh", ShapeRule::same_as_input, ElementCost::transcendental}},
    {"ThresholdedRelu", {OpClass::elementwise, "relu", ShapeRule::own, ElementCost::simple}},
    {"Upsample", {OpClass::elementwise, "elementwise", ShapeRule::own, ElementCost::simple}},
    {"Where", {OpClass::elementwise, "select", ShapeRule::own, ElementCost::simple}},
    {"Xor", {OpClass::elementwise, "compare", ShapeRule::own, ElementCost::simple}},
    // normalization
    {"BatchNormalization", {OpClass::normalization, "batchnorm", ShapeRule::own, ElementCost::simple}},
    {"BatchNormInference", {OpClass::normalization, "batchnorm", ShapeRule::same_as_input, ElementCost::simple}},
    {"GroupNormalization", {OpClass::normalization, "layernorm", ShapeRule::own, ElementCost::simple}},
    {"InstanceNormalization", {OpClass::normalization, "layernorm", ShapeRule::own, ElementCost::simple}},
    {"LayerNormalization", {OpClass::normalization, "layernorm", ShapeRule::own, ElementCost::simple}},
    {"LpNormalization", {OpClass::normalization, "layernorm", ShapeRule::own, ElementCost::simple}},
    {"LRN", {OpClass::normalization, "layernorm", ShapeRule::same_as_input, ElementCost::simple}},
    {"MeanVarianceNormalization", {OpClass::normalization, "layernorm", ShapeRule::own, ElementCost::simple}},
    {"MVN", {OpClass::normalization, "layernorm", ShapeRule::same_as_input, ElementCost::simple}},
    {"NormalizeL2", {OpClass::normalization, "layernorm", ShapeRule::same_as_input, ElementCost::simple}},
    {"RMS", {OpClass::normalization, "layernorm", ShapeRule::same_as_input, ElementCost::simple}},
    {"RMSNormalization", {OpClass::normalization, "layernorm", ShapeRule::own, ElementCost::simple}},
    {"SimplifiedLayerNormalization", {OpClass::normalization, "layernorm", ShapeRule::own, ElementCost::simple}},
    {"SkipLayerNormalization", {OpClass::normalization, "layernorm", ShapeRule::own, ElementCost::simple}},
    // softmax
    {"Hardmax", {OpClass::softmax, "softmax", ShapeRule::own, ElementCost::simple}},
    {"LogSoftMax", {OpClass::softmax, "softmax", ShapeRule::own, ElementCost::simple}},
    {"LogSoftmax", {OpClass::softmax, "softmax", ShapeRule::same_as_input, ElementCost::simple}},
    {"SoftMax", {OpClass::softmax, "softmax", ShapeRule::same_as_input, ElementCost::simple}},
    {"Softmax", {OpClass::softmax, "softmax", ShapeRule::same_as_input, ElementCost::simple}},
    // reduce
    {"ArgMax", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ArgMin", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ReduceL1", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ReduceL2", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ReduceLogicalAnd", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ReduceLogicalOr", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ReduceLogSum", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ReduceLogSumExp", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ReduceMax", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ReduceMean", {OpClass::reduce, "reduce_mean", ShapeRule::own, ElementCost::simple}},
    {"ReduceMin", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ReduceProd", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ReduceSum", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"ReduceSumSquare", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    {"TopK", {OpClass::reduce, "reduce", ShapeRule::own, ElementCost::simple}},
    // data_movement
    {"Assign", {OpClass::data_movement, "data_movement", ShapeRule::same_as_input, ElementCost::simple}},
    {"Broadcast", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"Compress", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"Concat", {OpClass::data_movement, "concat", ShapeRule::own, ElementCost::simple}},
    {"ConstantOfShape", {OpClass::data_movement, "constant", ShapeRule::own, ElementCost::simple}},
    {"Copy", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"DepthToSpace", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"Expand", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"EyeLike", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"Gather", {OpClass::data_movement, "gather", ShapeRule::own, ElementCost::simple}},
    {"GatherElements", {OpClass::data_movement, "gather", ShapeRule::own, ElementCost::simple}},
    {"GatherND", {OpClass::data_movement, "gather", ShapeRule::own, ElementCost::simple}},
    {"NonZero", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"OneHot", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"Pad", {OpClass::data_movement, "pad", ShapeRule::own, ElementCost::simple}},
    {"ReadValue", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"Reverse", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"ReverseSequence", {OpClass::data_movement, "data_movement", ShapeRule::same_as_input, ElementCost::simple}},
    {"Roll", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"Scatter", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"ScatterElements", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"ScatterElementsUpdate", {OpClass::data_movement, "data_movement", ShapeRule::same_as_input, ElementCost::simple}},
    {"ScatterND", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"ScatterNDUpdate", {OpClass::data_movement, "data_movement", ShapeRule::same_as_input, ElementCost::simple}},
    {"ScatterUpdate", {OpClass::data_movement, "data_movement", ShapeRule::same_as_input, ElementCost::simple}},
    {"ShuffleChannels", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"Slice", {OpClass::data_movement, "slice", ShapeRule::own, ElementCost::simple}},
    {"SpaceToDepth", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"Split", {OpClass::data_movement, "split", ShapeRule::own, ElementCost::simple}},
    {"StridedSlice", {OpClass::data_movement, "slice", ShapeRule::own, ElementCost::simple}},
    {"Tile", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"Transpose", {OpClass::data_movement, "transpose", ShapeRule::own, ElementCost::simple}},
    {"Trilu", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"Unique", {OpClass::data_movement, "data_movement", ShapeRule::own, ElementCost::simple}},
    {"VariadicSplit", {OpClass::data_movement, "split", ShapeRule::own, ElementCost::simple}},
    // free
    {"Const", {OpClass::free, "constant", ShapeRule::own, ElementCost::simple}},
    {"Constant", {OpClass::free, "constant", ShapeRule::own, ElementCost::simple}},
    {"Flatten", {OpClass::free, "reshape", ShapeRule::own, ElementCost::simple}},
    {"Identity", {OpClass::free, "reshape", ShapeRule::same_as_input, ElementCost::simple}},
    {"Optional", {OpClass::free, "reshape", ShapeRule::own, ElementCost::simple}},
    {"Parameter", {OpClass::free, "parameter", ShapeRule::own, ElementCost::simple}},
    {"Reshape", {OpClass::free, "reshape", ShapeRule::own, ElementCost::simple}},
    {"Result", {OpClass::free, "result", ShapeRule::own, ElementCost::simple}},
    {"Shape", {OpClass::free, "shape_of", ShapeRule::own, ElementCost::simple}},
    {"ShapeOf", {OpClass::free, "shape_of", ShapeRule::own, ElementCost::simple}},
    {"Sink", {OpClass::free, "reshape", ShapeRule::own, ElementCost::simple}},
    {"Size", {OpClass::free, "shape_of", ShapeRule::own, ElementCost::simple}},
    {"Squeeze", {OpClass::free, "reshape", ShapeRule::own, ElementCost::simple}},
    {"Unsqueeze", {OpClass::free, "reshape", ShapeRule::own, ElementCost::simple}},
    // other
    {"BiasAdd", {OpClass::other, "add", ShapeRule::own, ElementCost::simple}},
    {"BitwiseAnd", {OpClass::other, "other", ShapeRule::broadcasting, ElementCost::simple}},
    {"BitwiseOr", {OpClass::other, "other", ShapeRule::broadcasting, ElementCost::simple}},
    {"BitwiseXor", {OpClass::other, "other", ShapeRule::broadcasting, ElementCost::simple}},
    {"DetectionOutput", {OpClass::other, "other", ShapeRule::own, ElementCost::simple}},
    {"Einsum", {OpClass::other, "other", ShapeRule::own, ElementCost::simple}},
    {"GRN", {OpClass::other, "other", ShapeRule::same_as_input, ElementCost::simple}},
    {"If", {OpClass::other, "other", ShapeRule::own, ElementCost::simple}},
    {"Loop", {OpClass::other, "other", ShapeRule::own, ElementCost::simple}},
    {"NonMaxSuppression", {OpClass::other, "other", ShapeRule::own, ElementCost::simple}},
    {"PriorBox", {OpClass::other, "other", ShapeRule::own, ElementCost::simple}},
    {"PriorBoxClustered", {OpClass::other, "other", ShapeRule::own, ElementCost::simple}},
    {"Proposal", {OpClass::other, "other", ShapeRule::own, ElementCost::simple}},
    {"RegionYolo", {OpClass::other, "other", ShapeRule::own, ElementCost::simple}},
    {"Scan", {OpClass::other, "other", ShapeRule::own, ElementCost::simple}},
  };
  return t;
}

}  // namespace

const OpTypeInfo& op_type_info(const std::string& op_type) {
  static const OpTypeInfo unknown;
  const auto& t = table();
  auto it = t.find(op_type);
  return it == t.end() ? unknown : it->second;
}

bool is_known_op_type(const std::string& op_type) { return table().count(op_type) > 0; }

std::vector<std::string> known_op_types() {
  std::vector<std::string> names;
  for (const auto& [name, info] : table()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

const char* op_class_name(OpClass c) {
  switch (c) {
    case OpClass::conv:
      return "conv";
    case OpClass::matmul:
      return "matmul";
    case OpClass::pool:
      return "pool";
    case OpClass::elementwise:
      return "elementwise";
    case OpClass::normalization:
      return "normalization";
    case OpClass::softmax:
      return "softmax";
    case OpClass::reduce:
      return "reduce";
    case OpClass::data_movement:
      return "data_movement";
    case OpClass::free:
      return "free";
    case OpClass::other:
      return "other";
  }
  return "other";
}

bool parse_op_class(const std::string& name, OpClass& out) {
  for (OpClass c : {OpClass::conv, OpClass::matmul, OpClass::pool, OpClass::elementwise, OpClass::normalization,
                    OpClass::softmax, OpClass::reduce, OpClass::data_movement, OpClass::free, OpClass::other}) {
    if (name == op_class_name(c)) {
      out = c;
      return true;
    }
  }
  return false;
}

}  // namespace devplace
