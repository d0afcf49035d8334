#include "exec/measure.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "util/error.h"
#include "util/stats.h"

namespace devplace {

namespace {

void summarise(Measurement& m) {
  std::vector<double> s = m.samples;
  std::sort(s.begin(), s.end());
  m.min = s.front(), m.max = s.back();
  m.median = quantile_of_sorted(s, 0.5), m.p25 = quantile_of_sorted(s, 0.25), m.p75 = quantile_of_sorted(s, 0.75);
  m.mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  const std::size_t k = std::min<std::size_t>(5, m.samples.size());
  m.mean_last5 = std::accumulate(m.samples.end() - static_cast<long>(k), m.samples.end(), 0.0) / static_cast<double>(k);
}

}  // namespace

std::vector<Measurement> measure_interleaved(Executor& executor, const std::vector<Placement>& placements, int warmup,
                                             int runs, const std::function<void(int, int)>& on_round) {
  if (runs < 1) throw Error("", "", "--runs must be at least 1");
  std::vector<Measurement> out(placements.size());
  for (int i = 0; i < warmup; ++i) {
    for (const Placement& p : placements) executor.run(p);
    if (on_round) on_round(i + 1, warmup + runs);
  }
  for (int i = 0; i < runs; ++i) {
    for (std::size_t k = 0; k < placements.size(); ++k) {
      out[k].last = executor.run(placements[k]);
      out[k].samples.push_back(out[k].last.latency);
    }
    if (on_round) on_round(warmup + i + 1, warmup + runs);
  }
  for (Measurement& m : out) summarise(m);
  return out;
}

Measurement measure(Executor& executor, const Placement& placement, int warmup, int runs) {
  return measure_interleaved(executor, {placement}, warmup, runs)[0];
}

Evaluation MeasuredReward::evaluate(const Placement& placement) {
  ++evaluations_;
  const auto start = std::chrono::steady_clock::now();
  Measurement m = measure(ex_, placement, opt_.warmup, opt_.runs);
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool seen = std::any_of(best_.begin(), best_.end(), [&](const auto& b) { return b.first == placement; });
  if (!seen && opt_.keep > 0 && (static_cast<int>(best_.size()) < opt_.keep || m.median < best_.back().second)) {
    if (static_cast<int>(best_.size()) == opt_.keep) best_.pop_back();
    auto at =
        std::upper_bound(best_.begin(), best_.end(), m.median, [](double v, const auto& b) { return v < b.second; });
    best_.insert(at, {placement, m.median});
  }
  return {m.median, true, 0};
}

Confirmation confirm_best(Executor& executor, const std::vector<Placement>& candidates, int warmup, int runs) {
  if (candidates.empty()) throw Error("", "", "no placements to confirm");
  Confirmation c;
  c.measurements = measure_interleaved(executor, candidates, warmup, runs);
  for (std::size_t k = 1; k < candidates.size(); ++k)
    if (c.measurements[k].median < c.measurements[c.best].median) c.best = k;
  return c;
}

}  // namespace devplace
