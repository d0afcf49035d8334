// Order statistics of measured samples (latencies, op times, errors), one definition for all.
#pragma once

#include <vector>

namespace devplace {

// Linear-interpolated quantile q in [0, 1] of values already sorted ascending; 0 when empty.
double quantile_of_sorted(const std::vector<double>& sorted, double q);
// The median (mean of the two middle values for an even count); 0 when empty.
double median(std::vector<double> values);

// A distribution-free confidence interval of the median: the order statistics x(r) and
// x(n-r+1) with the largest r whose binomial coverage is at least `confidence` (with fewer than
// about six values even the widest, [min, max], covers less: it is returned then). {0, 0} when
// empty.
struct Interval {
  double low = 0, high = 0;
};
Interval median_interval(std::vector<double> values, double confidence = 0.95);

}  // namespace devplace
