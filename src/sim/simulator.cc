#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "util/error.h"

namespace devplace {

std::int64_t Schedule::total_overflow() const {
  std::int64_t s = 0;
  for (auto o : overflow) s += o;
  return s;
}

Verdict Schedule::verdict() const { return {feasible ? makespan : kInfeasibleTime, feasible, infeasible_reason}; }

namespace {

// Min-heap order: earlier first; at equal times finishes before readies (a device freed at t
// can take an op that became ready at t), then the op's tie rank (Simulator::tie_).
struct EventLater {
  template <class Event>
  bool operator()(const Event& a, const Event& b) const {
    if (a.time != b.time) return a.time > b.time;
    if (a.ready != b.ready) return a.ready;
    return a.tie > b.tie;
  }
};

struct QueueLater {
  template <class Entry>
  bool operator()(const Entry& a, const Entry& b) const {
    return a.ready != b.ready ? a.ready > b.ready : a.tie > b.tie;
  }
};

std::string mib(std::int64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
  return buf;
}

}  // namespace

Simulator::Simulator(const Problem& problem) : problem_(problem), n_(problem.num_ops()), D_(problem.num_devices()) {
  const Graph& g = problem.graph();
  const int T = g.num_tensors();
  producer_.resize(T);
  act_bytes_.resize(T);
  for (int t = 0; t < T; ++t) {
    producer_[t] = g.tensor(t).producer;
    act_bytes_[t] = problem.tensor_resident(t) ? 0 : problem.tensor_bytes(t);
  }
  in_off_.assign(n_ + 1, 0);
  out_off_.assign(n_ + 1, 0);
  for (int i = 0; i < n_; ++i) {
    const Op& op = g.op(i);
    std::vector<int> ins;
    for (int t : op.inputs)
      if (!problem.folded(i) && producer_[t] >= 0 && !problem.tensor_resident(t)) ins.push_back(t);  // constants wait for nothing
    std::sort(ins.begin(), ins.end());
    ins.erase(std::unique(ins.begin(), ins.end()), ins.end());
    in_tensor_.insert(in_tensor_.end(), ins.begin(), ins.end());
    in_off_[i + 1] = static_cast<int>(in_tensor_.size());
    out_tensor_.insert(out_tensor_.end(), op.outputs.begin(), op.outputs.end());
    out_off_[i + 1] = static_cast<int>(out_tensor_.size());
  }
  cons_off_.assign(T + 1, 0);
  for (int t = 0; t < T; ++t) {
    for (int c : g.tensor(t).consumers)
      if (!problem.folded(c)) cons_op_.push_back(c);
    cons_off_[t + 1] = static_cast<int>(cons_op_.size());
  }
  // Tie ranks: the longer path to the graph's end first (each op at its fastest time; the
  // critical path, as list schedulers order), then the smaller name. Free of the ops'
  // numbering, so a renumbered graph simulates the same; consumers are visited in this order
  // too (the order transfers queue on a link).
  std::vector<double> rank(n_, 0);
  for (int v = n_ - 1; v >= 0; --v) {  // indices are a topological order
    double fastest = kInfeasibleTime;
    for (int d = 0; d < D_; ++d) fastest = std::min(fastest, problem.op_time(v, d));
    if (!(fastest < kInfeasibleTime)) fastest = 0;  // runs nowhere: adds nothing to a path
    double tail = 0;
    for (int s : g.succs(v)) tail = std::max(tail, rank[s]);
    rank[v] = fastest + tail;
  }
  std::vector<int> order(n_);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return rank[a] != rank[b] ? rank[a] > rank[b] : g.op(a).name < g.op(b).name;
  });
  tie_.resize(n_);
  for (int k = 0; k < n_; ++k) tie_[order[k]] = k;
  for (int t = 0; t < T; ++t)
    std::sort(cons_op_.begin() + cons_off_[t], cons_op_.begin() + cons_off_[t + 1],
              [&](int a, int b) { return tie_[a] < tie_[b]; });
  pending_.resize(n_);
  ready_time_.resize(n_);
  op_start_.resize(n_);
  op_end_.resize(n_);
  link_free_.resize(static_cast<std::size_t>(D_) * D_);
  arrival_.resize(D_);
}

