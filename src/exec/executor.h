// Executor: runs a placed ONNX graph for real, one worker per placement device, and measures it.
//
// Workers: a `cpu:N` worker is a thread of its own (intra-op threads configurable, pinned to
// cores N*k .. N*k+k-1 modulo the machine's cores where the OS allows); a `cuda:N` worker runs
// its ops on CUDA device N (only where LibTorch has CUDA; otherwise the constructor throws).
// Scheduling: an op runs as soon as every input is on its worker (a dependency-counting
// scheduler, one FIFO queue per worker), so ops of independent branches on two workers really
// overlap. A tensor that crosses workers is copied once per destination worker, by that worker
// (clone for cpu->cpu, .to(device) otherwise). Graph inputs and constants are on every worker
// before the clock starts; Constant nodes (and anything the cost model folds) are evaluated once
// at load time, as a runtime folds them.
// Weights: initializers that keep their data in the file use it; stripped ones get seeded random
// values, N(0, 2/fan_in) for conv weights and N(0, 1/fan_in) for other matrices, so activations
// stay finite; integer graph inputs are drawn below the row count of the tables they index.
//
// This header is LibTorch-free (pimpl). Threading: one Executor runs one inference at a time;
// call it from one thread. Its worker threads live as long as it does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cost/cluster.h"
#include "exec/tensor_exchange.h"
#include "graph/graph.h"
#include "sim/schedule.h"

namespace devplace {

struct WorkerSpec {
  enum class Kind { cpu, cuda } kind = Kind::cpu;
  int index = 0;
  std::string str() const;  // "cpu:0"
};

// Parses "cpu:N" or "cuda:N"; throws Error otherwise.
WorkerSpec parse_worker(const std::string& text);

// The worker of each device of `cluster`, in device order: a device's `worker = "cpu:1"` key in
// the cluster file (`spec`, when it is a .toml/.json path) wins; otherwise cpu devices become
// cpu:0, cpu:1 ... and gpu devices cuda:0, cuda:1 ... in order. Throws Error for other kinds.
std::vector<WorkerSpec> workers_for_cluster(const Cluster& cluster, const std::string& spec);

// The process (rank) of each device of `cluster` for runs across processes: a device's `rank = N`
// key in the cluster file (`spec`, when it is a .toml/.json path), else 0. Throws Error naming
// the device for a negative rank.
std::vector<int> device_ranks_for_cluster(const Cluster& cluster, const std::string& spec);

// True when LibTorch was built with CUDA and sees a device.
bool cuda_available();

struct ExecOptions {
  int intra_op_threads = 1;  // ATen threads per cpu worker
  bool pin_threads = true;   // pthread_setaffinity_np per cpu worker
  std::uint64_t seed = 1;    // random weights and inputs
  // An idle worker spins this long for work before it sleeps on its queue: waking a sleeping
  // thread (on a VM, a halted vCPU) costs 0.1-2 ms, more than most copies. 0 = sleep at once.
  int spin_us = 2000;
  // Tell glibc to keep freed memory for reuse (mallopt: mmap threshold 32 MiB, trim threshold
  // 1 GiB) instead of handing large blocks back to the kernel, so each run does not page-fault
  // its activations in again (measured: one worker's profile 25% slower than the other's without
  // it). Process-wide and not undone (glibc has no way to read the previous values back), so
  // it is off unless the caller, owning the process, asks; the CLI does.
  bool keep_freed_memory = false;
};

// A tensor copied back to the host as doubles (for comparing runs).
struct HostTensor {
  std::string name;
  Shape shape;
  std::vector<double> values;
};

struct RunStats {
  double latency = 0;  // seconds, first op start to last op end (copies included)
  int copies = 0;      // tensors copied between workers
  std::int64_t copied_bytes = 0;
};

// Per-op and per-copy times measured by Executor::profile.
struct Profile {
  std::vector<double> op_seconds;    // per op; 0 for folded ops
  std::vector<double> copy_seconds;  // per tensor; -1 where nothing is copied (constants, unused)
};

class Executor {
 public:
  // REQUIRES: `graph` finalized, imported from the ONNX file graph.source() (read again here for
  // Constant values and initializer data), outliving the Executor. Throws Error for an unsupported
  // op type (naming it), a missing file or an unavailable worker.
  Executor(const Graph& graph, std::vector<WorkerSpec> workers, ExecOptions options = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  int num_workers() const;
  // How tensors cross to and from cuda workers in this build: "async" (a stream per worker,
  // events, pinned staging buffers, non-blocking copies; where LibTorch has CUDA) or "blocking"
  // (.to() on the default stream). The execution model's `copies` (cost/execution_model.h).
  static const char* gpu_copies();
  // What runs a cpu worker's matrix products, convolutions and pooling in this build: "oneDNN",
  // or ATen's kernels where the build had no oneDNN headers (exec/cpu_kernels.h).
  static const char* cpu_kernels();
  const std::vector<WorkerSpec>& workers() const;

  // Runs one inference with op i on worker placement[i]. Throws Error for a bad placement or a
  // failing op (naming it). Outputs of the last run stay readable through outputs().
  RunStats run(const Placement& placement);
  // Graph outputs of the last run, in graph order.
  std::vector<HostTensor> outputs() const;
  // Replaces graph input `name`'s seeded random value for every later run with a file's: a
  // NumPy .npy or an ONNX TensorProto .pb (the ONNX test suites' format). Throws Error naming the
  // file and the input for an unknown input, a bad file, or a shape or type other than the graph's.
  void set_input(const std::string& name, const std::string& path);
  // Writes each graph output of the last run as DIR/<name>.npy (its own type; '/' and ':' in a
  // name become '_'); returns the paths.
  std::vector<std::string> write_outputs(const std::string& dir) const;
  // Writes each graph input's value (the seeded random one, or set_input's) as DIR/<name>.npy.
  std::vector<std::string> write_inputs(const std::string& dir) const;
  // Writes the ONNX model with every initializer holding the data this executor uses (the file's,
  // or the seeded random values of a stripped one), atomically: another runtime given it and the
  // inputs of write_inputs computes what this executor computes.
  void write_model(const std::string& path) const;
  // What the last run did, as a Schedule (seconds from its first push; device = worker): each
  // op's span, each copy's span on its destination worker, busy time per worker (ops only, as the
  // simulator counts it).
  // Memory fields are zero (not measured). Folded ops get empty spans at 0.
  Schedule timeline() const;

  // Every op on `worker`, `warmup` untimed runs then `runs` timed ones made as run() makes them:
  // the median time of each op; then, after one more run that keeps every tensor, the median
  // time to copy each produced tensor from `worker` to `to_worker` (done by to_worker, wake-up
  // included). REQUIRES runs >= 1; to_worker != worker, or copy_seconds stays -1.
  Profile profile(int worker, int to_worker, int warmup, int runs);

  // This process's share of one inference placed across processes (docs/design/distributed.md): the
  // ops whose device is hosted here (device_rank[placement[op]] == rank) run on this executor's
  // workers, the k-th device hosted here on worker k, with the scheduler of run() (so ops of two
  // local devices overlap); an input made elsewhere is received from its producer's process, and
  // each output is sent once to every other process that reads it (graph outputs also to rank
  // 0). Every process builds the same weights and inputs from the seed, so the result equals a
  // one-process run. Returns the graph outputs on rank 0 (empty elsewhere) and the wall time.
  // Throws Error when more devices are hosted here than the executor has workers.
  std::vector<HostTensor> run_share(const Placement& placement, const std::vector<int>& device_rank, int rank,
                                    TensorExchange& exchange, double* seconds = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace devplace
