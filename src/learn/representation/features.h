// Node features of a coarsened graph (step 2 of HSDAG, Duan et al. 2024): one row per group
// (coarse node), columns in named blocks that can be switched off one by one for ablations.
// Plain C++ (no LibTorch): the learned model copies `data` into a tensor.
//
// Blocks, in column order (each present only when its option is on):
//   op_type       [kOpTypeVocabulary.size()]  mean of the members' one-hots over a fixed
//                 vocabulary of canonical types (ONNX and OpenVINO spellings map to one name;
//                 unknown types -> "other"). For a single op it is the one-hot itself; for a
//                 group, the fraction of its ops of each type (rows sum to 1).
//   degree        [2 * (max_degree + 1)]  one-hot in-degree, then one-hot out-degree, of the
//                 coarse node, clipped at max_degree.
//   output_shape  [4]  first output tensor of the group's last op (in topological order):
//                 log1p(dim) of dims 0..2, and of the product of dims 3.. (so rank > 4 keeps
//                 the element count); missing or unknown dims -> 0.
//   position      [position_dims]  sinusoidal encoding of the group index (its topological
//                 position): column 2k = sin(i / 10000^(2k/D)), 2k+1 = cos(same).
//   fractal       [1]  node fractal dimension on the undirected coarse graph (see
//                 fractal_dimensions below).
//   node_id       [1]  group index / num_groups, in [0, 1).
//   cost          [2 + devices]  (off by default; beyond the paper) log1p(sum of FLOPs / 1e6),
//                 log1p(sum of bytes accessed / 1e6), then per device log1p(summed op time in
//                 microseconds), -1 where some member cannot run on that device.
// Values are not standardised: every block is raw but scaled to roughly [-1, ~12] (one-hots
// and fractions in [0, 1], sin/cos in [-1, 1], fractal dimension ~0..3, logs of sizes < ~12),
// which keeps them comparable without statistics that would differ between graphs.
// All functions are pure and deterministic; safe to call from several threads.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cost/cost_model.h"
#include "learn/representation/coarsen.h"

namespace devplace {

// The canonical op types of the op_type block, in column order. "other" (last) takes any
// spelling that maps to none of the others.
inline constexpr std::array<std::string_view, 40> kOpTypeVocabulary = {
    "conv",      "matmul",    "add",     "sub",       "mul",        "div",           "relu",        "sigmoid",
    "tanh",      "gelu",      "erf",     "pow",       "sqrt",       "exp",           "clamp",       "softmax",
    "batchnorm", "layernorm", "maxpool", "avgpool",   "globalpool", "reduce_mean",   "reduce",      "concat",
    "split",     "slice",     "gather",  "transpose", "reshape",    "shape_of",      "constant",    "parameter",
    "result",    "convert",   "pad",     "select",    "compare",    "data_movement", "elementwise", "other"};

// Column index in kOpTypeVocabulary of an op type as a file spells it ("Convolution" -> conv):
// its feature name in graph/op_types.h; "other" for a type the table does not know.
int canonical_op_type(const std::string& op_type);

struct FeatureOptions {
  bool op_type = true, degree = true, output_shape = true, position = true, fractal = true, node_id = true;
  bool cost = false;
  int position_dims = 16;      // width of the position block (any positive number)
  int max_degree = 8;          // degrees above it share the last column
  int fractal_max_radius = 6;  // R: largest ball radius for the fractal dimension
};

struct FeatureMatrix {
  int rows = 0, cols = 0;
  std::vector<float> data;                          // row-major, rows * cols
  std::vector<std::pair<std::string, int>> groups;  // block name and width, in column order

  float at(int r, int c) const { return data[static_cast<std::size_t>(r) * cols + c]; }
  // First column of block `name`, or -1 when absent.
  int offset(const std::string& name) const;
  // Width of block `name`, or 0 when absent.
  int width(const std::string& name) const;
};

// REQUIRES: c was computed from p.graph(). Throws Error on a mismatch or bad options.
FeatureMatrix node_features(const Problem& p, const Coarsening& c, const FeatureOptions& o = {});

// Node fractal dimension of every node of an undirected graph (adjacency lists, symmetric).
// N(r) = number of nodes within shortest-path distance r (the node itself included); r runs
// 1..R and stops at the last radius where the ball still grew (bounded BFS: O(n * ball size)).
// The dimension is the least-squares slope of log N(r) against log(2r + 1): 2r + 1 is the
// linear size of the ball (its diameter in nodes, the box-size convention of box covering),
// for which a path gives N = 2r + 1, slope exactly 1, and a square grid (Manhattan balls,
// N = 2r^2 + 2r + 1) slope 1.93 for R = 6, where log N against log r would give 0.82 and 1.59 at
// such small radii. With a single usable radius the slope is taken through (r = 0, N = 1).
// Isolated nodes get 0.
std::vector<double> fractal_dimensions(const std::vector<std::vector<int>>& undirected_adjacency, int max_radius);

}  // namespace devplace
