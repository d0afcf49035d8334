#include "distributed/link_profile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "distributed/process_exchange.h"
#include "util/error.h"

namespace devplace {

namespace {

enum Request : std::int64_t { kStop = 0, kEcho = 1, kJob = 2, kJobDone = 3, kJobFailed = 4, kEchoTensor = 5 };

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// time = latency + bytes / bandwidth: the latency is the quickest message of at most 64 KiB (a
// fit through all sizes lets the large ones push the intercept below zero, and the tiniest alone
// can be held back by TCP's small-segment rules: a header and 4 bytes took 2 ms here, 4 KiB 0.15
// ms), the bandwidth the least-squares slope of the rest of the time through the origin
// (dominated by the large messages, as it should be).
void fit(LinkMeasurement& m) {
  std::size_t smallest = 0;
  bool small = false;
  for (std::size_t i = 0; i < m.bytes.size(); ++i)
    if (m.bytes[i] <= (64 << 10) && (!small || m.one_way_s[i] < m.one_way_s[smallest])) smallest = i, small = true;
  if (!small)
    for (std::size_t i = 1; i < m.bytes.size(); ++i)
      if (m.bytes[i] < m.bytes[smallest]) smallest = i;
  m.latency_s = m.one_way_s[smallest];
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < m.bytes.size(); ++i) {
    if (m.bytes[i] <= m.bytes[smallest]) continue;
    const double x = static_cast<double>(m.bytes[i] - m.bytes[smallest]), y = m.one_way_s[i] - m.latency_s;
    sxy += x * y, sxx += x * x;
  }
  m.bandwidth_Bps = sxy > 0 && sxx > 0 ? sxx / sxy : 0;
}

}  // namespace

void LinkProfileOptions::check() const {
  if (sizes.empty() || repeats < 1) throw Error("", "", "link profile: need at least one size and one repeat");
  for (std::int64_t size : sizes)
    if (size < 1) throw Error("", "", "link profile: message sizes must be positive, got " + std::to_string(size));
}

std::vector<LinkMeasurement> measure_links(ProcessGroup& g, const LinkProfileOptions& o) {
  if (g.rank() != 0) throw Error("rank " + std::to_string(g.rank()), "", "only rank 0 measures links");
  o.check();
  std::vector<LinkMeasurement> out;
  for (int peer = 1; peer < g.size(); ++peer) {
    LinkMeasurement m;
    m.peer = peer;
    for (std::int64_t size : o.sizes) {
      std::vector<std::uint8_t> msg(static_cast<std::size_t>(size), 0x5a);
      g.send_words(peer, o.as_tensors ? kEchoTensor : kEcho, size, o.repeats + 1);
      std::vector<double> times;
      ProcessExchange x(g);
      for (int r = 0; r <= o.repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::uint8_t> back;
        if (o.as_tensors) {
          x.send(peer, 0, TensorMessage{0, {size}, false, msg});
          x.flush();
          back = x.recv_next(peer).second.bytes;
        } else {
          g.send(peer, msg);
          back = g.recv(peer, msg.size());
        }
        const double t = seconds_since(t0);
        if (back != msg) throw Error("rank " + std::to_string(peer), "", "echoed bytes differ from those sent");
        if (r > 0) times.push_back(t / 2);  // the first round trip is untimed (connection set-up)
      }
      std::sort(times.begin(), times.end());
      m.bytes.push_back(size);
      m.one_way_s.push_back(times[times.size() / 2]);
    }
    fit(m);
    out.push_back(std::move(m));
  }
  return out;
}

void stop_worker(ProcessGroup& g, int peer) { g.send_words(peer, kStop, 0, 0); }

void stop_workers(ProcessGroup& g) {
  for (int peer = 1; peer < g.size(); ++peer) stop_worker(g, peer);
}

void send_job_to(ProcessGroup& g, int peer, const std::string& job) {
  g.send_words(peer, kJob, static_cast<std::int64_t>(job.size()), 0);
  g.send(peer, std::vector<std::uint8_t>(job.begin(), job.end()));
}

void send_job(ProcessGroup& g, const std::string& job) {
  for (int peer = 1; peer < g.size(); ++peer) send_job_to(g, peer, job);
}

std::string job_result(ProcessGroup& g, int peer, const std::vector<std::int64_t>& words) {
  if (words.size() != 3 || (words[0] != kJobDone && words[0] != kJobFailed) || words[1] < 0)
    throw PeerLost(peer, "unexpected answer to a job");
  const auto bytes = words[1] > 0 ? g.recv(peer, static_cast<std::size_t>(words[1])) : std::vector<std::uint8_t>();
  std::string text(bytes.begin(), bytes.end());
  if (words[0] == kJobFailed) throw Error("rank " + std::to_string(peer), "", text);
  return text;
}

void wait_for_jobs(ProcessGroup& g) {
  for (int peer = 1; peer < g.size(); ++peer) job_result(g, peer, g.recv_words(peer));
}

