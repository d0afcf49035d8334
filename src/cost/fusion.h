// Operator fusion as a target runtime does it: at batch 1 most of a small op's time on a GPU is
// its kernel launch, and runtimes merge an op into the kernel of the op that feeds it (oneDNN
// post-ops and OpenVINO's fusing passes: Conv + bias + activation + eltwise sum, FullyConnected
// + bias + activation, eltwise chains; ONNX Runtime's Conv/Gemm + activation and CUDA pointwise
// fusions). A device lists the rules its runtime applies (cluster file `fusion = [...]`, by kind
// when absent); docs/design/cost-model.md explains each rule and where it comes from.
//
// The model is a chain: op F joins the kernel of op P (its fusion parent) when P's one
// per-inference output feeds F alone, F is an op the rule lets follow the chain's head, and P and
// F run on the same device. A fused F pays no launch and does not re-read the tensor P made; a
// chain cut by the placement pays a launch again where it is cut (as a runtime that fuses within
// each device's subgraph does). Ops whose costs come from a table keep them (no fusion).
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace devplace {

enum class FusionRule {
  conv_epilogue,        // Conv head + elementwise / BatchNormalization followers (bias, act, sum)
  matmul_epilogue,      // MatMul / Gemm / FullyConnected head + elementwise followers
  elementwise_chain,    // consecutive elementwise ops in one kernel
  normalization_chain,  // reductions, softmax and normalisation with the elementwise ops around
                        // them (LayerNorm and softmax as exported op by op)
};

const char* fusion_rule_name(FusionRule r);
// Parses a device's rule names; throws Error naming `file` and `device` and listing the known
// rules for an unknown name.
std::vector<FusionRule> parse_fusion_rules(const std::vector<std::string>& names, const std::string& file,
                                           const std::string& device);
// The rules a runtime of this device kind applies when a cluster file does not say: all four
// on cpu (oneDNN/OpenVINO) and gpu (cuDNN/ORT/OpenVINO GPU); the two epilogues on accel.
std::vector<std::string> default_fusion_rules(const std::string& device_kind);

// For each op, the op whose kernel it joins under `rules` (see above), or -1. `fusible[i]` says
// whether op i may take part at all (false for folded ops and ops with table costs).
// REQUIRES: g finalized. Parents precede their followers in topological order.
std::vector<int> fusion_parents(const Graph& g, const std::vector<FusionRule>& rules, const std::vector<char>& fusible);

}  // namespace devplace
