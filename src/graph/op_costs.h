// Op semantics the cost model needs: which class an op type belongs to, and how many FLOPs and
// bytes an op moves, derived from its tensor shapes. Covers both vocabularies devplace reads
// (ONNX "Conv", "Gemm", "Relu" ... and OpenVINO "Convolution", "GroupConvolution", "ReLU" ...).
// Unknown op types get the documented default (one FLOP per output element, class `other`) and
// one warning per type. Conventions: 1 MAC = 2 FLOPs; see docs/cost-model.md.
#pragma once

#include <string>

#include "graph/graph.h"

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

const char* op_class_name(OpClass c);
// Parses a name produced by op_class_name; returns false for an unknown name.
bool parse_op_class(const std::string& name, OpClass& out);

// The class of an op type (case-sensitive names of both vocabularies).
OpClass classify(const std::string& op_type);

// True for ops that produce only constants (Const, Constant, or ops whose outputs the importer
// marked constant because all their inputs are): runtimes fold them at load time, so they cost
// no time per inference and hold the constants they produce as weights.
bool is_folded(const Graph& g, const Op& op);

// Fills flops, macs, weight_bytes and bytes_accessed of every op from shapes.
// REQUIRES: g.finalized(). Ops whose importer already set flops > 0 keep their value.
void annotate_costs(Graph& g);

}  // namespace devplace
