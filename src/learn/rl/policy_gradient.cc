#include "learn/rl/policy_gradient.h"

#include <algorithm>
#include <cmath>

namespace devplace {

double placement_reward(const Evaluation& e, double reference, RewardKind kind, double penalty) {
  if (e.feasible && std::isfinite(e.latency) && e.latency > 0)
    return kind == RewardKind::speedup ? reference / e.latency : 1e-3 / e.latency;
  return -penalty * (1.0 + std::max(0.0, e.violation));
}

std::vector<float> centred_advantages(const std::vector<double>& rewards, double floor) {
  std::vector<float> adv(rewards.size(), 0.0f);
  if (rewards.empty()) return adv;
  double mean = 0, var = 0;
  for (double r : rewards) mean += r;
  mean /= static_cast<double>(rewards.size());
  for (double r : rewards) var += (r - mean) * (r - mean);
  const double scale = 1.0 / std::max(std::sqrt(var / static_cast<double>(rewards.size())), floor);
  for (std::size_t k = 0; k < rewards.size(); ++k) adv[k] = static_cast<float>((rewards[k] - mean) * scale);
  return adv;
}

namespace {

// How far episode `episode` of `episodes` is through the entropy schedule: 0 at the start, 1 from
// the end of its decay share on (a run too short to decay is at 1 after its first episode).
double entropy_progress(const PolicyGradientOptions& o, int episode, int episodes) {
  const double span = o.entropy_decay_share * (episodes - 1);
  if (!(span > 0)) return episode > 0 ? 1.0 : 0.0;
  return std::clamp(static_cast<double>(episode) / span, 0.0, 1.0);
}

}  // namespace

double entropy_weight_at(const PolicyGradientOptions& o, int episode, int episodes) {
  const double t = entropy_progress(o, episode, episodes);
  // Exactly entropy_end at the end: start + (end - start) can miss it by a rounding step.
  return t >= 1 ? o.entropy_end : o.entropy_start + (o.entropy_end - o.entropy_start) * t;
}

double lr_share_at(const PolicyGradientOptions& o, int episode, int episodes) {
  if (episodes <= 1) return 1.0;
  const double t = std::clamp(static_cast<double>(episode) / (episodes - 1), 0.0, 1.0);
  return 1.0 + (o.lr_end_share - 1.0) * t;
}

bool entropy_decay_done(const PolicyGradientOptions& o, int episode, int episodes) {
  // A fixed bonus that starts at its end value is done from the start.
  return (!o.entropy_target && o.entropy_start == o.entropy_end) || entropy_progress(o, episode, episodes) >= 1;
}

EntropyBonus::EntropyBonus(const PolicyGradientOptions& o) : o_(o), weight_(o.entropy_start) {}

double EntropyBonus::weight(int episode, int episodes) const {
  if (!o_.entropy_target) return entropy_weight_at(o_, episode, episodes);
  return entropy_decay_done(o_, episode, episodes) ? o_.entropy_end : weight_ * std::exp(o_.entropy_gain * error_);
}

double EntropyBonus::target(int episode, int episodes) const {
  return first_ < 0 ? 0 : first_ * (1.0 - entropy_progress(o_, episode, episodes));
}

void EntropyBonus::observe(double entropy, int episode, int episodes) {
  if (!o_.entropy_target || !std::isfinite(entropy)) return;
  if (first_ < 0) first_ = std::max(entropy, 1e-6);
  // The next episode's target against this episode's entropy, in units of the first entropy.
  error_ = std::clamp((target(episode + 1, episodes) - entropy) / first_, -1.0, 1.0);
  weight_ = std::clamp(weight_ * std::exp(o_.entropy_rate * error_), 1e-4, 100.0);
}

bool SettledWatch::settled(double entropy, int episode, int episodes, double mean_latency, double best_latency) {
  if (!(o_.settled_entropy > 0) && !(o_.settled_gap > 0)) return false;
  const bool bonus_done = entropy_decay_done(o_, episode, episodes);
  const bool sharp = o_.settled_entropy > 0 && entropy < o_.settled_entropy;
  const bool close = o_.settled_gap > 0 && std::isfinite(mean_latency) && std::isfinite(best_latency) &&
                     mean_latency <= best_latency * (1 + o_.settled_gap);
  run_ = bonus_done && (sharp || close) ? run_ + 1 : 0;
  return run_ >= o_.patience;
}

}  // namespace devplace
