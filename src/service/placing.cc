#include "service/placing.h"

#include <algorithm>
#include <chrono>

#include "learn/learned_placers.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace {

namespace {

const PlacerRegistry& registry() {
  static const PlacerRegistry placers = all_placers();  // immutable once made
  return placers;
}

// The placers that load a trained policy file (PlaceOptions::policy_file).
bool takes_policy(const std::string& name) {
  return name == "hsdag" || name == "placeto" || name.rfind("learned", 0) == 0 || name.rfind("hsdag:", 0) == 0 ||
         name.rfind("placeto:", 0) == 0;
}

void check_request(const Problem& problem, const PlaceRequest& r) {
  const PlaceOptions& o = r.options;
  if (o.learned.fine_tune_episodes < 0)
    throw Error(problem.graph().source(), "", "fine-tuning episodes must not be negative", ErrorKind::invalid_argument);
  if (o.learned.fine_tune_episodes > 0 && o.learned.policy_file.empty())
    throw Error(problem.graph().source(), "", "fine-tuning (--finetune) needs a trained policy file (--policy)",
                ErrorKind::invalid_argument);
  if (!o.learned.policy_file.empty() && !takes_policy(r.algorithm))
    throw Error(o.learned.policy_file, "",
                "'" + r.algorithm + "' loads no policy file (hsdag, placeto and the learned* placers do)",
                ErrorKind::invalid_argument);
  if (o.eval_budget < 0 || o.time_budget_s < 0)
    throw Error(problem.graph().source(), "", "budgets must not be negative", ErrorKind::invalid_argument);
}

}  // namespace

std::unique_ptr<Placer> make_any_placer(const Problem& problem, const std::string& name, const PlaceOptions& options) {
  for (const std::string algo : {"placeto", "hsdag"}) {
    if (name.rfind(algo + ":", 0) != 0) continue;
    PlaceOptions o = options;
    o.learned.policy_file = name.substr(algo.size() + 1);
    const std::string& rest = o.learned.policy_file;
    if (auto colon = rest.rfind(':'); colon != std::string::npos && colon + 1 < rest.size() &&
                                      rest.find_first_not_of("0123456789", colon + 1) == std::string::npos)
      o.learned.fine_tune_episodes = std::stoi(rest.substr(colon + 1)), o.learned.policy_file = rest.substr(0, colon);
    return registry().make(problem, algo, o);
  }
  return registry().make(problem, name, options);
}

PlaceResult place_problem(const Problem& problem, const PlaceRequest& request) {
  check_request(problem, request);
  const PlaceOptions& o = request.options;
  std::unique_ptr<Placer> placer = make_any_placer(problem, request.algorithm, o);
  PlaceResult r;
  r.placer = placer->name();
  const auto t0 = std::chrono::steady_clock::now();
  r.placement = placer->place(problem, o);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.verdict = judge(problem, r.placement, o.objective);
  r.placer_latency = r.verdict.latency;
  // On a cost table fitted to measured runs, a simulated gain within the model's error is no
  // gain: the best single device is the placement to use then.
  const Problem::Execution* x = problem.execution();
  if (!x || o.objective != Objective::simulator || request.keep_placement || is_single_device(r.placement) ||
      !r.verdict.feasible)
    return r;
  const double margin = std::max(x->fit_error, 0.05);
  Simulator sim(problem);
  int best = 0;
  double best_s = kInfeasibleTime;
  for (int d = 0; d < problem.num_devices(); ++d)
    if (const double s = sim.makespan(Placement(r.placement.size(), d)); s < best_s) best = d, best_s = s;
  if (r.verdict.latency > best_s * (1 - margin)) {
    r.replaced_by_device = best, r.margin = margin;
    r.placement.assign(r.placement.size(), best);
    r.verdict = judge(problem, r.placement, o.objective);
  }
  return r;
}

}  // namespace devplace
