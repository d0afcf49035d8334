// A bound on a device's peak memory that no timing can break: at each allocation on the device
// (an op's start, a copy arriving), the tensors that could be alive then are those not made by
// a descendant of the allocating op and not read only by its ancestors. Tighter than keeping
// every tensor to the end (MemoryLedger), and still never below the simulator's exact sweep.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cost/cost_model.h"

namespace devplace {

class LiveMemoryBound {
 public:
  explicit LiveMemoryBound(const Problem& problem);
  // True when d has no limit or placing v there (v's producers placed) keeps d's bound within it.
  bool fits(int v, int d, const std::vector<int>& device) const;
  void commit(int v, int d, const std::vector<int>& device);

 private:
  struct Relations;
  struct Event {
    int born_by, alive_at;  // an op's start: (op, op); a copy of t for op c: (c, producer of t)
  };
  bool alive(int t, const Event& e) const;
  // The tensors placing v on d adds there (outputs, and inputs not yet on d) and its events.
  void additions(int v, int d, const std::vector<int>& device, std::vector<int>& tensors, std::vector<Event>& events) const;

  const Problem& problem_;
  std::shared_ptr<const Relations> rel_;
  int D_;
  std::vector<std::int64_t> weights_;
  std::vector<std::vector<int>> held_;           // per device
  std::vector<std::vector<Event>> events_;       // per device
  std::vector<std::vector<std::int64_t>> load_;  // per device, per event: bytes possibly alive
  std::vector<std::int64_t> max_load_;           // per device: the largest of its load_
  std::vector<char> present_;                    // tensor * D + device
  mutable std::vector<int> scratch_tensors_;
  mutable std::vector<Event> scratch_events_;
};

}  // namespace devplace
