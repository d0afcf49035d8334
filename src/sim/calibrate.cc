#include "sim/calibrate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "sim/simulator.h"
#include "util/error.h"
#include "util/stats.h"

namespace devplace {

Fidelity fidelity(const Problem& problem, const std::vector<Placement>& placements,
                  const std::vector<double>& measured) {
  if (placements.empty() || placements.size() != measured.size())
    throw Error("", "", "fidelity needs one measured latency per placement");
  Simulator sim(problem);
  Fidelity f;
  f.placements = static_cast<int>(placements.size());
  std::vector<double> simulated, abs_errors;
  for (std::size_t k = 0; k < placements.size(); ++k) {
    simulated.push_back(sim.makespan(placements[k]));
    const double e = (simulated.back() - measured[k]) / measured[k];
    f.errors.push_back(e);
    abs_errors.push_back(std::abs(e));
    if (e < 0) ++f.optimistic;
  }
  f.median_abs_error = median(abs_errors);
  f.worst_abs_error = *std::max_element(abs_errors.begin(), abs_errors.end());
  f.median_signed_error = median(f.errors);
  for (std::size_t a = 0; a < placements.size(); ++a)
    for (std::size_t b = a + 1; b < placements.size(); ++b) {
      const double lo = std::min(measured[a], measured[b]), hi = std::max(measured[a], measured[b]);
      if (hi <= lo * 1.05) continue;  // within the noise of one machine: no order to keep
      ++f.pairs;
      if ((measured[a] < measured[b]) == (simulated[a] < simulated[b])) ++f.pairs_ordered;
    }
  return f;
}

namespace {

// One fitted parameter: a pointer into the model and whether it may reach zero.
struct Parameter {
  double* value;
  bool may_be_zero;
  double floor;    // below it, a parameter that may be zero is zero
  double ceiling;  // physically meaningless above (a copy faster than memory, a second per task)
};

}  // namespace

ExecutionModel fit_execution_model(Problem& problem, const std::vector<Placement>& placements,
                                   const std::vector<double>& measured, ExecutionModel model,
                                   const CalibrateOptions& options) {
  if (placements.empty() || placements.size() != measured.size())
    throw Error("", "", "calibration needs one measured latency per placement");
  const Cluster& c = problem.cluster();
  const int D = c.num_devices();
  // Every device and every crossing gets an entry, so each has a parameter to fit.
  const ExecutionModel defaults = default_execution_model(c, model.copies);
  for (const DeviceExecution& d : defaults.devices)
    if (!model.device(d.device)) model.devices.push_back(d);
  for (const CrossingExecution& x : defaults.crossings)
    if (!model.crossing(x.from, x.to)) model.crossings.push_back(x);
  // Only what the placements exercise: a device none of them uses, a pair none of them crosses.
  std::vector<char> used(D, 0), crossed(static_cast<std::size_t>(D) * D, 0);
  const Graph& g = problem.graph();
  for (const Placement& p : placements)
    for (int op = 0; op < g.num_ops(); ++op) {
      used[p[op]] = 1;
      for (int t : g.op(op).outputs)
        for (int consumer : g.tensor(t).consumers)
          if (p[consumer] != p[op] && !problem.tensor_resident(t) && !problem.folded(consumer))
            crossed[p[op] * D + p[consumer]] = 1;
    }
  std::vector<Parameter> params;
  for (DeviceExecution& d : model.devices) {
    const int i = c.find_device(d.device);
    if (i < 0 || !used[i]) continue;
    d.dispatch = std::max(d.dispatch, 1e-7);
    params.push_back({&d.dispatch, true, 1e-8, 0.1});
    d.wake = std::max(d.wake, 1e-6);
    params.push_back({&d.wake, true, 1e-8, 0.1});
    params.push_back({&d.op_scale, false, 1e-3, 100});
    if (d.async) {
      d.kernel_min = std::max(d.kernel_min, 1e-7);
      params.push_back({&d.kernel_min, true, 1e-8, 0.1});
      d.device_scale = std::max(d.device_scale, 1e-3);
      params.push_back({&d.device_scale, true, 1e-4, 1000});
    }
  }
  for (CrossingExecution& x : model.crossings) {
    const int s = c.find_device(x.from), t = c.find_device(x.to);
    if (s < 0 || t < 0 || !crossed[s * D + t]) continue;
    x.fixed = std::max(x.fixed, 1e-6);
    params.push_back({&x.fixed, true, 1e-8, 0.1});
    params.push_back({&x.bandwidth, false, 1e7, 1e12});
  }
  Simulator sim(problem);
  auto loss = [&] {
    problem.set_execution(model, "");
    double sum = 0;
    for (std::size_t k = 0; k < placements.size(); ++k) {
      const double s = sim.makespan(placements[k]);
      if (!std::isfinite(s)) return std::numeric_limits<double>::infinity();
      const double r = std::log(s / measured[k]);
      sum += r * r;
    }
    return sum / static_cast<double>(placements.size());
  };
  // Coordinate search on a log scale: each parameter up or down by a factor while the loss falls.
  auto coordinate_search = [&](double step, int sweeps) {
    double best = loss();
    for (int sweep = 0; sweep < sweeps; ++sweep, step = std::sqrt(step))
      for (Parameter& prm : params)
        for (double factor : {step, 1.0 / step})
          for (int tries = 0; tries < 8; ++tries) {
            const double old = *prm.value;
            double next = std::min(prm.ceiling, (old == 0 ? prm.floor * 10 : old) * factor);
            if (next < prm.floor) next = prm.may_be_zero ? 0 : prm.floor;
            if (next == old) break;
            *prm.value = next;
            const double l = loss();
            if (l < best) {
              best = l;
            } else {
              *prm.value = old;
              break;
            }
          }
    return best;
  };
  // Nelder-Mead on u = log(value + floor): parameters move together, which coordinate steps
  // cannot do where two of them trade off (a per-task cost against a factor on op times).
  auto nelder_mead = [&](int max_evals) {
    const std::size_t n = params.size();
    auto set = [&](const std::vector<double>& u) {
      for (std::size_t i = 0; i < n; ++i) {
        double v = std::min(params[i].ceiling, std::exp(u[i]) - params[i].floor);
        if (v < params[i].floor) v = params[i].may_be_zero ? std::max(0.0, v) : params[i].floor;
        *params[i].value = v;
      }
      return loss();
    };
    std::vector<std::vector<double>> x(n + 1, std::vector<double>(n));
    for (std::size_t i = 0; i < n; ++i) x[0][i] = std::log(*params[i].value + params[i].floor);
    for (std::size_t k = 1; k <= n; ++k) {
      x[k] = x[0];
      x[k][k - 1] += 0.7;
    }
    std::vector<double> f(n + 1);
    for (std::size_t k = 0; k <= n; ++k) f[k] = set(x[k]);
    int evals = static_cast<int>(n) + 1;
    std::vector<std::size_t> order(n + 1);
    while (evals < max_evals) {
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return f[a] < f[b]; });
      const std::size_t lo = order[0], hi = order[n], second = order[n - 1];
      if (f[hi] - f[lo] < 1e-10) break;
      std::vector<double> centre(n, 0.0);
      for (std::size_t k = 0; k <= n; ++k)
        if (k != hi)
          for (std::size_t i = 0; i < n; ++i) centre[i] += x[k][i] / static_cast<double>(n);
      auto along = [&](double t) {
        std::vector<double> y(n);
        for (std::size_t i = 0; i < n; ++i) y[i] = centre[i] + t * (x[hi][i] - centre[i]);
        return y;
      };
      const std::vector<double> r = along(-1.0);
      const double fr = set(r);
      ++evals;
      if (fr < f[lo]) {
        const std::vector<double> e = along(-2.0);
        const double fe = set(e);
        ++evals;
        if (fe < fr) x[hi] = e, f[hi] = fe;
        else x[hi] = r, f[hi] = fr;
      } else if (fr < f[second]) {
        x[hi] = r, f[hi] = fr;
      } else {
        const std::vector<double> c = along(fr < f[hi] ? -0.5 : 0.5);
        const double fc = set(c);
        ++evals;
        if (fc < std::min(fr, f[hi])) {
          x[hi] = c, f[hi] = fc;
        } else {  // shrink towards the best
          for (std::size_t k = 0; k <= n; ++k)
            if (k != lo) {
              for (std::size_t i = 0; i < n; ++i) x[k][i] = x[lo][i] + 0.5 * (x[k][i] - x[lo][i]);
              f[k] = set(x[k]);
              ++evals;
            }
        }
      }
    }
    const std::size_t best = static_cast<std::size_t>(std::min_element(f.begin(), f.end()) - f.begin());
    set(x[best]);
  };
  coordinate_search(4.0, options.sweeps);
  for (int restart = 0; restart < 3; ++restart) {
    nelder_mead(200 * static_cast<int>(params.size()));
    coordinate_search(1.5, 3);
  }
  model.fitted_on = static_cast<int>(placements.size());
  problem.set_execution(model, "");
  model.fit_error = fidelity(problem, placements, measured).median_abs_error;
  problem.set_execution(model, "");
  return model;
}

}  // namespace devplace