void Simulator::start_events() {
  events_.clear();
  queues_.resize(D_);
  for (auto& q : queues_) q.clear();
  busy_.assign(D_, 0);
  transfers_.clear();
  for (int i = 0; i < n_; ++i) {
    pending_[i] = in_off_[i + 1] - in_off_[i];
    ready_time_[i] = 0;
    if (pending_[i] == 0) events_.push_back({0.0, tie_[i], i, true});
  }
  std::make_heap(events_.begin(), events_.end(), EventLater{});
}

template <class WorkerOf, class Dispatch>
bool Simulator::next_finish(Event& e, int& worker, const WorkerOf& worker_of, const Dispatch& dispatch) {
  while (!events_.empty()) {
    std::pop_heap(events_.begin(), events_.end(), EventLater{});
    e = events_.back();
    events_.pop_back();
    worker = worker_of(e.op);
    if (!e.ready) {
      busy_[worker] = 0;
      return true;
    }
    queues_[worker].push_back({e.time, e.tie, e.op});
    std::push_heap(queues_[worker].begin(), queues_[worker].end(), QueueLater{});
    dispatch(worker, e.time);
  }
  return false;
}

void Simulator::check(const Placement& p) const {
  const Graph& g = problem_.graph();
  if (static_cast<int>(p.size()) != n_)
    throw Error(g.source(), "",
                "placement has " + std::to_string(p.size()) + " entries for " + std::to_string(n_) + " ops");
  for (int i = 0; i < n_; ++i)
    if (p[i] < 0 || p[i] >= D_)
      throw Error(g.source(), g.op(i).name,
                  "placed on device index " + std::to_string(p[i]) + " of " + std::to_string(D_));
}

bool Simulator::simulate(const Placement& p, int& bad_op) {
  for (int i = 0; i < n_; ++i)
    if (std::isinf(problem_.op_time(i, p[i]))) {
      bad_op = i;
      return false;
    }
  if (problem_.execution()) return simulate_executor(p);
  auto& events = events_;
  auto& queues = queues_;
  auto& busy = busy_;
  start_events();
  std::fill(link_free_.begin(), link_free_.end(), 0.0);

  auto dispatch = [&](int d, double now) {
    if (busy[d] || queues[d].empty()) return;
    std::pop_heap(queues[d].begin(), queues[d].end(), QueueLater{});
    int op = queues[d].back().op;
    queues[d].pop_back();
    busy[d] = 1;
    op_start_[op] = now;
    op_end_[op] = now + problem_.placed_time(op, p);
    events.push_back({op_end_[op], tie_[op], op, false});
    std::push_heap(events.begin(), events.end(), EventLater{});
  };

  Event e;
  int d;
  while (next_finish(e, d, [&](int op) { return p[op]; }, dispatch)) {
    const double now = e.time;
    for (int k = out_off_[e.op]; k < out_off_[e.op + 1]; ++k) {
      const int t = out_tensor_[k];
      if (problem_.tensor_resident(t)) continue;  // already on every device
      // Each destination device receives the tensor once, at arrival_[dst].
      std::fill(arrival_.begin(), arrival_.end(), -1.0);
      arrival_[d] = now;
      for (int c = cons_off_[t]; c < cons_off_[t + 1]; ++c) {
        const int op = cons_op_[c];
        const int dst = p[op];
        if (arrival_[dst] < 0) {
          double& free_at = link_free_[d * D_ + dst];
          const double start = std::max(now, free_at);
          free_at = start + problem_.transfer_time(t, d, dst);
          arrival_[dst] = free_at;
          transfers_.push_back({t, d, dst, start, free_at});
        }
        ready_time_[op] = std::max(ready_time_[op], arrival_[dst]);
        if (--pending_[op] == 0) {
          events.push_back({ready_time_[op], tie_[op], op, true});
          std::push_heap(events.begin(), events.end(), EventLater{});
        }
      }
    }
    dispatch(d, now);
  }
  return true;
}

