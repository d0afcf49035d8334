// Measured runs: the rows of a `devplace run --json` file read back as placements of a model with
// their measured latencies, the data `devplace calibrate` fits the execution model to.
#pragma once

#include <string>
#include <vector>

#include "cost/cluster.h"
#include "graph/graph.h"
#include "sim/schedule.h"

namespace devplace {

struct MeasuredRun {
  std::string label;
  Placement placement;
  double median = 0;             // seconds
  std::vector<double> samples;   // seconds, as measured
  int copies = 0;                // tensors copied per run
  bool single_device() const { return is_single_device(placement); }
};

// Each row's placement comes from its "placement" map (op -> device, as `run --json` writes it),
// else from its label: "all on DEVICE", or a placement file named by the label (relative to the
// run file's folder, then to the working directory). Throws Error naming the file and the row
// for a row without a median or whose placement cannot be found or does not fit the model.
// `copies` (optional) gets the file's "copies" (how the measuring executor copied to and from
// GPUs), or "blocking" where it has none (files written before it was recorded).
std::vector<MeasuredRun> read_measured_runs(const std::string& path, const Graph& g, const Cluster& c,
                                            std::string* copies = nullptr);

// Runs measured in rounds (every row one sample per round) whose first rounds ran before the
// machine settled: while a leading round is more than 10% slower than usual across the rows (the
// median over rows of sample / median), it is dropped (at most half of the rounds) and each
// row's median is taken again over the rest. Returns the rounds dropped; rows without a full set
// of samples are left alone.
int drop_unsettled_rounds(std::vector<MeasuredRun>& runs);

}  // namespace devplace
