// A bound on a device's peak memory that no timing can break: at each allocation on the device
// (an op's start, a copy arriving), the tensors that could be alive then are those not made by
// a descendant of the allocating op and not read only by its ancestors. Tighter than keeping
// every tensor to the end (MemoryLedger), and never below the simulator's exact sweep, whatever
// the schedule.
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
  // The bound on d so far: weights plus the most bytes that could be alive at one allocation.
  std::int64_t peak(int d) const;

 private:
  struct Relations;
  struct Copy {
    int consumer, producer;  // a copy arrives after `producer` ends and before `consumer` starts
    std::int64_t load;
  };
  // The tensors placing v on d adds there (outputs, then inputs not yet on d).
  void additions(int v, int d, const std::vector<int>& device, std::vector<int>& tensors) const;
  // Bytes of d's held tensors (and of `extra`) that could be alive when `consumer` starts, made
  // no earlier than `producer` ends (the same op for an op's own start).
  std::int64_t alive_bytes(int d, int consumer, int producer, const std::vector<int>& extra) const;
  bool alive(int t, int consumer, int producer) const;

  const Problem& problem_;
  std::shared_ptr<const Relations> rel_;
  int D_;
  std::vector<std::int64_t> weights_, max_load_;     // per device
  std::vector<std::vector<std::uint64_t>> ops_on_;   // per device: its ops (bitset)
  std::vector<std::vector<std::uint64_t>> held_;     // per device: its tensors (bitset)
  std::vector<std::vector<Copy>> copies_;            // per device
  std::vector<std::int64_t> op_load_;                // per op: bytes that could be alive at its start
  mutable std::vector<int> scratch_;                 // fits' additions
};

}  // namespace devplace