bool Simulator::simulate_executor(const Placement& p) {
  const Problem::Execution& x = *problem_.execution();
  auto& events = events_;
  auto& queues = queues_;
  auto& busy = busy_;
  copies_.clear();
  start_events();
  stream_free_.assign(D_, 0.0);
  worker_free_.assign(D_, 0.0);
  copy_for_dst_.assign(D_, -1);
  inline_first_.assign(n_, 0);
  inline_end_.assign(n_, 0);
  // Tasks: op i is task i, copy k is task n_ + k; both wait in a worker's queue.
  auto worker_of = [&](int task) { return task < n_ ? p[task] : copies_[task - n_].dst; };
  auto tie_of = [&](int task) { return task < n_ ? tie_[task] : tie_[producer_[copies_[task - n_].tensor]]; };
  auto push_event = [&](double time, int task, bool ready) {
    events.push_back({time, tie_of(task), task, ready});
    std::push_heap(events.begin(), events.end(), EventLater{});
  };
  const bool async_copies = x.copies == ExecutionModel::Copies::async;
  // A copy from an asynchronous device under async copies is enqueued by the producer's own
  // thread right after its kernel (no task of its own): the destinations it goes to.
  auto inline_copy = [&](int src, int dst) { return async_copies && x.async[src] && src != dst; };
  auto stream_item = [&](int d, double enqueued, double seconds) {
    const double start = std::max(enqueued, stream_free_[d]);
    stream_free_[d] = start + seconds;
    return start;
  };
  // `t` is on `dst` (for a launching thread: may be launched on) at `when`.
  auto arrive = [&](int t, int dst, double when) {
    for (int c = cons_off_[t]; c < cons_off_[t + 1]; ++c) {
      const int op = cons_op_[c];
      if (p[op] != dst) continue;
      ready_time_[op] = std::max(ready_time_[op], when);
      if (--pending_[op] == 0) push_event(ready_time_[op], op, true);
    }
  };

  auto run_task = [&](int task, int w, double now) {
    if (task < n_ && problem_.folded(task)) {  // evaluated at load time: no task at run time
      op_start_[task] = op_end_[task] = now;
      inline_first_[task] = inline_end_[task] = static_cast<int>(copies_.size());
      return now;
    }
    const double start = now + x.dispatch[w] + (now > worker_free_[w] ? x.wake[w] : 0.0);
    double host_end;
    if (task < n_) {
      const int op = task;
      inline_first_[op] = inline_end_[op] = static_cast<int>(copies_.size());
      const double work = x.op_scale[w] * problem_.placed_time(op, p);
      if (!x.async[w]) {
        op_start_[op] = start;
        host_end = op_end_[op] = start + work;
      } else {
        const double launched = start + work;
        const double kernel = problem_.stream_time(op, w);
        op_start_[op] = stream_item(w, launched, kernel);
        op_end_[op] = op_start_[op] + kernel;
        host_end = launched;
        // Copies to other devices, enqueued behind the kernel by this thread.
        for (int k = out_off_[op]; k < out_off_[op + 1]; ++k) {
          const int t = out_tensor_[k];
          if (problem_.tensor_resident(t)) continue;
          std::fill(copy_for_dst_.begin(), copy_for_dst_.end(), -1);
          for (int c = cons_off_[t]; c < cons_off_[t + 1]; ++c) {
            const int dst = p[cons_op_[c]];
            if (!inline_copy(w, dst) || copy_for_dst_[dst] >= 0) continue;
            copy_for_dst_[dst] = 1;
            host_end += x.dispatch[w];
            const double seconds = static_cast<double>(act_bytes_[t]) * x.inv_bandwidth[w * D_ + dst];
            const double cs = stream_item(w, host_end, seconds);
            transfers_.push_back({t, w, dst, cs, cs + seconds});
            copies_.push_back({t, w, dst, cs + seconds + x.fixed[w * D_ + dst]});
          }
        }
        inline_end_[op] = static_cast<int>(copies_.size());
      }
    } else {
      Copy& cp = copies_[task - n_];
      const int src = cp.src, pair = src * D_ + w;
      const double seconds = static_cast<double>(act_bytes_[cp.tensor]) * x.inv_bandwidth[pair];
      double cs;
      if (!x.async[src] && !x.async[w]) {  // a copy in host memory by this thread
        cs = start;
        host_end = cs + x.fixed[pair] + seconds;
      } else if (async_copies) {  // to an asynchronous device: stage, then enqueue
        host_end = start + x.fixed[pair] + static_cast<double>(act_bytes_[cp.tensor]) / x.staging_bandwidth;
        cs = stream_item(w, host_end, seconds);
      } else {  // blocking: wait until the streams involved have run all they were given
        cs = start;
        if (x.async[src]) cs = std::max(cs, stream_free_[src]);
        if (x.async[w]) cs = std::max(cs, stream_free_[w]);
        if (x.async[src]) stream_free_[src] = cs + seconds;
        if (x.async[w]) stream_free_[w] = cs + seconds;
        host_end = cs + seconds + x.fixed[pair];
      }
      transfers_.push_back({cp.tensor, src, w, cs, cs + seconds});
      cp.arrival = host_end;
    }
    return host_end;
  };

  auto dispatch = [&](int d, double now) {
    if (busy[d] || queues[d].empty()) return;
    std::pop_heap(queues[d].begin(), queues[d].end(), QueueLater{});
    const int task = queues[d].back().op;
    queues[d].pop_back();
    busy[d] = 1;
    const double end = run_task(task, d, now);
    if (!(task < n_ && problem_.folded(task))) worker_free_[d] = end;
    push_event(end, task, false);
  };

  Event e;
  int w;
  while (next_finish(e, w, worker_of, dispatch)) {
    const double now = e.time;
    if (e.op >= n_) {
      const Copy cp = copies_[e.op - n_];
      arrive(cp.tensor, cp.dst, cp.arrival);
    } else {
      for (int k = out_off_[e.op]; k < out_off_[e.op + 1]; ++k) {
        const int t = out_tensor_[k];
        if (problem_.tensor_resident(t)) continue;
        std::fill(copy_for_dst_.begin(), copy_for_dst_.end(), -1);
        // The copies this op's thread enqueued itself (run_task), by destination.
        for (int c = inline_first_[e.op]; c < inline_end_[e.op]; ++c)
          if (copies_[c].tensor == t) copy_for_dst_[copies_[c].dst] = c;
        arrive(t, w, now);
        for (int c = cons_off_[t]; c < cons_off_[t + 1]; ++c) {
          const int dst = p[cons_op_[c]];
          if (dst == w || copy_for_dst_[dst] == -2) continue;
          if (copy_for_dst_[dst] >= 0) {
            arrive(t, dst, copies_[copy_for_dst_[dst]].arrival);
          } else {
            copies_.push_back({t, w, dst, 0.0});
            push_event(now, n_ + static_cast<int>(copies_.size()) - 1, true);
          }
          copy_for_dst_[dst] = -2;  // handled
        }
      }
    }
    dispatch(w, now);
  }
  return true;
}

