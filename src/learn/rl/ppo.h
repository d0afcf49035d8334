// The clipped policy-gradient update (PPO, Schulman et al. 2017) over factorised placement
// policies: every decision unit (group, coarse node, op) is its own action and shares its
// sample's advantage, so ratios are per decision and a run of hundreds of decisions cannot
// multiply into an extreme joint ratio. Internal to learn/ (LibTorch).
#pragma once

#include <torch/torch.h>

namespace devplace {

// The loss of one update step. logp: [units, devices] log-probabilities under the current
// parameters; old_logp: the same, detached, from when the batch was sampled; actions:
// [samples, units] long; adv: [samples] float; entropy_weight per decision. Returns the loss
// (mean over samples of the summed clipped surrogates, minus the summed entropy) and writes
// the mean KL(old || new) per decision and the mean entropy per decision.
inline torch::Tensor ppo_loss(const torch::Tensor& logp, const torch::Tensor& old_logp, const torch::Tensor& actions,
                              const torch::Tensor& adv, double clip, double entropy_weight, double& kl,
                              double& entropy) {
  const int64_t K = actions.size(0), U = actions.size(1), D = logp.size(1);
  auto taken = logp.unsqueeze(0).expand({K, U, D}).gather(2, actions.unsqueeze(2)).squeeze(2);          // [K, U]
  auto taken_old = old_logp.unsqueeze(0).expand({K, U, D}).gather(2, actions.unsqueeze(2)).squeeze(2);  // [K, U]
  auto ratio = (taken - taken_old).exp();
  auto a = adv.unsqueeze(1);
  auto surrogate = torch::min(ratio * a, ratio.clamp(1 - clip, 1 + clip) * a).sum(1).mean();
  auto ent = -(logp.exp() * logp).sum(1);  // [U]
  {
    torch::NoGradGuard no_grad;
    kl = (old_logp.exp() * (old_logp - logp)).sum(1).mean().item<double>();
    entropy = ent.mean().item<double>();
  }
  return -surrogate - entropy_weight * ent.sum();
}

// The same with a distribution per sample and decision (a feasibility mask makes each sample's
// allowed devices differ): logp and old_logp are [samples, units, devices].
inline torch::Tensor ppo_loss_per_sample(const torch::Tensor& logp, const torch::Tensor& old_logp,
                                         const torch::Tensor& actions, const torch::Tensor& adv, double clip,
                                         double entropy_weight, double& kl, double& entropy) {
  auto taken = logp.gather(2, actions.unsqueeze(2)).squeeze(2);          // [K, U]
  auto taken_old = old_logp.gather(2, actions.unsqueeze(2)).squeeze(2);  // [K, U]
  auto ratio = (taken - taken_old).exp();
  auto a = adv.unsqueeze(1);
  auto surrogate = torch::min(ratio * a, ratio.clamp(1 - clip, 1 + clip) * a).sum(1).mean();
  auto ent = -(logp.exp() * logp).sum(2);  // [K, U]
  {
    torch::NoGradGuard no_grad;
    kl = (old_logp.exp() * (old_logp - logp)).sum(2).mean().item<double>();
    entropy = ent.mean().item<double>();
  }
  return -surrogate - entropy_weight * ent.sum(1).mean();
}

}  // namespace devplace
