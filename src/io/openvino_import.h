// OpenVINO IR importer: reads the topology (.xml, IR v10/v11) into a finalized, cost-annotated
// Graph. The weights file (.bin) is never opened: shapes come from the <dim> elements, and Const
// values (Reshape targets, Gather axes ...) are therefore unknown to us.
//
// Mapping: every <layer> becomes one Op (Const, Parameter, Result, Convert included), named after
// the layer (colliding names get "#<layer id>" appended, with a warning). Every output <port>
// becomes the Tensor "<layer name>:<port id>". Parameter outputs are graph inputs, Result inputs
// graph outputs; Const outputs, and outputs of ops whose inputs are all constant (the FP16/INT8
// weight-decompression chains Const -> Convert -> Multiply), are marked is_constant.
//
// Dynamic dims ("-1", "?", or a range "1..128" that is not a single value): ImportOptions::
// input_shapes binds Parameters by layer name or by any of the port's `names`. Shapes are then
// propagated forward in topological order for the op types where that is cheap (elementwise,
// broadcasting, MatMul, Convolution/pools, Concat, Gather, Reshape/Squeeze/Unsqueeze, Transpose,
// Broadcast, reductions with keep_dims, SDPA, ReadValue at its initial value = prefill ...),
// filling only dims the IR left dynamic, never overriding a static one. Fallback, only when some
// binding was given: where the rules stop (an op whose output keeps a dynamic dim: StridedSlice,
// Broadcast to a computed shape, Range ...), that dim is guessed on the spot and propagation
// continues from the guess: a same-rank input whose IR dim is dynamic at the same axis passes
// its value through; else axis 0 of a rank >= 2 tensor (or of a Parameter) takes the batch size
// (the first bound axis-0 value), any other axis the sequence length (the most frequent bound
// value at axis >= 1); a reshape's last unknown dim follows from the element count. One warning
// gives the number of guessed dims. Without bindings dims stay unknown (graph.h counts them as
// 1) and one warning says how to bind (--input NAME=1,128). See docs/design/openvino-import.md.
// Stateless; safe on several threads for different files, except that log::warn is not.
#pragma once

#include <string>

#include "graph/graph.h"
#include "io/model.h"

namespace devplace {

// What happened to the dynamic dims of one import, counted over tensors (each dim once).
struct OpenVinoImportStats {
  int layers = 0;        // <layer> elements in the file
  int edges = 0;         // <edge> elements in the file
  int dynamic_dims = 0;  // dims the IR leaves dynamic
  int bound = 0;         // filled from ImportOptions::input_shapes
  int propagated = 0;    // filled by forward shape propagation
  int fallback = 0;      // filled by the batch / sequence fallback
  int unknown = 0;       // still kUnknownDim in the returned graph
};

// Imports the IR at `xml_path`. Returns a finalized Graph with costs annotated.
// Throws Error(xml_path, layer-or-empty, reason) for unreadable or malformed XML, an input port
// without an incoming edge, an edge naming a missing layer or port, a binding that names no
// Parameter or contradicts a static dim. `stats`, when given, receives the dim accounting.
Graph import_openvino(const std::string& xml_path, const ImportOptions& opts = {},
                      OpenVinoImportStats* stats = nullptr);

// Same, from XML text already in memory; `source` names it in errors and Graph::source().
Graph import_openvino_text(const std::string& xml_text, const std::string& source, const ImportOptions& opts = {},
                           OpenVinoImportStats* stats = nullptr);

}  // namespace devplace