bool Simulator::memory(const Placement& p, std::vector<std::int64_t>& peak, std::vector<std::int64_t>& overflow,
                       bool exact) {
  auto& weights = mem_weights_;
  auto& upper = mem_upper_;
  weights.assign(D_, 0);
  upper.assign(D_, 0);
  for (int i = 0; i < n_; ++i) weights[p[i]] += problem_.weight_bytes(i);
  for (int i = 0; i < n_; ++i)
    for (int k = out_off_[i]; k < out_off_[i + 1]; ++k) upper[p[i]] += act_bytes_[out_tensor_[k]];
  for (const auto& tr : transfers_) upper[tr.dst] += problem_.tensor_bytes(tr.tensor);
  peak.assign(D_, 0);
  overflow.assign(D_, 0);
  bool fits_upper = true;
  for (int d = 0; d < D_; ++d) {
    const auto cap = problem_.cluster().devices[d].memory_bytes;
    if (cap > 0 && weights[d] + upper[d] > cap) fits_upper = false;
  }
  // If even keeping every activation alive fits, the sweep below cannot find an overflow.
  if (fits_upper && !exact) return true;

  // Sweep allocation and release events in time order (releases first at equal times).
  struct Delta {
    double time;
    std::int64_t bytes;
    int device;
  };
  std::vector<Delta> deltas;
  deltas.reserve(2 * (out_tensor_.size() + transfers_.size()));
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> release(D_);
  std::vector<char> holds(D_);
  // Transfers are grouped per tensor to find when the source copy may be released.
  std::vector<std::vector<const TransferSpan*>> sends(problem_.graph().num_tensors());
  for (const auto& tr : transfers_) sends[tr.tensor].push_back(&tr);
  for (int i = 0; i < n_; ++i)
    for (int k = out_off_[i]; k < out_off_[i + 1]; ++k) {
      const int t = out_tensor_[k];
      const std::int64_t b = act_bytes_[t];
      if (b == 0) continue;
      std::fill(release.begin(), release.end(), 0.0);
      std::fill(holds.begin(), holds.end(), 0);
      const int src = p[i];
      holds[src] = 1;
      deltas.push_back({op_start_[i], b, src});
      for (const TransferSpan* tr : sends[t]) {
        holds[tr->dst] = 1;
        deltas.push_back({tr->start, b, tr->dst});
        release[src] = std::max(release[src], tr->end);
      }
      bool consumed = false;
      for (int c = cons_off_[t]; c < cons_off_[t + 1]; ++c) {
        const int op = cons_op_[c];
        release[p[op]] = std::max(release[p[op]], op_end_[op]);
        consumed = true;
      }
      // A graph output (or a tensor nothing reads) stays until the end; one read only by ops
      // folded at load time is released when made.
      if (!consumed && (problem_.graph().tensor(t).is_graph_output || problem_.graph().tensor(t).consumers.empty()))
        release[src] = inf;
      for (int dd = 0; dd < D_; ++dd)
        if (holds[dd] && release[dd] < inf) deltas.push_back({std::max(release[dd], op_end_[i]), -b, dd});
    }
  std::sort(deltas.begin(), deltas.end(),
            [](const Delta& a, const Delta& b) { return a.time != b.time ? a.time < b.time : a.bytes < b.bytes; });
  std::vector<std::int64_t> live(D_, 0), max_live(D_, 0);
  for (const auto& dl : deltas) {
    live[dl.device] += dl.bytes;
    max_live[dl.device] = std::max(max_live[dl.device], live[dl.device]);
  }
  bool ok = true;
  for (int d = 0; d < D_; ++d) {
    peak[d] = weights[d] + max_live[d];
    const auto cap = problem_.cluster().devices[d].memory_bytes;
    if (cap > 0 && peak[d] > cap) {
      overflow[d] = peak[d] - cap;
      ok = false;
    }
  }
  return ok;
}

