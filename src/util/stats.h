// Order statistics of measured samples (latencies, op times, errors), one definition for all.
#pragma once

#include <vector>

namespace devplace {

// Linear-interpolated quantile q in [0, 1] of values already sorted ascending; 0 when empty.
double quantile_of_sorted(const std::vector<double>& sorted, double q);
// The median (mean of the two middle values for an even count); 0 when empty.
double median(std::vector<double> values);

}  // namespace devplace
