// Chrome trace export of a Schedule: one process per device (ops as slices) and one per link
// (transfers as slices), in the JSON Trace Event Format that Perfetto and chrome://tracing open.
#pragma once

#include <string>

#include "cost/cost_model.h"
#include "sim/schedule.h"

namespace devplace {

std::string chrome_trace_json(const Problem& problem, const Schedule& schedule);
void write_chrome_trace(const std::string& path, const Problem& problem, const Schedule& schedule);

}  // namespace devplace
