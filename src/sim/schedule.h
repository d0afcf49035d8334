// Placement and Schedule: what a placer produces and what the simulator returns for it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devplace/types.h"

namespace devplace {

// True when every op is on one device (and there is at least one op).
inline bool is_single_device(const Placement& p) {
  for (int d : p)
    if (d != p.front()) return false;
  return !p.empty();
}

struct OpSpan {
  double start = 0, end = 0;
  int device = -1;
};

struct TransferSpan {
  int tensor = -1;
  int src = -1, dst = -1;
  double start = 0, end = 0;
};

struct Schedule {
  double makespan = 0;                    // seconds; +inf when an op cannot run where placed
  bool feasible = true;                   // false: unsupported op or memory overflow
  std::string infeasible_reason;          // names the device and the amount, or the op
  std::vector<OpSpan> ops;                // per op
  std::vector<TransferSpan> transfers;    // in the order they were issued
  std::vector<double> busy;               // per device: seconds spent running ops
  std::vector<std::int64_t> peak_memory;  // per device: weights + peak live activations (bytes)
  std::vector<std::int64_t> overflow;     // per device: bytes over capacity (0 if within)
  // Sum of overflow over devices; learned placers penalise in proportion to it.
  std::int64_t total_overflow() const;
  // The schedule judged: the makespan (+inf when infeasible) and why it is infeasible.
  Verdict verdict() const;
};

}  // namespace devplace
