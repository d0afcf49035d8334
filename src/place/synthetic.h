// Synthetic layered DAGs for scale tests: seeded, NN-like graphs of any size (1k .. 100k+ ops)
// with roofline costs (FLOPs, bytes, weights set per op) and a cluster built in code, so a
// scale measurement needs no model file. Everything is a pure function of the options; the
// same options always give the same graph.
#pragma once

#include <cstdint>
#include <memory>

#include "cost/cost_model.h"

namespace devplace {

// Graph families. `layered`: the scale-test DAG below. `branchy`: an Inception/ResNet-like CNN
// (stem, then blocks of 2..`width` parallel conv towers joined by a Concat, residual bottlenecks
// with probability `skip_prob`, stride-2 reductions; head: pooling and a classifier).
// `transformer`: a BERT-like encoder (embedding, then layers of Q/K/V projections, attention,
// output projection, residual adds, LayerNorms and an erf-GELU feed-forward block). `decoder`: a
// LLaMA-like decoder (RMSNorm, rotary embeddings, grouped-query attention over a key/value cache
// read from and stored to state, a SwiGLU feed-forward block, and the small shape arithmetic
// exported graphs carry: ShapeOf, Gather, Concat before every Reshape).
enum class SyntheticFamily { layered, branchy, transformer, decoder };

struct SyntheticOptions {
  SyntheticFamily family = SyntheticFamily::layered;
  int ops = 1000;          // op count, >= 1 (branchy and transformer: about, whole blocks)
  int width = 4;           // ops per layer (parallel branches); the last layer may be narrower
  double skip_prob = 0.2;  // chance that an op also reads an op up to `skip_span` layers back
  int skip_span = 8;       // (residual-like long edges)
  int tokens = 512;        // rows of every activation ([tokens, hidden] f32); transformer: sequence
  int hidden = 768;        // transformer: model width (heads of 64); branchy: channels after the stem
  int side = 35;           // branchy: feature-map side after the stem (the input is 8x that)
  int gpus = 2;            // accelerators of the cluster besides the host cpu
  std::uint64_t seed = 1;
};

// A Problem with the Graph it refers to; not movable (the Problem keeps a reference to
// `graph`), hence handed out by pointer.
struct SyntheticProblem {
  Graph graph{"synthetic"};
  std::unique_ptr<Problem> problem;
};

// Layers of `width` ops; each op past the first layer reads one random op of the previous
// layer (and maybe one older op, see skip_prob). Op types cycle through MatMul (weights
// hidden x hidden, hidden drawn from 128/256/512), Add, Relu, LayerNormalization and Softmax,
// so every device efficiency class is exercised: MatMuls run ~4x faster on a GPU, the
// small element-wise ops about as fast on the CPU (launch overhead), so placement matters. Throws Error on non-positive
// sizes.
// Dispatches on options.family.
std::unique_ptr<SyntheticProblem> make_synthetic_problem(const SyntheticOptions& options);

// The model-like families (place/synthetic_models.cc); make_synthetic_problem calls them.
// Costs are set per op (FLOPs, MACs, weights, bytes) from the shapes, as annotate_costs would.
std::unique_ptr<SyntheticProblem> make_branchy_cnn(const SyntheticOptions& options);
std::unique_ptr<SyntheticProblem> make_transformer_encoder(const SyntheticOptions& options);
std::unique_ptr<SyntheticProblem> make_transformer_decoder(const SyntheticOptions& options);

// The cluster of synthetic problems: "cpu" (the host: 1.8 TFLOP/s, 77 GB/s, like the paper's
// i9) and `gpus` accelerators "gpu0".. (16 TFLOP/s, 576 GB/s, 16 GiB, 22 us launch, like the
// paper's Flex 170); every pair linked at 25 GB/s, 10 us (PCIe 4.0 x16).
Cluster synthetic_cluster(int gpus);

}  // namespace devplace
