#include "util/stats.h"

#include <algorithm>

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

}  // namespace devplace
