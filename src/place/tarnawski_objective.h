// The latency model of Tarnawski et al. (NeurIPS 2020), as their code computes it (see
// ../shared/data/dnn-partitioning/README.md): the host CPU has unlimited parallelism and free
// CPU-to-CPU edges; each accelerator's op set must be contiguous (no path leaves it and comes
// back) and runs serially: it starts when all its outside inputs have arrived, then spends the
// receive costs, the sum of its ops' times and the send costs; all its ops finish at that end.
// Accelerator-to-accelerator traffic goes through the host and costs the edge cost twice.
// Ops sharing a `colorClass` attribute must share a device; the sum of weight_bytes on an
// accelerator must fit its memory. Used with `--objective tarnawski`.
#pragma once

#include <string>

#include "cost/cost_model.h"
#include "devplace/types.h"
#include "sim/schedule.h"

namespace devplace {

// REQUIRES: the problem's host is device problem.host() (a cpu); every other device is an
// accelerator. Evaluates `placement` under the model above; when infeasible, the reason names
// the device or op and the violated constraint.
Verdict tarnawski_latency(const Problem& problem, const Placement& placement);

// How far `placement` is from feasible under this model, so that a learner can rank infeasible
// placements (an all-infeasible batch then still has a gradient). 0 exactly when every
// constraint holds; otherwise the sum of: ops on a device that cannot run them, ops of a colour
// class off the class's most common device, ops that lie between two ops of one accelerator
// without being on it (the holes that break contiguity), all divided by the op count; plus each
// accelerator's memory overflow as a fraction of its capacity. O(devices * (V + E)).
double tarnawski_violation(const Problem& problem, const Placement& placement);

}  // namespace devplace
