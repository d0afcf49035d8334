#include "learn/learned_placers.h"

#include "learn/hsdag.h"
#include "learn/peers.h"

namespace devplace {

namespace {

std::unique_ptr<Placer> make_hsdag_row(const std::string& name, const PlaceOptions& options) {
  HsdagConfig c = hsdag_preset(name == "hsdag-paper" ? "paper" : "default");
  if (name == "hsdag-paper") return make_hsdag_placer(c, name);
  if (!options.policy_file.empty()) {
    // The policy's own answer, as Placeto's, never clamped to a single device.
    c.episodes = options.fine_tune_episodes, c.init_policy = options.policy_file, c.refine_evals = 0;
    return make_hsdag_placer(c, options.fine_tune_episodes > 0
                                    ? "hsdag (fine-tuned " + std::to_string(options.fine_tune_episodes) + " episodes)"
                                    : "hsdag (zero-shot policy)");
  }
  if (options.episodes > 0) c.episodes = options.episodes;
  if (options.samples > 0) c.samples = options.samples;
  // Each row trains on its own, so each row's time is its whole cost.
  if (name != "hsdag+polish")
    c.refine_evals = 0;
  else if (options.polish_evals >= 0)
    c.refine_evals = static_cast<int>(options.polish_evals);
  const TrainedPick pick = name == "hsdag"           ? TrainedPick::policy
                           : name == "hsdag-sampled" ? TrainedPick::sampled
                                                     : TrainedPick::polished;
  return make_hsdag_placer(c, name, pick);
}

std::unique_ptr<Placer> make_peer_row(const std::string& name, const PlaceOptions& options) {
  PeerConfig c;
  c.algo = name;
  if (options.episodes > 0) c.episodes = options.episodes;
  if (options.samples > 0) c.samples = options.samples;
  if (name == "placeto" && !options.policy_file.empty())
    c.episodes = options.fine_tune_episodes, c.init_policy = options.policy_file;
  return make_peer_placer(c);
}

}  // namespace

void add_learned_placers(PlacerRegistry& registry) {
  for (const std::string name : {"hsdag", "hsdag-sampled", "hsdag+polish", "hsdag-paper"})
    registry.add(name, [name](const Problem&, const PlaceOptions& o) { return make_hsdag_row(name, o); });
  for (const std::string name : {"rnn", "hierarchical", "placeto"})
    registry.add(name, [name](const Problem&, const PlaceOptions& o) { return make_peer_row(name, o); });
}

PlacerRegistry all_placers() {
  PlacerRegistry r = classical_placers();
  add_learned_placers(r);
  return r;
}

}  // namespace devplace
