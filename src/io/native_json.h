// devplace's own graph format: a JSON document that holds every field of a Graph's ops and
// tensors, so a graph written and read back is identical (same op order, tensor ids, attrs with
// their variant types, and the FLOPs / bytes an importer or annotate_costs() filled in; no
// re-annotation needed). Use it to cache an imported model or to hand-write a small graph.
// Stateless; safe from any thread.
//
//   {"format": "devplace-graph", "version": 1, "name": "...", "source": "<original file>",
//    "tensors": [{"name", "shape": [..], "dtype": "f32", "fixed_bytes": -1,
//                 "is_graph_input", "is_graph_output", "is_constant"}, ...],
//    "ops": [{"name", "type", "inputs": [tensor names], "outputs": [tensor names],
//             "attrs": {"k": {"int": 3} | {"float": 0.5} | {"string": "x"} |
//                            {"ints": [..]} | {"floats": [..]}},
//             "flops", "macs", "weight_bytes", "bytes_accessed"}, ...]}
//
// Attr values are tagged because JSON alone cannot tell 1 from 1.0 once parsed, nor an empty
// int list from an empty float list. Non-finite floats are written as "nan", "inf", "-inf".
// Producers and consumers are not stored: finalize() derives them. Tensors are listed in id
// order; ops in the graph's (topological) order. "source" is provenance only: a graph read back
// has the JSON file as its source, so errors name the file the user actually gave.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "graph/graph.h"

namespace devplace {

constexpr const char* kGraphJsonFormat = "devplace-graph";
constexpr int kGraphJsonVersion = 1;

// Serialises `g`. The round trip is exact for a finalized graph (an unfinalized one comes back
// finalized, hence possibly reordered).
nlohmann::json graph_to_json(const Graph& g);
// Writes graph_to_json(g) to `path` atomically (indented, trailing newline).
void write_graph_json(const Graph& g, const std::string& path);

// Parses a document made by graph_to_json. Returns a finalized Graph whose source is `file`.
// Throws Error(file, op or tensor, reason) for a wrong format tag or version, missing or
// mistyped fields, an unknown dtype or attr tag, an op naming a tensor not listed, or any
// structural problem finalize() finds.
Graph graph_from_json(const nlohmann::json& j, const std::string& file);
// Reads and parses `path` (Error on unreadable or invalid JSON).
Graph read_graph_json(const std::string& path);

// True when `j` carries the "devplace-graph" format tag; lets load_model() dispatch by content.
bool is_graph_json(const nlohmann::json& j);

}  // namespace devplace