void serve_worker(ProcessGroup& g, int die_after, const std::function<std::string(const std::string&)>& on_job) {
  int answered = 0;
  auto count_answer = [&] {
    if (die_after > 0 && ++answered > die_after) std::_Exit(3);  // fault injection: vanish mid-exchange
  };
  auto answer = [&](std::int64_t kind, const std::string& text) {
    count_answer();
    g.send_words(0, kind, static_cast<std::int64_t>(text.size()), 0);
    if (!text.empty()) g.send(0, std::vector<std::uint8_t>(text.begin(), text.end()));
  };
  for (;;) {
    const auto req = g.recv_words(0);
    if (req[0] == kStop) return;
    if (req[0] == kJob) {
      const auto text = g.recv(0, static_cast<std::size_t>(req[1]));
      std::string result;
      try {
        if (!on_job) throw Error("", "", "this worker takes no jobs");
        result = on_job(std::string(text.begin(), text.end()));
      } catch (const Error& e) {  // rank 0 reports it; the worker serves on
        answer(kJobFailed, e.what());
        continue;
      }
      answer(kJobDone, result);
      continue;
    }
    if ((req[0] != kEcho && req[0] != kEchoTensor) || req[1] < 1 || req[2] < 0)
      throw Error("rank 0", "", "unknown request " + std::to_string(req[0]), ErrorKind::not_found);
    if (req[0] == kEchoTensor) {
      ProcessExchange x(g);
      for (std::int64_t r = 0; r < req[2]; ++r) {
        auto [tensor, m] = x.recv_next(0);
        count_answer();
        x.send(0, tensor, std::move(m));
        x.flush();
      }
      continue;
    }
    for (std::int64_t r = 0; r < req[2]; ++r) {
      auto msg = g.recv(0, static_cast<std::size_t>(req[1]));
      count_answer();
      g.send(0, msg);
    }
  }
}

std::string links_table(const std::vector<LinkMeasurement>& links) {
  std::string out = "| link | latency (us) | bandwidth (GB/s) | one-way time per size |\n|---|---|---|---|\n";
  for (const auto& m : links) {
    std::string per;
    for (std::size_t i = 0; i < m.bytes.size(); ++i) {
      char cell[64];
      std::snprintf(cell, sizeof cell, "%s%lld B: %.1f us", i ? ", " : "", static_cast<long long>(m.bytes[i]),
                    m.one_way_s[i] * 1e6);
      per += cell;
    }
    char row[160];
    std::snprintf(row, sizeof row, "| 0 -> %d | %.1f | %.3f | ", m.peer, m.latency_s * 1e6, m.bandwidth_Bps / 1e9);
    out += row + per + " |\n";
  }
  return out;
}

std::vector<MeasuredLink> device_links(const Cluster& cluster, const std::vector<int>& device_ranks,
                                       const std::vector<LinkMeasurement>& links) {
  auto of_rank = [&](int rank) -> const LinkMeasurement& {
    for (const auto& m : links)
      if (m.peer == rank) return m;
    throw Error("rank " + std::to_string(rank), "", "its link to rank 0 was not measured");
  };
  std::vector<MeasuredLink> out;
  for (int a = 0; a < cluster.num_devices(); ++a)
    for (int b = 0; b < cluster.num_devices(); ++b) {
      const int ra = device_ranks.at(a), rb = device_ranks.at(b);
      if (ra == rb) continue;
      MeasuredLink l{cluster.devices[a].name, cluster.devices[b].name, 0, 0};
      if (ra == 0 || rb == 0) {
        const LinkMeasurement& m = of_rank(ra == 0 ? rb : ra);
        l.latency = m.latency_s, l.bandwidth = m.bandwidth_Bps;
      } else {
        const LinkMeasurement &x = of_rank(ra), &y = of_rank(rb);
        l.latency = std::max(x.latency_s, y.latency_s), l.bandwidth = std::min(x.bandwidth_Bps, y.bandwidth_Bps);
      }
      if (!(l.bandwidth > 0))
        throw Error("rank " + std::to_string(ra == 0 ? rb : ra), "", "no bandwidth could be fitted to its link");
      out.push_back(l);
    }
  return out;
}

std::string links_json(const std::vector<LinkMeasurement>& links) {
  nlohmann::json j;
  j["links"] = nlohmann::json::array();
  for (const auto& m : links) {
    nlohmann::json samples = nlohmann::json::array();
    for (std::size_t i = 0; i < m.bytes.size(); ++i) samples.push_back({m.bytes[i], m.one_way_s[i]});
    j["links"].push_back({{"from", 0},
                          {"to", m.peer},
                          {"latency_us", m.latency_s * 1e6},
                          {"bandwidth_gbs", m.bandwidth_Bps / 1e9},
                          {"samples", samples}});
  }
  return j.dump(2) + "\n";
}

}  // namespace devplace
