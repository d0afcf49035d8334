// Calibration against real runs: how far a simulator is from measured latencies (fidelity), and
// fitting the execution model (cost/execution_model.h) to measured placements so that it is not.
#pragma once

#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "sim/schedule.h"

namespace devplace {

// The simulator's makespans against measured medians, over placements measured on one machine.
// Errors are (simulated - measured) / measured.
struct Fidelity {
  int placements = 0;
  double median_abs_error = 0, worst_abs_error = 0;
  double median_signed_error = 0;  // below 0: the simulator is optimistic
  int optimistic = 0;              // placements simulated faster than measured
  int pairs = 0;                   // pairs of placements whose measured medians differ by > 5%
  int pairs_ordered = 0;           // ... that the simulator orders as measured
  std::vector<double> errors;      // per placement
};

// REQUIRES: placements and measured (seconds) of equal, non-zero length.
Fidelity fidelity(const Problem& problem, const std::vector<Placement>& placements, const std::vector<double>& measured);

struct CalibrateOptions {
  int sweeps = 8;  // rounds of coordinate search over every parameter (each with a finer step)
};

// Fits `start`'s parameters (per device: dispatch, op_scale, and for an asynchronous device
// kernel_min and device_scale; per crossing used by the placements: fixed and bandwidth) so that
// the simulator of `problem` (its op times and transfers; its own execution model is replaced)
// matches the measured medians: least squares of log(simulated / measured), by coordinate search
// on a logarithmic scale, deterministic. Sets fit_error and fitted_on. `problem` ends with the
// fitted model set. REQUIRES: placements and measured of equal, non-zero length.
ExecutionModel fit_execution_model(Problem& problem, const std::vector<Placement>& placements,
                                   const std::vector<double>& measured, ExecutionModel start,
                                   const CalibrateOptions& options = {});

}  // namespace devplace
