#include "exec/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

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
  m.ci = median_interval(m.samples);
}

}  // namespace

std::vector<Measurement> measure_interleaved(const RunOnce& run, const std::vector<Placement>& placements, int warmup,
                                             int runs, const std::function<void(int, int)>& on_round) {
  if (runs < 1) throw Error("", "", "--runs must be at least 1");
  std::vector<Measurement> out(placements.size());
  std::vector<std::size_t> order(placements.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 shuffle(1);  // fixed: the same order of rounds in every call
  auto round = [&] {
    std::shuffle(order.begin(), order.end(), shuffle);
    std::vector<double> t(placements.size());
    for (std::size_t k : order) t[k] = run(placements[k]);
    return t;
  };
  // Warm up until two consecutive rounds agree within 5% (at least `warmup` rounds).
  const int max_warmup = warmup == 0 ? 0 : 4 * warmup + 4;
  int done = 0;
  double previous = -1;
  while (done < max_warmup) {
    const std::vector<double> t = round();
    const double total = std::accumulate(t.begin(), t.end(), 0.0);
    ++done;
    if (on_round) on_round(done, std::max(done, warmup) + runs);
    const bool settled = previous > 0 && std::abs(total - previous) <= 0.05 * std::max(total, previous);
    previous = total;
    if (done >= warmup && settled) break;
  }
  for (int i = 0; i < runs; ++i) {
    const std::vector<double> t = round();
    for (std::size_t k = 0; k < placements.size(); ++k) out[k].samples.push_back(t[k]);
    if (on_round) on_round(done + i + 1, done + runs);
  }
  for (Measurement& m : out) {
    m.warmup_rounds = done;
    summarise(m);
  }
  return out;
}

std::vector<Measurement> measure_interleaved(Executor& executor, const std::vector<Placement>& placements, int warmup,
                                             int runs, const std::function<void(int, int)>& on_round) {
  std::vector<RunStats> last(placements.size());
  const RunOnce run = [&](const Placement& p) {
    const RunStats r = executor.run(p);
    last[static_cast<std::size_t>(&p - placements.data())] = r;  // p is placements[k] (measure.h)
    return r.latency;
  };
  std::vector<Measurement> out = measure_interleaved(run, placements, warmup, runs, on_round);
  for (std::size_t k = 0; k < out.size(); ++k) out[k].last = last[k];
  return out;
}

Measurement measure(Executor& executor, const Placement& placement, int warmup, int runs) {
  return measure_interleaved(executor, {placement}, warmup, runs)[0];
}

Versus versus(const Measurement& a, const Measurement& reference, double confidence, double min_gain) {
  const std::size_t n = std::min(a.samples.size(), reference.samples.size());
  std::vector<double> ratios;
  for (std::size_t k = 0; k < n; ++k)
    if (reference.samples[k] > 0) ratios.push_back(a.samples[k] / reference.samples[k]);
  Versus v;
  if (ratios.empty()) return v;
  v.ratio = median(ratios);
  v.ci = median_interval(ratios, confidence);
  v.faster = v.ci.high < 1.0 - min_gain;
  return v;
}

Placement Confirmation::chosen(const std::vector<Placement>& candidates) const {
  if (faster_than_single() || reference_device < 0) return candidates.at(best);
  return Placement(candidates.at(best).size(), reference_device);
}

Confirmation confirm_best(const RunOnce& run, const std::vector<Placement>& candidates, int num_devices, int warmup,
                          int runs) {
  if (candidates.empty()) throw Error("", "", "no placements to confirm");
  if (num_devices < 1) throw Error("", "", "no devices to compare against");
  std::vector<Placement> all = candidates;
  for (int d = 0; d < num_devices; ++d) all.push_back(Placement(candidates.front().size(), d));
  std::vector<Measurement> ms = measure_interleaved(run, all, warmup, runs);
  Confirmation c;
  c.measurements.assign(ms.begin(), ms.begin() + static_cast<long>(candidates.size()));
  for (std::size_t k = 1; k < candidates.size(); ++k)
    if (c.measurements[k].median < c.measurements[c.best].median) c.best = k;
  for (int d = 0; d < num_devices; ++d) {
    const Measurement& m = ms[candidates.size() + static_cast<std::size_t>(d)];
    if (c.reference_device < 0 || m.median < c.reference.median) c.reference_device = d, c.reference = m;
  }
  int mixed = 0;
  for (const Placement& p : candidates) mixed += is_single_device(p) ? 0 : 1;
  const double confidence = 1.0 - 0.05 / std::max(1, mixed);
  if (!is_single_device(candidates[c.best])) c.versus_reference = versus(c.measurements[c.best], c.reference, confidence);
  return c;
}

Confirmation confirm_best(Executor& executor, const std::vector<Placement>& candidates, int warmup, int runs) {
  const RunOnce run = [&](const Placement& p) { return executor.run(p).latency; };
  return confirm_best(run, candidates, executor.num_workers(), warmup, runs);
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

}  // namespace devplace
