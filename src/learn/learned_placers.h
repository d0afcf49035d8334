// The learned placers in the placer registry: HSDAG's rows (hsdag: the policy's own placement;
// hsdag-sampled: the best it sampled; hsdag+polish: that polished by annealing, beyond the
// method; hsdag-paper: the paper's configuration), the peers (rnn, hierarchical, placeto), and
// lookahead and rollout, the learned list policy's decision rules alone (controls: no network, no
// evaluation; rollout is its teacher).
// hsdag and placeto take a trained policy through PlaceOptions::policy_file (zero-shot, or
// fine-tuned for PlaceOptions::fine_tune_episodes). Torch-free header.
#pragma once

#include "place/placer.h"

namespace devplace {

void add_learned_placers(PlacerRegistry& registry);

// Every placer devplace has: classical_placers() plus the learned ones.
PlacerRegistry all_placers();

}  // namespace devplace
