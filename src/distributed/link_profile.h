// What a multi-process cluster's links cost: rank 0 measures each worker's link by ping-pong
// over a range of message sizes and fits latency + bytes / bandwidth (latency: the smallest
// message's one-way time; bandwidth: the slope of the rest), the cost model of a
// cluster file's [[links]] (docs/design/distributed.md). The workers answer in serve_worker().
// Torch-free.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cost/cluster.h"
#include "cost/cost_table.h"
#include "distributed/process_group.h"

namespace devplace {

struct LinkMeasurement {
  int peer = 0;                 // the worker's rank
  double latency_s = 0;              // one-way latency
  double bandwidth_Bps = 0;          // fitted bandwidth, bytes per second
  std::vector<std::int64_t> bytes;   // per message size
  std::vector<double> one_way_s;     // median one-way time (half a round trip)
};

struct LinkProfileOptions {
  std::vector<std::int64_t> sizes = {4, 4 << 10, 64 << 10, 1 << 20, 8 << 20};
  int repeats = 5;  // round trips per size, after one untimed
  // Echo each message as a placed run moves a tensor (dist/process_exchange.h: a header, then
  // the bytes, copied in and out of tensors) instead of as one raw message: the link as
  // Executor::run_share pays for it, which is what the simulator should charge.
  bool as_tensors = false;
  // Throws Error for no sizes, a size below 1 byte or fewer than one repeat.
  void check() const;
};

// Rank 0 only: measures the link to every other rank. Throws Error naming the rank that fails.
std::vector<LinkMeasurement> measure_links(ProcessGroup& group, const LinkProfileOptions& options = {});

// Rank 0 only: tells every worker to return from serve_worker().
void stop_workers(ProcessGroup& group);
// Rank 0 only: tells one worker to return from serve_worker().
void stop_worker(ProcessGroup& group, int peer);

// A worker's loop: answers rank 0's requests until told to stop: echoes (measure_links) and
// jobs (send_job: `on_job` runs the text rank 0 sent and returns a result text, then the worker
// reports done with it; an Error it throws is reported as the job's failure). `die_after` > 0
// (fault injection for tests) ends the process abruptly after that many answered messages.
void serve_worker(ProcessGroup& group, int die_after = 0,
                  const std::function<std::string(const std::string&)>& on_job = {});

// Rank 0 only: hands `job` (a text the workers' on_job understands) to every worker.
void send_job(ProcessGroup& group, const std::string& job);
// Rank 0 only: hands `job` to one worker; its answer arrives as control words (post_words and
// wait_any_words, or recv_words) that job_result reads.
void send_job_to(ProcessGroup& group, int peer, const std::string& job);
// The result text of a job whose answer `words` came from `peer`. Throws Error with the
// worker's reason when the job failed there, PeerLost when the answer makes no sense.
std::string job_result(ProcessGroup& group, int peer, const std::vector<std::int64_t>& words);
// Rank 0 only: waits until every worker reports its job done; throws Error naming a worker that
// failed (it reports why) or went silent.
void wait_for_jobs(ProcessGroup& group);

// The measurements as a Markdown table: link, latency, bandwidth, one-way time per size.
std::string links_table(const std::vector<LinkMeasurement>& links);

// The measured links as a cost table's links (cost/cost_table.h) between every ordered pair of
// devices in different processes (device d runs in process device_ranks[d]): a pair with rank 0
// on one side takes the other rank's link; a pair of two workers the slower of their links to
// rank 0 (measure_links times rank 0's links only: hosts on one network). Throws Error when a
// worker rank has no measurement.
std::vector<MeasuredLink> device_links(const Cluster& cluster, const std::vector<int>& device_ranks,
                                       const std::vector<LinkMeasurement>& links);

// The measurements as JSON: {"links": [{"from": 0, "to": r, "latency_us", "bandwidth_gbs",
// "samples": [[bytes, seconds], ...]}]}.
std::string links_json(const std::vector<LinkMeasurement>& links);

}  // namespace devplace
