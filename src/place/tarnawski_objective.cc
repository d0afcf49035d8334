// The latency model of Tarnawski et al. as their own code computes it: computeLatency() in
// latency-greedy/greedy.cpp of msr-fiddle/dnn-partitioning, and the same constraints in their
// integer program latency-ip/lip.py. Interpretation, spelled out:
//  - Receive cost of accelerator set S: every tensor produced outside S (on the CPU, on another
//    accelerator, or a graph input held in host memory) and consumed by at least one op of S
//    counts ONCE for S, however many ops of S read it (greedy.cpp: each outside node u with an
//    edge into S adds outgoingConnectionCost[u] once; lip.py: comm_in[u, S]). We charge
//    transfer_time(t, host, S): the file's edge cost for their graphs.
//  - Send cost of S: every tensor produced in S with at least one consumer outside S counts
//    ONCE, however many outside consumers it has and wherever they are (comm_out[u, S]). We
//    charge transfer_time(t, S, host). Tensors nobody outside reads (graph outputs included)
//    are not sent: the latency ends when the accelerator's work ends, as in their code.
//  - Accelerator-to-accelerator traffic thus costs the edge cost twice, once as the sender's
//    send and once as the receiver's receive. We never call transfer_time(t, S, S') (which
//    doubles by itself) so nothing is charged three times.
//  - S starts when every outside producer feeding S has finished (graph inputs at time 0);
//    then receives, computes (sum of its op times) and sends serially; all its ops finish then.
//  - A CPU op finishes op_time(v, cpu) after its latest predecessor; CPU-to-CPU edges are free.
//  - Latency = the largest finish. Checks, in this order, each one giving +inf with a reason:
//    op unsupported where placed (op_time inf), colorClass split over devices, accelerator
//    memory (sum of weight_bytes > memory_bytes when memory_bytes > 0), contiguity (no path
//    leaves an accelerator's set and comes back), and order: the graph contracted by the sets
//    must be acyclic (two contiguous sets may still each need the other's output first; their
//    code fails on it and their IP has no solution, so it is infeasible).
// Contiguity is checked in one topological sweep with a bitset per op: left[v] = the
// accelerators some path has left before reaching v; v on accelerator d with d in left[v] is a
// re-entry. Kahn's algorithm over the contracted graph (CPU ops + accelerator sets) then gives
// the finish times, or finds a cycle among the sets.
#include <algorithm>
#include <limits>
#include <map>

#include "place/tarnawski_objective.h"
#include "place/tarnawski_placers.h"
#include "util/error.h"

