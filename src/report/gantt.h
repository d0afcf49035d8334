// Timeline (Gantt) chart of a simulated Schedule as a standalone SVG document: one lane per
// device with its ops as boxes coloured by op class, and every transfer drawn as a band from
// the source lane (at its start) to the destination lane (at its end), so cross-device traffic
// and the waits it causes are visible. Pure functions; safe from any thread.
#pragma once

#include <string>

#include "cost/cost_model.h"
#include "sim/schedule.h"

namespace devplace {

struct GanttOptions {
  std::string title;     // empty: "<graph> on <cluster>: <makespan> ms"
  int width = 1000;      // pixels
  int lane_height = 46;  // pixels per device lane
  bool draw_transfers = true;
  int max_transfers = 5000;  // beyond this many, the longest ones are drawn (the SVG stays small)
};

// REQUIRES: schedule came from Simulator::run on `problem` (one OpSpan per op). An infeasible
// schedule is drawn as far as it got, with its reason in the title line.
std::string gantt_svg(const Problem& problem, const Schedule& schedule, const GanttOptions& options = {});

}  // namespace devplace
