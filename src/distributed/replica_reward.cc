#include "distributed/replica_reward.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>

#include "distributed/link_profile.h"
#include "util/error.h"

namespace devplace {

ReplicaReward::ReplicaReward(ProcessGroup& group, std::string setup, std::function<void(const std::string&)> on_lost)
    : group_(group), setup_(std::move(setup)), on_lost_(std::move(on_lost)) {
  if (group.rank() != 0) throw Error("rank " + std::to_string(group.rank()), "", "only rank 0 farms out measurements");
  if (group.size() < 2) throw Error("", "", "measuring on replicas needs at least one worker (world size 2 or more)");
  for (int r = 1; r < group.size(); ++r) alive_.push_back(r);
}

std::vector<Evaluation> ReplicaReward::evaluate_batch(const std::vector<Placement>& placements) {
  const auto t0 = std::chrono::steady_clock::now();
  nlohmann::json job = nlohmann::json::parse(setup_);
  std::vector<Evaluation> out(placements.size());
  std::deque<std::size_t> queue;
  for (std::size_t i = 0; i < placements.size(); ++i) queue.push_back(i);
  std::map<int, std::size_t> busy;  // replica rank -> the placement it measures
  auto drop = [&](int rank, const std::string& why) {
    alive_.erase(std::remove(alive_.begin(), alive_.end(), rank), alive_.end());
    lost_.push_back(why);
    if (on_lost_) on_lost_(why);
    if (const auto it = busy.find(rank); it != busy.end()) {
      queue.push_front(it->second);  // measured again elsewhere, first
      busy.erase(it);
    }
  };
  std::size_t done = 0;
  while (done < placements.size()) {
    for (int rank : std::vector<int>(alive_)) {
      if (busy.count(rank) || queue.empty()) continue;
      job["placement"] = placements[queue.front()];
      try {
        send_job_to(group_, rank, job.dump());
        group_.post_words(rank);
        busy[rank] = queue.front();
        queue.pop_front();
      } catch (const PeerLost& e) {
        drop(rank, e.what());
      }
    }
    if (busy.empty())
      throw Error("", "",
                  "no replica left to measure on (" + std::to_string(placements.size() - done) +
                      " placements unmeasured); the last one lost: " + (lost_.empty() ? "none" : lost_.back()));
    try {
      const auto [rank, words] = group_.wait_any_words();
      const std::string result = job_result(group_, rank, words);
      const std::size_t i = busy.at(rank);
      busy.erase(rank);
      out[i] = Evaluation{nlohmann::json::parse(result).at("latency").get<double>(), true, 0, 0};
      ++done;
      ++evaluations_;
    } catch (const PeerLost& e) {
      drop(e.peer(), e.what());
    }
  }
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

void ReplicaReward::stop() {
  for (int rank : alive_) {
    try {
      stop_worker(group_, rank);
    } catch (const Error&) {
      // gone already: nothing to stop
    }
  }
  alive_.clear();
}

}  // namespace devplace
