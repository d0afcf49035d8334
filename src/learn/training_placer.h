// The learned placers as Placers: train on the placer's objective (make_reward), with a
// progress bar, and return the best placement the training saw. Torch-free: the learner comes
// in as a function.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "learn/hsdag.h"

namespace devplace {

using EpisodeCallback = std::function<void(const EpisodeLog&)>;
// Trains on `reward` with `seed` (from PlaceOptions) and reports each episode.
using TrainFn = std::function<TrainResult(const Problem&, Reward&, std::uint64_t seed, const EpisodeCallback&)>;

// `name` names the placer and its progress bar; `episodes` sizes the bar.
std::unique_ptr<Placer> make_training_placer(std::string name, int episodes, TrainFn train);

}  // namespace devplace
