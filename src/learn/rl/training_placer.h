// The learned placers as Placers: train on the placer's objective (make_reward), with a
// progress bar, and return one named result of the training (the policy's own placement unless
// asked otherwise). Torch-free: the learner comes in as a function.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "learn/rl/training_result.h"
#include "place/placer.h"
#include "place/reward.h"

namespace devplace {

using EpisodeCallback = std::function<void(const EpisodeLog&)>;
// Trains on `reward` with the seed (and, where the learner takes one, the evaluation budget) of
// `options`, and reports each episode.
using TrainFn =
    std::function<TrainResult(const Problem&, Reward&, const PlaceOptions& options, const EpisodeCallback&)>;

// `name` names the placer and its progress bar; `episodes` sizes the bar.
std::unique_ptr<Placer> make_training_placer(std::string name, int episodes, TrainFn train,
                                             TrainedPick pick = TrainedPick::policy);

// The placement `pick` names in `r`, falling back to the greedy one when it is empty.
const Placement& picked_placement(const TrainResult& r, TrainedPick pick);

}  // namespace devplace
