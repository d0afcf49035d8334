#include "util/stats.h"

#include <algorithm>
#include <cmath>

namespace devplace {

double quantile_of_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return 0;
  const double pos = q * static_cast<double>(s.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - static_cast<double>(lo));
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return quantile_of_sorted(values, 0.5);
}

Interval median_interval(std::vector<double> values, double confidence) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const int n = static_cast<int>(values.size());
  // P(B <= k) for B ~ Binomial(n, 1/2), accumulated term by term in logs.
  const double alpha = 1.0 - confidence;
  double cdf = 0;
  int r = 1;  // x(r)..x(n-r+1), 1-based, covers with 1 - 2 P(B <= r - 1)
  for (int k = 0; k < n / 2; ++k) {
    cdf += std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) - n * std::log(2.0));
    if (2 * cdf > alpha) break;
    r = k + 1;  // coverage 1 - 2 P(B <= r - 1) still at least `confidence`
  }
  r = std::min(r, (n + 1) / 2);
  return {values[r - 1], values[n - r]};
}

}  // namespace devplace
