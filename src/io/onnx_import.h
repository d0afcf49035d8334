// ONNX importer: reads a ModelProto (libonnx + protobuf) into a finalized, cost-annotated Graph.
// Weight data is never needed: initializers may be stripped of their data (as the bundled
// models/*.onnx are) as long as dims and data_type remain.
//
// Mapping: every NodeProto becomes one Op (Constant nodes included, type "Constant"), named after
// the node; an empty name becomes "<op_type>_<node index>", and a name already taken gets
// "#<node index>" appended (with a warning). Attributes of type int, float, string, ints and
// floats go to Op::attrs (tensor and graph attributes are dropped). Tensors keep their ONNX names;
// empty input names (omitted optional inputs) are skipped. Initializers are is_constant tensors
// (dims from the TensorProto, so stripped data does not matter); graph inputs that are not
// initializers are is_graph_input, graph outputs is_graph_output.
//
// Shapes: bindings in ImportOptions::input_shapes replace the declared shape of the named graph
// inputs (same rank required; the bound dims win over the file's, static or not; the file's
// value_info and output shapes are then dropped as stale). onnx::shape_inference::InferShapes
// (with data propagation) then fills value_info. Dims nobody resolves stay kUnknownDim and are
// counted as 1 (the documented fallback, see graph.h), with one warning per tensor kind (graph
// input, intermediate, graph output); a tensor whose rank is unknown gets the shape [?].
//
// Stateless; safe to call from several threads on different files except for the log::warn calls.
#pragma once

#include <set>
#include <string>

#include "graph/graph.h"
#include "io/model.h"

namespace devplace {

// Imports the ONNX model at `path`. Returns a finalized Graph with costs annotated.
// Throws Error(path, "", "not a valid ONNX model: ...") for a file protobuf cannot parse or that
// has no graph, Error(path, "", ...) for a binding that names no graph input or has the wrong
// rank or a failed shape inference, and Error(path, node, ...) for bad structure (duplicate
// producers, dangling inputs, cycles).
Graph import_onnx(const std::string& path, const ImportOptions& opts = {});

// Same, from the serialized ModelProto bytes; `source` names it in errors and Graph::source().
Graph import_onnx_bytes(const std::string& bytes, const std::string& source, const ImportOptions& opts = {});

// The op name the importer gives node `index` (the rule above); `taken` collects names so far.
// Shared with the exporter so that a placement maps back onto the same nodes.
std::string onnx_op_name(const std::string& node_name, const std::string& op_type, int index,
                         std::set<std::string>& taken);

}  // namespace devplace
