// Shared by the simulator benchmarks: seeded random placements, and the timing loop that
// evaluates them in turn and reports nanoseconds per op.
#pragma once

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "sim/simulator.h"

namespace devplace {

// `count` placements of `pb`, every op on a uniformly random device (std::mt19937, `seed`).
inline std::vector<Placement> random_placements(const Problem& pb, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Placement> placements(static_cast<std::size_t>(count), Placement(pb.num_ops()));
  for (auto& p : placements)
    for (auto& d : p) d = static_cast<int>(rng() % pb.num_devices());
  return placements;
}

// One iteration = one Simulator::makespan of the next placement; counter ns_per_op.
inline void time_makespans(benchmark::State& state, const Problem& pb, const std::vector<Placement>& placements) {
  Simulator sim(pb);
  std::size_t k = 0;
  double sum = 0;
  for (auto _ : state) {
    sum += sim.makespan(placements[k++ % placements.size()]);
    benchmark::DoNotOptimize(sum);
  }
  state.counters["ns_per_op"] = benchmark::Counter(static_cast<double>(state.iterations()) * pb.num_ops(),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace devplace