double Simulator::makespan(const Placement& p) {
  check(p);
  int bad = -1;
  if (!simulate(p, bad)) return kInfeasibleTime;
  if (!memory(p, peak_scratch_, overflow_scratch_, false)) return kInfeasibleTime;
  double m = 0;
  for (int i = 0; i < n_; ++i) m = std::max(m, op_end_[i]);
  for (const auto& tr : transfers_) m = std::max(m, tr.end);
  return m;
}

Schedule Simulator::run(const Placement& p) {
  check(p);
  Schedule s;
  const Graph& g = problem_.graph();
  const Cluster& c = problem_.cluster();
  int bad = -1;
  if (!simulate(p, bad)) {
    s.feasible = false;
    s.makespan = kInfeasibleTime;
    s.infeasible_reason =
        "op '" + g.op(bad).name + "' (" + g.op(bad).type + ") cannot run on device '" + c.devices[p[bad]].name + "'";
    return s;
  }
  s.ops.resize(n_);
  s.busy.assign(D_, 0);
  for (int i = 0; i < n_; ++i) {
    s.ops[i] = {op_start_[i], op_end_[i], p[i]};
    s.busy[p[i]] += op_end_[i] - op_start_[i];
    s.makespan = std::max(s.makespan, op_end_[i]);
  }
  for (const auto& tr : transfers_) s.makespan = std::max(s.makespan, tr.end);
  s.transfers = transfers_;
  if (!memory(p, s.peak_memory, s.overflow, true)) {
    s.feasible = false;
    for (int d = 0; d < D_; ++d)
      if (s.overflow[d] > 0) {
        if (!s.infeasible_reason.empty()) s.infeasible_reason += "; ";
        s.infeasible_reason += "device '" + c.devices[d].name + "' needs " + mib(s.peak_memory[d]) + " but has " +
                               mib(c.devices[d].memory_bytes) + " (over by " + mib(s.overflow[d]) + ")";
      }
  }
  return s;
}

}  // namespace devplace
