// Values an ONNX runtime computes once, before the first inference: shape arithmetic on static
// shapes (Shape -> Gather -> Mod -> Sub -> Concat -> Pad, `x.view(x.size(0), -1)`, windowing)
// and small constant subgraphs. ONNX's own data propagation covers a few ops (Shape, Gather,
// Slice, Concat, Add/Sub/Mul ...) but not Div, Mod, Range, ConstantOfShape, Where, Expand ...,
// so exports with run-time shape arithmetic keep unknown dims, and every op behind them is
// costed as if its tensors had one element. This pass evaluates those values and re-runs shape
// inference until nothing more is learned.
#pragma once

#include <string>

namespace onnx {
class ModelProto;
}

namespace devplace {

struct StaticValueReport {
  int evaluated = 0;  // nodes whose outputs were computed
  int passes = 0;     // shape-inference runs
};

// Runs ONNX shape inference (with data propagation) on `model`, then repeatedly replaces every
// node whose inputs are all known values (initializers with data, Constants, shapes of tensors
// whose shape is known, and what this pass computed) and whose outputs are small (at most
// kMaxStaticElements each) by Constant nodes holding its outputs, and infers again. `model` is a
// working copy: its nodes change (names and outputs stay). Throws Error naming `source` when
// shape inference fails.
inline constexpr long kMaxStaticElements = 1 << 16;
StaticValueReport infer_shapes_with_static_values(onnx::ModelProto& model, const std::string& source);

}  // namespace devplace