namespace devplace {

namespace {
std::string dev_name(const Problem& p, int d) { return p.cluster().devices[d].name; }
}  // namespace

TarnawskiEvaluator::TarnawskiEvaluator(const Problem& problem) : p_(problem) {
  const Graph& g = p_.graph();
  n_ = p_.num_ops();
  D_ = p_.num_devices();
  host_ = p_.host();
  words_ = std::max(1, (D_ + 63) / 64);
  const int T = g.num_tensors();
  producer_.assign(T, -1);
  for (int t = 0; t < T; ++t) producer_[t] = g.tensor(t).producer;
  in_off_.assign(n_ + 1, 0);
  out_off_.assign(n_ + 1, 0);
  pred_off_.assign(n_ + 1, 0);
  succ_off_.assign(n_ + 1, 0);
  std::vector<int> seen(T, -1);
  for (int i = 0; i < n_; ++i) {
    const Op& op = g.op(i);
    for (int t : op.inputs) {
      if (p_.tensor_resident(t) || g.tensor(t).is_constant || seen[t] == i) continue;
      seen[t] = i;
      in_t_.push_back(t);
    }
    in_off_[i + 1] = static_cast<int>(in_t_.size());
    for (int t : op.outputs)
      if (!p_.tensor_resident(t) && !g.tensor(t).consumers.empty()) out_t_.push_back(t);
    out_off_[i + 1] = static_cast<int>(out_t_.size());
    for (int q : g.preds(i)) pred_.push_back(q);
    pred_off_[i + 1] = static_cast<int>(pred_.size());
    for (int q : g.succs(i)) succ_.push_back(q);
    succ_off_[i + 1] = static_cast<int>(succ_.size());
  }
  cons_off_.assign(T + 1, 0);
  for (int t = 0; t < T; ++t) {
    for (int c : g.tensor(t).consumers) cons_.push_back(c);
    cons_off_[t + 1] = static_cast<int>(cons_.size());
  }
  color_.assign(n_, -1);
  std::map<std::int64_t, int> ids;
  for (int i = 0; i < n_; ++i) {
    auto it = g.op(i).attrs.find("colorClass");
    if (it == g.op(i).attrs.end()) continue;
    std::int64_t c = g.op(i).attr_int("colorClass", 0);
    auto [jt, fresh] = ids.emplace(c, static_cast<int>(ids.size()));
    color_[i] = jt->second;
  }
  num_colors_ = static_cast<int>(ids.size());
}

double TarnawskiEvaluator::latency(const Placement& placement) { return run(placement, false).latency; }
Verdict TarnawskiEvaluator::evaluate(const Placement& placement) { return run(placement, true); }

Verdict TarnawskiEvaluator::run(const Placement& pl, bool want_reason) {
  const Graph& g = p_.graph();
  if (host_ < 0) throw Error(g.source(), "", "tarnawski objective: the cluster has no cpu (host) device", ErrorKind::unsupported);
  if (static_cast<int>(pl.size()) != n_)
    throw Error(g.source(), "",
                "placement has " + std::to_string(pl.size()) + " entries for " + std::to_string(n_) + " ops");
  for (int i = 0; i < n_; ++i)
    if (pl[i] < 0 || pl[i] >= D_)
      throw Error(g.source(), g.op(i).name,
                  "placed on device index " + std::to_string(pl[i]) + " of " + std::to_string(D_));

  Verdict r;
  auto fail = [&](auto&& make_reason) {
    r.latency = kInfeasibleTime;
    r.feasible = false;
    if (want_reason) r.reason = make_reason();
    return r;
  };

  // 1. Support.
  for (int i = 0; i < n_; ++i)
    if (!(p_.op_time(i, pl[i]) < kInfeasibleTime))
      return fail([&] { return "op '" + g.op(i).name + "' cannot run on device '" + dev_name(p_, pl[i]) + "'"; });

  // 2. Colour classes.
  class_dev_.assign(num_colors_, -1);
  class_op_.resize(num_colors_);
  for (int i = 0; i < n_; ++i) {
    const int c = color_[i];
    if (c < 0) continue;
    if (class_dev_[c] < 0) {
      class_dev_[c] = pl[i];
      class_op_[c] = i;
    } else if (class_dev_[c] != pl[i]) {
      const int j = class_op_[c];
      return fail([&] {
        return "ops '" + g.op(j).name + "' (on '" + dev_name(p_, pl[j]) + "') and '" + g.op(i).name + "' (on '" +
               dev_name(p_, pl[i]) + "') share colorClass " + std::to_string(g.op(i).attr_int("colorClass", 0)) +
               " but not a device";
      });
    }
  }

  // 3. Memory.
  mem_used_.assign(D_, 0);
  for (int i = 0; i < n_; ++i) mem_used_[pl[i]] += p_.weight_bytes(i);
  for (int d = 0; d < D_; ++d) {
    if (d == host_) continue;
    const std::int64_t cap = p_.cluster().devices[d].memory_bytes;
    if (cap > 0 && mem_used_[d] > cap)
      return fail([&] {
        return "device '" + dev_name(p_, d) + "': its ops need " + std::to_string(mem_used_[d]) + " bytes, capacity " +
               std::to_string(cap);
      });
  }

  // 4. Contiguity.
  left_.assign(static_cast<std::size_t>(n_) * words_, 0);
  for (int v = 0; v < n_; ++v) {
    std::uint64_t* lv = &left_[static_cast<std::size_t>(v) * words_];
    for (int k = pred_off_[v]; k < pred_off_[v + 1]; ++k) {
      const int u = pred_[k];
      const std::uint64_t* lu = &left_[static_cast<std::size_t>(u) * words_];
      for (int w = 0; w < words_; ++w) lv[w] |= lu[w];
      if (pl[u] != host_ && pl[u] != pl[v]) lv[pl[u] >> 6] |= std::uint64_t{1} << (pl[u] & 63);
    }
    const int d = pl[v];
    if (d != host_ && (lv[d >> 6] >> (d & 63) & 1)) {
      return fail([&] {
        int via = -1;  // the predecessor outside d that the leaving path comes through
        for (int k = pred_off_[v]; k < pred_off_[v + 1] && via < 0; ++k) {
          const int u = pred_[k];
          if (pl[u] != d && (left_[static_cast<std::size_t>(u) * words_ + (d >> 6)] >> (d & 63) & 1)) via = u;
        }
        std::string s = "device '" + dev_name(p_, d) +
                        "': its ops are not contiguous: a path leaves it and re-enters at op '" + g.op(v).name + "'";
        if (via >= 0) s += " through op '" + g.op(via).name + "' (on '" + dev_name(p_, pl[via]) + "')";
        return s;
      });
    }
  }

  // 5. Latency. Members of each accelerator (counting sort), then Kahn over CPU ops + sets.
  mem_off_.assign(D_ + 1, 0);
  for (int i = 0; i < n_; ++i) ++mem_off_[pl[i] + 1];
  for (int d = 0; d < D_; ++d) mem_off_[d + 1] += mem_off_[d];
  members_.resize(n_);
  fill_.assign(mem_off_.begin(), mem_off_.end() - 1);
  for (int i = 0; i < n_; ++i) members_[fill_[pl[i]]++] = i;

  // Node ids: CPU op v -> v; accelerator d -> n + d.
  auto node = [&](int v) { return pl[v] == host_ ? v : n_ + pl[v]; };
  const int N = n_ + D_;
  indeg_.assign(N, 0);
  ready_.assign(N, 0.0);
  for (int v = 0; v < n_; ++v)
    for (int k = pred_off_[v]; k < pred_off_[v + 1]; ++k)
      if (node(pred_[k]) != node(v)) ++indeg_[node(v)];
  queue_.clear();
  int expected = 0;
  for (int v = 0; v < n_; ++v)
    if (pl[v] == host_) {
      ++expected;
      if (indeg_[v] == 0) queue_.push_back(v);
    }
  for (int d = 0; d < D_; ++d)
    if (d != host_ && mem_off_[d + 1] > mem_off_[d]) {
      ++expected;
      if (indeg_[n_ + d] == 0) queue_.push_back(n_ + d);
    }
  stamp_.assign(producer_.size(), -1);
  double latency = 0;
  auto release = [&](int from_node, int v, double finish) {
    for (int k = succ_off_[v]; k < succ_off_[v + 1]; ++k) {
      const int s = node(succ_[k]);
      if (s == from_node) continue;
      ready_[s] = std::max(ready_[s], finish);
      if (--indeg_[s] == 0) queue_.push_back(s);
    }
  };
  for (std::size_t head = 0; head < queue_.size(); ++head) {
    const int x = queue_[head];
    if (x < n_) {
      const double finish = ready_[x] + p_.op_time(x, host_);
      latency = std::max(latency, finish);
      release(x, x, finish);
      continue;
    }
    const int d = x - n_;
    double busy = 0;
    for (int m = mem_off_[d]; m < mem_off_[d + 1]; ++m) {
      const int v = members_[m];
      busy += p_.op_time(v, d);
      for (int k = in_off_[v]; k < in_off_[v + 1]; ++k) {  // receive: once per tensor per set
        const int t = in_t_[k];
        const int pr = producer_[t];
        if ((pr < 0 || pl[pr] != d) && stamp_[t] != d) {
          stamp_[t] = d;
          busy += p_.transfer_time(t, host_, d);
        }
      }
      for (int k = out_off_[v]; k < out_off_[v + 1]; ++k) {  // send: once per tensor
        const int t = out_t_[k];
        for (int c = cons_off_[t]; c < cons_off_[t + 1]; ++c)
          if (pl[cons_[c]] != d) {
            busy += p_.transfer_time(t, d, host_);
            break;
          }
      }
    }
    const double finish = ready_[x] + busy;
    latency = std::max(latency, finish);
    for (int m = mem_off_[d]; m < mem_off_[d + 1]; ++m) release(x, members_[m], finish);
  }
  if (static_cast<int>(queue_.size()) != expected) {
    // Two or more sets each wait for another's output: contiguous sets can still do this
    // (a -> b with a on fpga0, b on fpga1; c -> d with c on fpga1, d on fpga0). Their code
    // rejects it (getTopologicalSort: "contracted graph is not acyclic") and their IP has no
    // solution for it, so it is infeasible. Name the sets of one cycle: walk back through
    // unprocessed predecessors until a node repeats.
    return fail([&] {
      int x = -1;
      for (int d = 0; d < D_ && x < 0; ++d)
        if (d != host_ && mem_off_[d + 1] > mem_off_[d] && indeg_[n_ + d] > 0) x = n_ + d;
      std::vector<int> walk, pos(N, -1);
      while (x >= 0 && pos[x] < 0) {
        pos[x] = static_cast<int>(walk.size());
        walk.push_back(x);
        int next = -1;
        const int lo = x < n_ ? x : -1;
        auto scan = [&](int v) {
          for (int k = pred_off_[v]; k < pred_off_[v + 1] && next < 0; ++k) {
            const int y = node(pred_[k]);
            if (y != x && indeg_[y] > 0) next = y;
          }
        };
        if (lo >= 0)
          scan(lo);
        else
          for (int m = mem_off_[x - n_]; m < mem_off_[x - n_ + 1] && next < 0; ++m) scan(members_[m]);
        x = next;
      }
      std::string names;
      if (x >= 0)
        for (std::size_t k = pos[x]; k < walk.size(); ++k) {
          const int y = walk[k];
          names +=
              (names.empty() ? "" : " <- ") + (y < n_ ? "op '" + g.op(y).name + "'" : "'" + dev_name(p_, y - n_) + "'");
        }
      return "accelerator sets wait for each other in a cycle (" + names +
             "): each needs another's output before it can start";
    });
  }
  r.latency = latency;
  return r;
}

Verdict tarnawski_latency(const Problem& problem, const Placement& placement) {
  TarnawskiEvaluator e(problem);
  return e.evaluate(placement);
}

double tarnawski_violation(const Problem& p, const Placement& pl) {
  const Graph& g = p.graph();
  const int n = p.num_ops(), D = p.num_devices();
  if (static_cast<int>(pl.size()) != n)
    throw Error(g.source(), "",
                "placement has " + std::to_string(pl.size()) + " entries for " + std::to_string(n) + " ops");
  double bad_ops = 0;
  for (int i = 0; i < n; ++i)
    if (!(p.op_time(i, pl[i]) < kInfeasibleTime)) bad_ops += 1;
  // Colour classes: every op off its class's most common device.
  std::map<std::int64_t, std::vector<int>> class_counts;
  for (int i = 0; i < n; ++i)
    if (g.op(i).attrs.count("colorClass")) {
      auto& c = class_counts[g.op(i).attr_int("colorClass", 0)];
      c.resize(D, 0);
      ++c[pl[i]];
    }
  for (const auto& [cls, counts] : class_counts) {
    int total = 0, most = 0;
    for (int k : counts) total += k, most = std::max(most, k);
    bad_ops += total - most;
  }
  // Contiguity: an op off accelerator d that has an ancestor and a descendant on d. Op index is
  // a topological order, so one forward and one backward pass find both.
  double overflow = 0;
  std::vector<char> below(n), above(n);
  for (int d = 0; d < D; ++d) {
    if (d == p.host()) continue;
    for (int v = 0; v < n; ++v) {
      below[v] = 0;
      for (int u : g.preds(v)) below[v] |= static_cast<char>(pl[u] == d || below[u]);
    }
    for (int v = n - 1; v >= 0; --v) {
      above[v] = 0;
      for (int w : g.succs(v)) above[v] |= static_cast<char>(pl[w] == d || above[w]);
    }
    std::int64_t used = 0;
    for (int v = 0; v < n; ++v) {
      if (pl[v] != d && below[v] && above[v]) bad_ops += 1;
      if (pl[v] == d) used += p.weight_bytes(v);
    }
    const std::int64_t cap = p.cluster().devices[d].memory_bytes;
    if (cap > 0 && used > cap) overflow += static_cast<double>(used - cap) / static_cast<double>(cap);
  }
  return bad_ops / std::max(1, n) + overflow;
}

}  // namespace devplace
