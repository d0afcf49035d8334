#include "learn/rl/training_placer.h"

#include <algorithm>
#include <cstdio>

#include "util/log.h"

namespace devplace {

namespace {

class TrainingPlacer : public Placer {
 public:
  TrainingPlacer(std::string name, int episodes, TrainFn train, TrainedPick pick)
      : name_(std::move(name)), episodes_(episodes), train_(std::move(train)), pick_(pick) {}
  std::string name() const override { return name_; }
  Placement place(const Problem& problem, const PlaceOptions& options) override {
    SearchReward reward(problem, options);
    log::Progress progress(name_, static_cast<std::size_t>(std::max(1, episodes_)));
    TrainResult r = train_(problem, reward.reward(), options, [&](const EpisodeLog& e) {
      char buf[96];
      if (e.groups > 0)
        std::snprintf(buf, sizeof buf, "best %.3f ms, groups %d", e.best_latency * 1e3, e.groups);
      else
        std::snprintf(buf, sizeof buf, "best %.3f ms", e.best_latency * 1e3);
      progress.update(static_cast<std::size_t>(e.episode), buf);
    });
    progress.finish();
    return picked_placement(r, pick_);
  }

 private:
  std::string name_;
  int episodes_;
  TrainFn train_;
  TrainedPick pick_;
};

}  // namespace

std::unique_ptr<Placer> make_training_placer(std::string name, int episodes, TrainFn train, TrainedPick pick) {
  return std::make_unique<TrainingPlacer>(std::move(name), episodes, std::move(train), pick);
}

const Placement& picked_placement(const TrainResult& r, TrainedPick pick) {
  if (pick == TrainedPick::sampled && !r.sampled.empty()) return r.sampled;
  if (pick == TrainedPick::polished && !r.polished.empty()) return r.polished;
  return r.greedy;
}

}  // namespace devplace
