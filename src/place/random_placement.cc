#include "place/random_placement.h"

#include <vector>

namespace devplace {

Placement RandomPlacements::any_device(int num_ops, int num_devices) {
  std::uniform_int_distribution<int> device(0, num_devices - 1);
  Placement out(num_ops);
  for (int& d : out) d = device(rng_);
  return out;
}

Placement RandomPlacements::runnable(const Problem& p) {
  Placement out(p.num_ops());
  std::vector<int> ok;
  for (int i = 0; i < p.num_ops(); ++i) {
    ok.clear();
    for (int d = 0; d < p.num_devices(); ++d)
      if (p.op_time(i, d) < kInfeasibleTime) ok.push_back(d);
    out[i] = ok.empty() ? 0 : ok[rng_() % ok.size()];
  }
  return out;
}

}  // namespace devplace
