// The executor: ONNX loading (constants, weights, inputs), worker threads and the
// dependency-counting scheduler. Op semantics live in onnx_ops.cc.
#include "exec/executor.h"

#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <onnx/onnx_pb.h>
#include <torch/cuda.h>
// Where LibTorch has CUDA: a stream per GPU worker, events between workers, pinned staging
// buffers and non-blocking copies (docs/design/execution.md, "What a run does", crossings on a GPU). Elsewhere a copy to
// or from a GPU is a blocking .to() on the device's default stream.
#if defined(DEVPLACE_WITH_CUDA) && __has_include(<c10/cuda/CUDAStream.h>) && \
    __has_include(<ATen/cuda/CUDAEvent.h>) && __has_include(<cuda_runtime_api.h>)
#define DEVPLACE_CUDA_COPIES 1
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "exec/npy.h"
#include "exec/onnx_ops.h"
#include "graph/op_costs.h"
#include "io/onnx_import.h"
#include "exec/cpu_kernels.h"
#include "util/blas_threads.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"
#include "util/stats.h"

namespace devplace {

using exec::CpuKernels;
using exec::run_onnx_op;
using Clock = std::chrono::steady_clock;

bool cuda_available() {
  try {
    return torch::cuda::is_available();
  } catch (...) {
    return false;
  }
}

namespace {

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::uint64_t fnv1a(const std::string& s, std::uint64_t seed) {
  std::uint64_t h = 1469598103934665603ull ^ (seed * 0x9E3779B97F4A7C15ull);
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

at::ScalarType scalar_type(DType t) {
  switch (t) {
    case DType::f32:
      return at::kFloat;
    case DType::f16:
      return at::kHalf;
    case DType::bf16:
      return at::kBFloat16;
    case DType::f64:
      return at::kDouble;
    case DType::i8:
      return at::kChar;
    case DType::u8:
      return at::kByte;
    case DType::i16:
      return at::kShort;
    case DType::i32:
      return at::kInt;
    case DType::i64:
      return at::kLong;
    case DType::boolean:
      return at::kBool;
    // As onnx_scalar_type: the next wider signed type (LibTorch 1.13 has no wider unsigned ones).
    case DType::u16:
      return at::kInt;
    case DType::u32:
    case DType::u64:
      return at::kLong;
    default:
      return at::kFloat;
  }
}

std::vector<std::int64_t> dims_of(const Tensor& t) {
  std::vector<std::int64_t> d;
  for (auto x : t.shape) d.push_back(x == kUnknownDim ? 1 : x);
  return d;
}

// A graph output copied to the host as doubles (empty when it has no value).
HostTensor host_tensor(const std::string& name, const at::Tensor& v) {
  HostTensor h{name, {}, {}};
  if (!v.defined()) return h;
  const at::Tensor c = v.to(at::kCPU).to(at::kDouble).contiguous();
  h.shape.assign(c.sizes().begin(), c.sizes().end());
  h.values.assign(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
  return h;
}

std::string shape_text(const at::Tensor& v) {
  std::string out = "[";
  for (std::int64_t k = 0; k < v.dim(); ++k) out += (k ? ", " : "") + std::to_string(v.size(k));
  return out + "]";
}

struct Task {
  int op = -1;                  // an op to run, or
  int tensor = -1, src = -1;    // a tensor to copy from worker src, or
  std::function<void()> probe;  // a profiling probe

  static Task run(int op) { return {op, -1, -1, {}}; }
  static Task copy(int tensor, int src) { return {-1, tensor, src, {}}; }
};

}  // namespace

struct Executor::Impl {
  const Graph& g;
  std::vector<WorkerSpec> specs;
  ExecOptions opt;
  // Matrix products run on oneDNN, in the worker's OpenMP team; what ATen still hands to the BLAS
  // runs on the calling thread alone: a second pool whose threads spin after each call would
  // take the cores the worker's team needs (util/blas_threads.h).
  ScopedBlasThreads blas_threads{1};
  int W = 0, T = 0, N = 0;

  // Static structure.
  std::vector<std::vector<int>> ports;  // op -> tensor id per ONNX input port, -1 if omitted
  // op -> a tensor attribute the op needs at run time (ConstantOfShape's value), passed to the
  // interpreter as one more input after its ports; undefined for every other op.
  std::vector<at::Tensor> attr_input;
  // op -> its first input is a fresh tensor that no other op reads and no one keeps (not a graph
  // output, not shared with another tensor), so an element-wise op may write its result into it.
  std::vector<std::uint8_t> overwrite_input0;
  // A Pad folded into the AveragePool that alone reads it (exec::folded_pad_pads): the Pad passes
  // its input on (pad_passes) and the pool pads by folded_pads[pool] itself, wherever each is placed.
  std::vector<std::uint8_t> pad_passes;
  std::vector<std::vector<std::int64_t>> folded_pads;
  std::vector<char> folded;                        // op -> evaluated at load time
  std::vector<std::vector<int>> rt_inputs;         // op -> distinct tensors produced by runtime ops
  std::vector<std::vector<int>> rt_consumers;      // tensor -> distinct runtime consumer ops
  std::vector<at::Tensor> host_value;              // tensor -> constant or graph-input value (CPU)
  std::vector<std::vector<at::Tensor>> dev_value;  // worker -> per tensor, for cuda workers
  int runtime_ops = 0;

  // Workers.
  struct Worker {
    WorkerSpec spec;
    at::Device device{at::kCPU};
    std::thread thread;
    std::mutex m;
    std::condition_variable cv;
    std::deque<Task> queue;
    std::atomic<int> queued{0};  // queue.size(), readable without the lock (for spinning)
    bool stop = false;
    CpuKernels kernels;  // used by this worker's thread only
  };
  std::vector<std::unique_ptr<Worker>> workers;
#ifdef DEVPLACE_CUDA_COPIES
  std::vector<std::optional<c10::cuda::CUDAStream>> streams;  // per worker; cuda workers only
#endif

  // Per-run state.
  Placement placement;
  std::vector<at::Tensor> slots;                // tensor * W + worker
  std::unique_ptr<std::atomic<int>[]> pending;  // op -> inputs not yet on its worker
  std::unique_ptr<std::atomic<int>[]> uses;     // slot -> readers left
  std::vector<std::vector<int>> dests;          // tensor -> workers it is copied to
  std::atomic<int> remaining{0}, inflight{0};
  std::atomic<bool> aborted{false};
  std::exception_ptr error;
  std::mutex done_m;
  std::condition_variable done_cv;
  Clock::time_point t0, t_end;
  bool keep_all = false;                 // profiling: never free slots
  std::vector<OpSpan> op_spans;          // this run's timeline, from t0 (each op written once)
  std::vector<TransferSpan> copy_spans;  // per worker, merged after the run
  std::vector<std::vector<TransferSpan>> worker_copies;
  std::atomic<int> copies{0};
  std::atomic<std::int64_t> copied_bytes{0};
  bool any_cuda = false;
  // run_share: where outputs read in other processes go, and which ranks read each tensor.
  TensorExchange* share_x = nullptr;
  std::vector<std::vector<int>> remote_readers;
  std::mutex send_m;  // workers send concurrently; the exchange is driven by one thread at a time

  Impl(const Graph& graph, std::vector<WorkerSpec> w, ExecOptions o) : g(graph), specs(std::move(w)), opt(o) {
    W = static_cast<int>(specs.size());
    T = g.num_tensors();
    N = g.num_ops();
    if (W == 0) throw Error("", "", "the executor needs at least one worker");
    if (opt.intra_op_threads < 1) throw Error("", "", "intra-op threads must be at least 1");
    for (auto& s : specs)
      if (s.kind == WorkerSpec::Kind::cuda) {
        any_cuda = true;
        if (!cuda_available() || s.index >= static_cast<int>(torch::cuda::device_count()))
          throw Error("", "",
                      "worker " + s.str() +
                          ": LibTorch has no such CUDA device here (CPU-only build or no GPU); run on CPU "
                          "workers instead, e.g. --cluster local2 (two CPU workers), or map the cluster's "
                          "devices to cpu:N in its file (docs/design/execution.md)", ErrorKind::not_found);
      }
    if (opt.keep_freed_memory) keep_freed_memory();
    load();
    start_workers();
  }

  ~Impl() {
    for (auto& w : workers) {
      {
        std::lock_guard<std::mutex> l(w->m);
        w->stop = true;
      }
      w->cv.notify_all();
    }
    for (auto& w : workers)
      if (w->thread.joinable()) w->thread.join();
  }

  // ---- loading ----
  void load() {
    const std::string& path = g.source();
    if (path.empty() || !file_exists(path))
      throw Error(path, "", "the executor needs the graph's ONNX file (imported from an .onnx path)");
    if (path.size() < 5 || path.compare(path.size() - 5, 5, ".onnx") != 0)
      throw Error(path, "",
                  "the executor runs ONNX models only; this model can be placed and simulated, and an OpenVINO "
                  "IR placement run by OpenVINO's HETERO plugin (devplace place --export-affinity)");
    onnx::ModelProto model;
    {
      std::string bytes = read_file(path);
      if (!model.ParseFromString(bytes)) throw Error(path, "", "not a valid ONNX model", ErrorKind::corrupt);
    }
    const onnx::GraphProto& gp = model.graph();
    c10::InferenceMode guard;

    // Ports and Constant values, matched to ops by the importer's naming rule.
    ports.assign(N, {});
    attr_input.assign(N, at::Tensor());
    folded.assign(N, 0);
    host_value.assign(T, at::Tensor());
    std::vector<const onnx::NodeProto*> node_of(N, nullptr);
    std::set<std::string> taken;
    for (int i = 0; i < gp.node_size(); ++i) {
      const auto& node = gp.node(i);
      int op = g.find_op(onnx_op_name(node.name(), node.op_type(), i, taken));
      if (op < 0) throw Error(path, node.name(), "node not found in the imported graph", ErrorKind::not_found);
      node_of[op] = &node;
      for (const auto& in : node.input()) ports[op].push_back(in.empty() ? -1 : g.find_tensor(in));
      if (node.op_type() == "ConstantOfShape")
        for (const auto& a : node.attribute())
          if (a.name() == "value") attr_input[op] = exec::tensor_from_proto(a.t(), path);
    }
    for (int op = 0; op < N; ++op) {
      if (!node_of[op]) throw Error(path, g.op(op).name, "op has no node in the file", ErrorKind::corrupt);
      folded[op] = is_folded(g, g.op(op));
      const std::string& type = g.op(op).type;
      if (type == "Constant") continue;
      const auto& sup = exec::supported_onnx_ops();
      if (!std::binary_search(sup.begin(), sup.end(), type))
        throw Error(path, g.op(op).name, "op type '" + type + "' is not supported by the executor", ErrorKind::unsupported);
    }

    // Initializers: the file's data, else seeded random values.
    std::unordered_map<std::string, const onnx::TensorProto*> inits;
    for (const auto& t : gp.initializer()) inits[t.name()] = &t;
    for (int t = 0; t < T; ++t) {
      const Tensor& ts = g.tensor(t);
      if (!ts.is_constant || ts.producer >= 0) continue;
      at::Tensor v;
      auto it = inits.find(ts.name);
      if (it != inits.end()) v = exec::tensor_from_proto(*it->second, path);
      if (!v.defined())
        v = random_weight(t,
                          it != inits.end() ? exec::onnx_scalar_type(it->second->data_type()) : scalar_type(ts.dtype));
      host_value[t] = v;
    }
    // Graph inputs.
    for (int t = 0; t < T; ++t)
      if (g.tensor(t).is_graph_input) host_value[t] = random_input(t);
    // Conv weights in the layout their kernel reads (exec::prepare_conv_weight), once, not per run.
    for (int op = 0; op < N; ++op)
      if (g.op(op).type == "Conv" && !folded[op] && ports[op].size() > 1 && ports[op][0] >= 0 && ports[op][1] >= 0) {
        at::Tensor& w = host_value[ports[op][1]];
        if (w.defined() && g.tensor(ports[op][1]).consumers.size() == 1)
          w = exec::prepare_conv_weight(g.op(op), w, dims_of(g.tensor(ports[op][0])));
      }
    // Folded ops, in topological order.
    for (int op = 0; op < N; ++op) {
      if (!folded[op]) continue;
      const Op& o = g.op(op);
      std::vector<at::Tensor> outs;
      if (o.type == "Constant") {
        outs.push_back(constant_value(*node_of[op], o));
      } else {
        std::vector<at::Tensor> ins;
        for (int t : ports[op]) ins.push_back(t < 0 ? at::Tensor() : host_value[t]);
        if (attr_input[op].defined()) ins.push_back(attr_input[op]);
        outs = run_onnx_op(o, ins, path);
      }
      for (std::size_t k = 0; k < o.outputs.size(); ++k) host_value[o.outputs[k]] = outs[k];
    }

    // Runtime structure.
    rt_inputs.assign(N, {});
    rt_consumers.assign(T, {});
    runtime_ops = 0;
    for (int op = 0; op < N; ++op) {
      if (folded[op]) continue;
      ++runtime_ops;
      for (int t : ports[op]) {
        if (t < 0 || host_value[t].defined()) continue;
        if (g.tensor(t).producer < 0) throw Error(path, g.op(op).name, "input '" + g.tensor(t).name + "' has no value", ErrorKind::corrupt);
        auto& v = rt_inputs[op];
        if (std::find(v.begin(), v.end(), t) == v.end()) v.push_back(t);
      }
      for (int t : rt_inputs[op]) rt_consumers[t].push_back(op);
    }
    // Ops whose outputs never share storage with an input (views, Identity and the like do).
    static const std::set<std::string> fresh = {"Conv",
                                                "MatMul",
                                                "Gemm",
                                                "Add",
                                                "Sub",
                                                "Mul",
                                                "Div",
                                                "Relu",
                                                "Sigmoid",
                                                "Tanh",
                                                "Erf",
                                                "BatchNormalization",
                                                "Softmax",
                                                "Concat",
                                                "MaxPool",
                                                "AveragePool",
                                                "LayerNormalization",
                                                "GlobalAveragePool"};
    overwrite_input0.assign(N, 0);
    for (int op = 0; op < N; ++op) {
      if (folded[op] || ports[op].empty() || ports[op][0] < 0) continue;
      const int t = ports[op][0], producer = g.tensor(t).producer;
      if (producer < 0 || folded[producer] || !fresh.count(g.op(producer).type) || g.tensor(t).is_graph_output ||
          rt_consumers[t].size() != 1 || std::count(ports[op].begin(), ports[op].end(), t) != 1)
        continue;
      overwrite_input0[op] = 1;
    }
    pad_passes.assign(N, 0);
    folded_pads.assign(N, {});
    for (int op = 0; op < N; ++op) {
      if (folded[op] || g.op(op).type != "Pad" || g.op(op).outputs.size() != 1 || ports[op].empty() || ports[op][0] < 0)
        continue;
      const int t = g.op(op).outputs[0];
      if (g.tensor(t).is_graph_output || rt_consumers[t].size() != 1) continue;
      const int pool = rt_consumers[t][0];
      if (ports[pool].empty() || ports[pool][0] != t || std::count(ports[pool].begin(), ports[pool].end(), t) != 1)
        continue;
      std::vector<at::Tensor> constants;  // the Pad's inputs that are constant
      for (int in : ports[op]) constants.push_back(in >= 0 ? host_value[in] : at::Tensor());
      constants[0] = at::Tensor();
      std::vector<std::int64_t> pads = exec::folded_pad_pads(g.op(op), constants, g.op(pool));
      if (pads.empty()) continue;
      pad_passes[op] = 1;
      folded_pads[pool] = std::move(pads);
    }
    // Device copies of constants and inputs for cuda workers.
    dev_value.assign(W, {});
    for (int w = 0; w < W; ++w)
      if (specs[w].kind == WorkerSpec::Kind::cuda) {
        at::Device dev(at::kCUDA, static_cast<c10::DeviceIndex>(specs[w].index));
        dev_value[w].resize(T);
        for (int t = 0; t < T; ++t)
          // Standard layout on the GPU: the CPU kernels' weight layouts (exec::prepare_conv_weight) are theirs.
          if (host_value[t].defined()) dev_value[w][t] = host_value[t].to(dev).contiguous();
      }
  }

  // Fan-in from the first consumer that reads `t` as a weight.
  at::Tensor random_weight(int t, at::ScalarType st) {
    const Tensor& ts = g.tensor(t);
    std::vector<std::int64_t> dims = dims_of(ts);
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(fnv1a(ts.name, opt.seed));
    if (!at::isFloatingType(st)) return at::zeros(dims, at::TensorOptions().dtype(st));
    double std_dev = 0.02, mean = 0;
    bool ones = false, zeros = false;
    for (int c : ts.consumers) {
      const Op& op = g.op(c);
      int port = -1;
      for (std::size_t k = 0; k < ports[c].size(); ++k)
        if (ports[c][k] == t) port = static_cast<int>(k);
      if (port < 0) continue;
      const std::string& type = op.type;
      auto numel_from = [&](std::size_t first) {
        double f = 1;
        for (std::size_t k = first; k < dims.size(); ++k) f *= static_cast<double>(dims[k]);
        return std::max(1.0, f);
      };
      if (type == "Conv" && port == 1)
        std_dev = std::sqrt(2.0 / numel_from(1));
      else if (type == "MatMul" && dims.size() >= 2)
        std_dev = std::sqrt(1.0 / dims[dims.size() - (port == 1 ? 2 : 1)]);
      else if (type == "Gemm" && port == 1 && dims.size() == 2)
        std_dev = std::sqrt(1.0 / dims[op.attr_int("transB", 0) ? 1 : 0]);
      else if ((type == "LayerNormalization" || type == "BatchNormalization") && port == 1)
        ones = true;
      else if (type == "BatchNormalization" && port == 4)
        ones = true;
      else if (type == "BatchNormalization" && port == 3)
        zeros = true;
      else if (type == "Gather" && port == 0)
        std_dev = 1.0;
      break;
    }
    at::TensorOptions o = at::TensorOptions().dtype(at::kFloat);
    at::Tensor v = ones ? at::ones(dims, o) : zeros ? at::zeros(dims, o) : at::randn(dims, gen, o) * std_dev + mean;
    return v.to(st);
  }

  at::Tensor random_input(int t) {
    const Tensor& ts = g.tensor(t);
    std::vector<std::int64_t> dims = dims_of(ts);
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(fnv1a("input:" + ts.name, opt.seed));
    const at::ScalarType st = scalar_type(ts.dtype);
    if (st == at::kBool) return at::ones(dims, at::TensorOptions().dtype(st));
    if (at::isFloatingType(st)) return at::randn(dims, gen, at::TensorOptions().dtype(at::kFloat)).to(st);
    // Integers index something: stay below the smallest table they are gathered from.
    std::int64_t bound = 0;
    for (int c : ts.consumers) {
      const Op& op = g.op(c);
      if (op.type != "Gather" || ports[c].size() < 2 || ports[c][1] != t) continue;
      const Tensor& data = g.tensor(ports[c][0]);
      std::int64_t axis = op.attr_int("axis", 0);
      if (axis < 0) axis += static_cast<std::int64_t>(data.shape.size());
      if (axis >= 0 && axis < static_cast<std::int64_t>(data.shape.size()) && data.shape[axis] > 0)
        bound = bound ? std::min(bound, data.shape[axis]) : data.shape[axis];
    }
    if (bound <= 0) bound = 2;
    return at::randint(0, bound, dims, gen, at::TensorOptions().dtype(st));
  }

  at::Tensor constant_value(const onnx::NodeProto& node, const Op& o) {
    for (const auto& a : node.attribute()) {
      if (a.name() == "value") {
        at::Tensor v = exec::tensor_from_proto(a.t(), g.source());
        if (!v.defined()) throw Error(g.source(), o.name, "Constant has no data (stripped?)", ErrorKind::corrupt);
        return v;
      }
      if (a.name() == "value_float") return at::scalar_tensor(a.f(), at::kFloat);
      if (a.name() == "value_int") return at::scalar_tensor(a.i(), at::kLong);
      if (a.name() == "value_floats") {
        std::vector<float> v(a.floats().begin(), a.floats().end());
        return at::tensor(v, at::kFloat);
      }
      if (a.name() == "value_ints") {
        std::vector<std::int64_t> v(a.ints().begin(), a.ints().end());
        return at::tensor(v, at::kLong);
      }
    }
    throw Error(g.source(), o.name, "Constant without a supported value attribute");
  }

  // ExecOptions::keep_freed_memory: as a runtime's caching allocator does. Only ever raises what is kept.
  static void keep_freed_memory() {
#ifdef __GLIBC__
    static const bool done = [] {
      mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest: blocks below it come from the arenas
      mallopt(M_TRIM_THRESHOLD, 1 << 30);   // and stay there
      return true;
    }();
    (void)done;
#endif
  }

  // ---- workers ----
  void start_workers() {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    std::vector<int> cores;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &allowed)) cores.push_back(c);
    for (int w = 0; w < W; ++w) {
      auto wk = std::make_unique<Worker>();
      wk->spec = specs[w];
      if (specs[w].kind == WorkerSpec::Kind::cuda)
        wk->device = at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(specs[w].index));
      workers.push_back(std::move(wk));
    }
#ifdef DEVPLACE_CUDA_COPIES
    streams.assign(W, std::nullopt);
    for (int w = 0; w < W; ++w)
      if (specs[w].kind == WorkerSpec::Kind::cuda)
        streams[w] = c10::cuda::getStreamFromPool(false, static_cast<c10::DeviceIndex>(specs[w].index));
#endif
    for (int w = 0; w < W; ++w) {
      std::vector<int> mine;
      if (specs[w].kind == WorkerSpec::Kind::cpu && opt.pin_threads && !cores.empty())
        for (int k = 0; k < opt.intra_op_threads; ++k)
          mine.push_back(cores[(specs[w].index * opt.intra_op_threads + k) % cores.size()]);
      workers[w]->thread = std::thread([this, w, mine] { worker_main(w, mine); });
    }
  }

  void worker_main(int w, std::vector<int> cores) {
    if (!cores.empty()) {
      cpu_set_t set;
      CPU_ZERO(&set);
      for (int c : cores) CPU_SET(c, &set);
      if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
        log::warn("exec.pin", "could not pin worker " + specs[w].str() + " to its cores; running unpinned");
    }
    at::set_num_threads(opt.intra_op_threads);
    at::globalContext().setFlushDenormal(true);  // random weights must not slow down in denormals
    c10::InferenceMode guard;
#ifdef DEVPLACE_CUDA_COPIES
    // Every kernel and copy this thread launches goes to its worker's own stream.
    std::optional<c10::cuda::CUDAStreamGuard> on_stream;
    if (streams[w]) on_stream.emplace(*streams[w]);
#endif
    Worker& wk = *workers[w];
    for (;;) {
      Task task;
      // Spin a little before sleeping: waking a sleeping thread (an idle vCPU, on a VM) costs
      // far more than a copy, and a dedicated core has nothing better to do.
      if (wk.queued.load(std::memory_order_acquire) == 0 && opt.spin_us > 0) {
        const auto until = Clock::now() + std::chrono::microseconds(opt.spin_us);
        while (wk.queued.load(std::memory_order_acquire) == 0 && Clock::now() < until) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        }
      }
      {
        std::unique_lock<std::mutex> l(wk.m);
        wk.cv.wait(l, [&] { return wk.stop || !wk.queue.empty(); });
        if (wk.queue.empty()) return;
        task = std::move(wk.queue.front());
        wk.queue.pop_front();
        wk.queued.fetch_sub(1, std::memory_order_relaxed);
      }
      if (!aborted.load(std::memory_order_relaxed)) {
        try {
          if (task.probe)
            task.probe();
          else if (task.op >= 0)
            run_op(w, task.op);
          else
            copy(w, task.tensor, task.src);
        } catch (...) {
          std::lock_guard<std::mutex> l(done_m);
          if (!error) error = std::current_exception();
          aborted = true;
        }
      }
      if (inflight.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> l(done_m);
        done_cv.notify_all();
      }
    }
  }

  void push(int w, Task t) {
    inflight.fetch_add(1);
    Worker& wk = *workers[w];
    {
      std::lock_guard<std::mutex> l(wk.m);
      wk.queue.push_back(std::move(t));
      wk.queued.fetch_add(1, std::memory_order_release);
    }
    wk.cv.notify_one();
  }

  const at::Tensor& value(int t, int w) const {
    if (host_value[t].defined()) return specs[w].kind == WorkerSpec::Kind::cuda ? dev_value[w][t] : host_value[t];
    return slots[static_cast<std::size_t>(t) * W + w];
  }

  void release(int t, int w) {
    const std::size_t s = static_cast<std::size_t>(t) * W + w;
    if (uses[s].fetch_sub(1) == 1 && !keep_all) slots[s] = at::Tensor();
  }

  // `t` is now on worker w: count it for the consumers placed there.
  void arrived(int t, int w) {
    for (int c : rt_consumers[t])
      if (placement[c] == w && pending[c].fetch_sub(1) == 1) push(w, Task::run(c));
  }

  void run_op(int w, int op) {
    const Op& o = g.op(op);
    const auto start = Clock::now();
    std::vector<at::Tensor> ins;
    ins.reserve(ports[op].size());
    std::uint64_t constant_inputs = 0;  // weights: the graph's initializers and what folds from them
    for (int t : ports[op]) {
      if (t < 0) {
        ins.emplace_back();
        continue;
      }
      if (host_value[t].defined() && !g.tensor(t).is_graph_input && ins.size() < 64)
        constant_inputs |= std::uint64_t{1} << ins.size();
      const at::Tensor& v = value(t, w);
      if (!v.defined())
        throw Error(g.source(), o.name, "internal: input '" + g.tensor(t).name + "' is not on its worker");
      ins.push_back(v);
    }
    if (attr_input[op].defined()) ins.push_back(attr_input[op]);
    // Profiling keeps every tensor for timing copies afterwards: nothing is overwritten then.
    exec::OpContext context;
    context.overwrite_input0 = overwrite_input0[op] != 0 && !keep_all;
    context.kernels = &workers[w]->kernels;
    context.constant_inputs = constant_inputs;
    context.folded_pads = folded_pads[op];
    std::vector<at::Tensor> outs =
        pad_passes[op] ? std::vector<at::Tensor>{ins[0]} : run_onnx_op(o, ins, g.source(), context);
    ins.clear();
    const auto end = Clock::now();
    op_spans[op] = {seconds_between(t0, start), seconds_between(t0, end), w};
    for (std::size_t k = 0; k < o.outputs.size(); ++k)
      slots[static_cast<std::size_t>(o.outputs[k]) * W + w] = std::move(outs[k]);
    for (int t : rt_inputs[op]) release(t, w);
    if (share_x)
      for (int t : o.outputs)
        for (int r : remote_readers[t]) {
          TensorMessage m = to_message(slots[static_cast<std::size_t>(t) * W + w]);
          std::lock_guard<std::mutex> l(send_m);
          share_x->send(r, t, std::move(m));
        }
    for (int t : o.outputs) {
      arrived(t, w);
      for (int d : dests[t]) {
#ifdef DEVPLACE_CUDA_COPIES
        if (streams[w]) {
          send_from_device(w, t, d);
          continue;
        }
#endif
        push(d, Task::copy(t, w));
      }
    }
    if (remaining.fetch_sub(1) == 1) {
      synchronize_devices();
      t_end = Clock::now();
    }
  }

  // The end of a run: every cuda worker's stream has run what it was given.
  void synchronize_devices() {
    if (!any_cuda) return;
#ifdef DEVPLACE_CUDA_COPIES
    for (const auto& s : streams)
      if (s) s->synchronize();
#else
    torch::cuda::synchronize();
#endif
  }

#ifdef DEVPLACE_CUDA_COPIES
  using Event = std::shared_ptr<at::cuda::CUDAEvent>;

  // `t`, just launched on cuda worker w, goes to worker d. To a cpu worker: a non-blocking copy
  // into pinned host memory right behind its producer on w's stream, and an event the reader
  // waits for (not the device: kernels launched later run on). To another cuda worker: an event
  // after the producer, which d's stream waits on before its own copy.
  void send_from_device(int w, int t, int d) {
    const std::size_t s = static_cast<std::size_t>(t) * W + w;
    const at::Tensor v = slots[s];
    const auto start = Clock::now();
    Event ready = std::make_shared<at::cuda::CUDAEvent>();
    at::Tensor out = v;
    if (specs[d].kind == WorkerSpec::Kind::cpu) {
      out = at::empty(v.sizes(), v.options().device(at::kCPU).pinned_memory(true));
      out.copy_(v, /*non_blocking=*/true);
      ready->record(*streams[w]);
      release(t, w);  // stream-ordered: the block is not reused before the copy on this stream
    } else {
      ready->record(*streams[w]);
    }
    push(d, receive_task(d, t, w, out, ready, start));
  }

  Task receive_task(int d, int t, int w, at::Tensor v, Event ready, Clock::time_point start) {
    return Task{-1, -1, -1, [this, d, t, w, v, ready, start] { receive_from_device(d, t, w, v, ready, start); }};
  }

  // On worker d: `t` from cuda worker w. A cpu worker waits only for this tensor's event, and
  // lets its other ready tasks go first while the copy is still running.
  void receive_from_device(int d, int t, int w, const at::Tensor& v, const Event& ready, Clock::time_point start) {
    at::Tensor here;
    if (specs[d].kind == WorkerSpec::Kind::cpu) {
      if (!ready->query()) {
        if (workers[d]->queued.load(std::memory_order_acquire) > 0) {
          push(d, receive_task(d, t, w, v, ready, start));
          return;
        }
        ready->synchronize();
      }
      here = v;
    } else {
      ready->block(*streams[d]);
      here = v.to(workers[d]->device, /*non_blocking=*/true);
      // The source block is freed into w's stream's pool: it must wait for d's copy too.
      c10::cuda::CUDACachingAllocator::recordStream(v.storage().data_ptr(), *streams[d]);
      release(t, w);
    }
    copied(d, t, w, std::move(here), start);
  }
#endif

  at::Tensor copy_to(const at::Tensor& v, int w) const {
    const at::Device dev = workers[w]->device;
    if (v.device() == dev) return v.clone();
#ifdef DEVPLACE_CUDA_COPIES
    if (dev.is_cuda() && v.device().is_cpu()) {
      // Staged in pinned memory, then copied on this worker's stream without blocking: the
      // thread goes on launching while the copy runs (the staging block is not reused before it ends).
      at::Tensor pinned = at::empty(v.sizes(), v.options().pinned_memory(true));
      pinned.copy_(v);
      return pinned.to(dev, /*non_blocking=*/true);
    }
#endif
    return v.to(dev);
  }

  void copy(int w, int t, int src) {
    const std::size_t s = static_cast<std::size_t>(t) * W + src;
    const auto start = Clock::now();
    at::Tensor out = copy_to(slots[s], w);
    release(t, src);
    copied(w, t, src, std::move(out), start);
  }

  // `value` is `t`'s copy from worker src, now on worker w (copy started at `start`): its span, the
  // run's counts, its slot; then its consumers there.
  void copied(int w, int t, int src, at::Tensor value, Clock::time_point start) {
    worker_copies[w].push_back({t, src, w, seconds_between(t0, start), seconds_between(t0, Clock::now())});
    copies.fetch_add(1);
    copied_bytes.fetch_add(static_cast<std::int64_t>(value.numel() * value.element_size()));
    slots[static_cast<std::size_t>(t) * W + w] = std::move(value);
    arrived(t, w);
  }

  // The state of one run (run, run_share), empty: value slots, counts, copies, the timeline.
  void reset_run_state() {
    slots.assign(static_cast<std::size_t>(T) * W, at::Tensor());
    pending.reset(new std::atomic<int>[N]);
    uses.reset(new std::atomic<int>[static_cast<std::size_t>(T) * W]);
    for (std::size_t s = 0; s < static_cast<std::size_t>(T) * W; ++s) uses[s] = 0;
    dests.assign(T, {});
    inflight = 0;
    aborted = false;
    error = nullptr;
    copies = 0;
    copied_bytes = 0;
    op_spans.assign(N, OpSpan{});
    worker_copies.assign(W, {});
  }

  // ---- one run ----
  RunStats run(const Placement& p) {
    if (static_cast<int>(p.size()) != N)
      throw Error(g.source(), "",
                  "placement has " + std::to_string(p.size()) + " entries for " + std::to_string(N) + " ops");
    for (int i = 0; i < N; ++i)
      if (p[i] < 0 || p[i] >= W)
        throw Error(g.source(), g.op(i).name, "placed on worker " + std::to_string(p[i]) + " of " + std::to_string(W));
    placement = p;
    reset_run_state();
    for (int op = 0; op < N; ++op) {
      pending[op] = static_cast<int>(rt_inputs[op].size());
      if (folded[op]) continue;
      for (int t : g.op(op).outputs) {
        const int pw = p[op];
        for (int c : rt_consumers[t]) {
          uses[static_cast<std::size_t>(t) * W + p[c]] += 1;
          if (p[c] != pw && std::find(dests[t].begin(), dests[t].end(), p[c]) == dests[t].end())
            dests[t].push_back(p[c]);
        }
        uses[static_cast<std::size_t>(t) * W + pw] +=
            static_cast<int>(dests[t].size()) + (g.tensor(t).is_graph_output ? 1 : 0);
      }
    }
    remaining = runtime_ops;
    // Collect the ready ops before pushing any: once pushed, workers decrement pending[].
    std::vector<int> ready;
    for (int op = 0; op < N; ++op)
      if (!folded[op] && pending[op] == 0) ready.push_back(op);
    t0 = Clock::now();
    t_end = t0;
    for (int op : ready) push(p[op], Task::run(op));
    {
      std::unique_lock<std::mutex> l(done_m);
      done_cv.wait(l, [&] { return inflight.load() == 0; });
    }
    if (error) std::rethrow_exception(error);
    if (remaining.load() != 0) throw Error(g.source(), "", "internal: the scheduler stalled with ops left");
    copy_spans.clear();
    for (auto& c : worker_copies) copy_spans.insert(copy_spans.end(), c.begin(), c.end());
    std::sort(copy_spans.begin(), copy_spans.end(),
              [](const TransferSpan& a, const TransferSpan& b) { return a.start < b.start; });
    return {seconds_between(t0, t_end), copies.load(), copied_bytes.load()};
  }

  Schedule timeline() const {
    Schedule s;
    s.makespan = seconds_between(t0, t_end);
    s.ops = op_spans;
    for (int op = 0; op < N && op < static_cast<int>(s.ops.size()); ++op)
      if (folded[op]) s.ops[op] = {0.0, 0.0, placement.empty() ? 0 : placement[op]};
    s.transfers = copy_spans;
    s.busy.assign(W, 0.0);
    for (const OpSpan& o : s.ops)
      if (o.device >= 0) s.busy[o.device] += o.end - o.start;
    s.peak_memory.assign(W, 0);
    s.overflow.assign(W, 0);
    return s;
  }

  std::vector<HostTensor> outputs() const {
    std::vector<HostTensor> out;
    for (int t = 0; t < T; ++t) {
      const Tensor& ts = g.tensor(t);
      if (!ts.is_graph_output) continue;
      at::Tensor v = host_value[t];
      if (!v.defined() && ts.producer >= 0 && !placement.empty())
        v = slots[static_cast<std::size_t>(t) * W + placement[ts.producer]];
      out.push_back(host_tensor(ts.name, v));
    }
    return out;
  }

  // ---- a share of a run across processes ----
  static TensorMessage to_message(const at::Tensor& v) {
    TensorMessage m;
    m.channels_last = v.dim() == 4 && !v.is_contiguous() && v.is_contiguous(at::MemoryFormat::ChannelsLast);
    const at::Tensor c =
        v.to(at::kCPU).contiguous(m.channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous);
    m.dtype = static_cast<std::int64_t>(c.scalar_type());
    m.shape.assign(c.sizes().begin(), c.sizes().end());
    const auto* p = static_cast<const std::uint8_t*>(c.data_ptr());
    m.bytes.assign(p, p + c.numel() * c.element_size());
    return m;
  }

  at::Tensor from_message(const TensorMessage& m, int t) const {
    at::Tensor v = at::empty(
        m.shape, at::TensorOptions()
                     .dtype(static_cast<at::ScalarType>(m.dtype))
                     .memory_format(m.channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous));
    if (static_cast<std::size_t>(v.numel() * v.element_size()) != m.bytes.size())
      throw Error(g.source(), g.tensor(t).name, "a received tensor's bytes do not match its shape");
    std::memcpy(v.data_ptr(), m.bytes.data(), m.bytes.size());
    return v;
  }

  // The worker scheduler of run() over this process's ops only: the tensors made elsewhere are
  // received per sending process in the order it sent them (so a tensor that arrived is never
  // held up behind one that has not); an output read elsewhere is sent by the worker that made
  // it, without waiting.
  std::vector<HostTensor> run_share(const Placement& p, const std::vector<int>& device_rank, int rank,
                                    TensorExchange& x, double* seconds) {
    if (static_cast<int>(p.size()) != N)
      throw Error(g.source(), "",
                  "placement has " + std::to_string(p.size()) + " entries for " + std::to_string(N) + " ops");
    std::vector<int> local(device_rank.size(), -1);  // device -> this process's worker
    int hosted = 0;
    for (std::size_t d = 0; d < device_rank.size(); ++d)
      if (device_rank[d] == rank) local[d] = hosted++;
    if (hosted > W)
      throw Error(g.source(), "",
                  "rank " + std::to_string(rank) + " hosts " + std::to_string(hosted) + " devices but has " +
                      std::to_string(W) + " workers");
    auto rank_of = [&](int op) {
      if (p[op] < 0 || p[op] >= static_cast<int>(device_rank.size()))
        throw Error(g.source(), g.op(op).name,
                    "placed on device " + std::to_string(p[op]) + ", which no process hosts");
      return device_rank[p[op]];
    };
    placement.assign(N, -1);  // -1: runs in another process
    for (int op = 0; op < N; ++op)
      if (rank_of(op) == rank && !folded[op]) placement[op] = local[p[op]];
    reset_run_state();
    remote_readers.assign(T, {});
    std::vector<std::vector<int>> readers_here(T);  // tensor made elsewhere -> workers here that read it
    std::vector<int> incoming;
    int local_ops = 0;
    for (int op = 0; op < N; ++op) {
      if (folded[op]) continue;
      pending[op] = static_cast<int>(rt_inputs[op].size());
      const int pw = placement[op];
      local_ops += pw >= 0 ? 1 : 0;
      for (int t : g.op(op).outputs) {
        std::vector<int>& to = pw >= 0 ? dests[t] : readers_here[t];
        for (int c : rt_consumers[t]) {
          const int cw = placement[c];
          if (cw >= 0 && cw != pw && std::find(to.begin(), to.end(), cw) == to.end()) to.push_back(cw);
          if (pw >= 0 && cw < 0) remote_readers[t].push_back(rank_of(c));
        }
        if (pw >= 0 && g.tensor(t).is_graph_output && rank != 0) remote_readers[t].push_back(0);
        std::sort(remote_readers[t].begin(), remote_readers[t].end());
        remote_readers[t].erase(std::unique(remote_readers[t].begin(), remote_readers[t].end()),
                                remote_readers[t].end());
        if (pw < 0 && (!readers_here[t].empty() || (g.tensor(t).is_graph_output && rank == 0))) incoming.push_back(t);
      }
    }
    remaining = local_ops;
    keep_all = true;  // outputs stay readable for sending and for rank 0's result
    share_x = &x;
    std::vector<int> ready;
    for (int op = 0; op < N; ++op)
      if (placement[op] >= 0 && pending[op] == 0) ready.push_back(op);
    c10::InferenceMode guard;
    t0 = Clock::now();
    t_end = t0;
    for (int op : ready) push(placement[op], Task::run(op));
    // One receiver per process that sends here, each taking that process's tensors in the
    // order they were sent (the calling thread when there is one such process).
    std::vector<at::Tensor> received(T);
    std::map<int, int> expected;  // source rank -> tensors it sends here
    for (int t : incoming) ++expected[rank_of(g.tensor(t).producer)];
    std::vector<char> got(T, 0);
    std::mutex receive_m;
    std::exception_ptr receive_error;
    auto receive_from = [&](int source, int count) {
      try {
        for (int k = 0; k < count && !aborted.load(); ++k) {
          auto [t, m] = x.recv_next(source);
          const bool wanted = t >= 0 && t < T && g.tensor(t).producer >= 0 &&
                              (!readers_here[t].empty() || (g.tensor(t).is_graph_output && rank == 0));
          if (!wanted || rank_of(g.tensor(t).producer) != source || got[t])
            throw Error("rank " + std::to_string(source), "", "sent a tensor this process did not expect");
          got[t] = 1;
          received[t] = from_message(m, t);
          for (int w : readers_here[t]) {
            slots[static_cast<std::size_t>(t) * W + w] =
                specs[w].kind == WorkerSpec::Kind::cuda ? received[t].to(workers[w]->device) : received[t];
            arrived(t, w);
          }
        }
      } catch (...) {
        std::lock_guard<std::mutex> l(receive_m);
        if (!receive_error) receive_error = std::current_exception();
        aborted = true;
      }
    };
    std::vector<std::thread> receivers;
    for (auto it = expected.begin(); it != expected.end(); ++it)
      if (std::next(it) != expected.end()) receivers.emplace_back(receive_from, it->first, it->second);
    if (!expected.empty()) receive_from(expected.rbegin()->first, expected.rbegin()->second);
    for (auto& r : receivers) r.join();
    {
      std::unique_lock<std::mutex> l(done_m);
      done_cv.wait(l, [&] { return inflight.load() == 0; });
    }
    share_x = nullptr;
    keep_all = false;
    if (receive_error) std::rethrow_exception(receive_error);
    if (error) std::rethrow_exception(error);
    if (remaining.load() != 0) throw Error(g.source(), "", "internal: the scheduler stalled with ops left");
    std::vector<HostTensor> out;
    if (rank == 0)
      for (int t = 0; t < T; ++t) {
        const Tensor& ts = g.tensor(t);
        if (!ts.is_graph_output) continue;
        at::Tensor v = host_value[t];
        if (!v.defined()) v = received[t];
        if (!v.defined()) v = slots[static_cast<std::size_t>(t) * W + placement[ts.producer]];
        out.push_back(host_tensor(ts.name, v));
      }
    x.flush();
    if (seconds) *seconds = seconds_between(t0, Clock::now());
    return out;
  }

  Profile profile(int w, int to, int warmup, int runs) {
    if (w < 0 || w >= W) throw Error("", "", "no worker #" + std::to_string(w));
    Placement p(N, w);
    Profile prof;
    std::vector<std::vector<double>> samples(N);
    // Op times from runs as run() makes them (tensors released after their last reader, element-
    // wise ops in place): keeping every tensor alive changes them, e.g. glibc then spreads a
    // second worker's activations over fresh heaps that it maps and unmaps every run.
    for (int r = 0; r < warmup + runs; ++r) {
      run(p);
      if (r < warmup) continue;
      for (int op = 0; op < N; ++op) samples[op].push_back(op_spans[op].end - op_spans[op].start);
    }
    // One more run that keeps every tensor, for the copies below.
    const bool copies_wanted = to >= 0 && to < W && to != w;
    if (copies_wanted) {
      keep_all = true;
      try {
        run(p);
      } catch (...) {
        keep_all = false;
        throw;
      }
      keep_all = false;
    }
    prof.op_seconds.assign(N, 0.0);
    for (int op = 0; op < N; ++op) prof.op_seconds[op] = folded[op] ? 0.0 : median(samples[op]);
    prof.copy_seconds.assign(T, -1.0);
    if (!copies_wanted) return prof;
    // Each produced tensor that some op reads: the copy as the scheduler does it, timed from the
    // push on this thread to the end of the copy on the (idle) destination worker.
    for (int t = 0; t < T; ++t) {
      const at::Tensor& v = slots[static_cast<std::size_t>(t) * W + w];
      if (!v.defined() || rt_consumers[t].empty()) continue;
      std::vector<double> s;
      for (int r = 0; r < std::max(runs, 3); ++r) {
        Clock::time_point end;
        const auto start = Clock::now();
        push(to, Task{-1, -1, -1, [&, t] {
                        at::Tensor c = copy_to(slots[static_cast<std::size_t>(t) * W + w], to);
                        if (any_cuda) torch::cuda::synchronize();  // from an idle device, as a whole
                        end = Clock::now();
                      }});
        std::unique_lock<std::mutex> l(done_m);
        done_cv.wait(l, [&] { return inflight.load() == 0; });
        if (error) std::rethrow_exception(error);
        s.push_back(seconds_between(start, end));
      }
      prof.copy_seconds[t] = median(s);
    }
    return prof;
  }
};

void Executor::set_input(const std::string& name, const std::string& path) {
  Impl& m = *impl_;
  const int t = m.g.find_tensor(name);
  if (t < 0 || !m.g.tensor(t).is_graph_input) {
    std::string inputs;
    for (int k = 0; k < m.g.num_tensors(); ++k)
      if (m.g.tensor(k).is_graph_input) inputs += (inputs.empty() ? "" : ", ") + m.g.tensor(k).name;
    throw Error(path, name, "the model has no such input (its inputs: " + inputs + ")", ErrorKind::not_found);
  }
  at::Tensor v;
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".pb") == 0) {
    onnx::TensorProto proto;
    const std::string bytes = read_file(path);
    if (!proto.ParseFromString(bytes)) throw Error(path, name, "not an ONNX TensorProto");
    v = exec::tensor_from_proto(proto, path);
    if (!v.defined()) throw Error(path, name, "the tensor has no data", ErrorKind::corrupt);
  } else {
    v = exec::read_npy(path);
  }
  const at::Tensor& now = m.host_value[t];
  if (v.sizes() != now.sizes() || v.scalar_type() != now.scalar_type())
    throw Error(path, name,
                "has shape " + shape_text(v) + " of " + at::toString(v.scalar_type()) + "; the model's input is " +
                    shape_text(now) + " of " + at::toString(now.scalar_type()) + " (bind another shape with --input)");
  m.host_value[t] = v.contiguous();
  for (int w = 0; w < m.W; ++w)
    if (m.specs[w].kind == WorkerSpec::Kind::cuda) m.dev_value[w][t] = m.host_value[t].to(m.workers[w]->device);
}

namespace {

// DIR/<name>.npy for a tensor name ('/' and ':' become '_').
std::string npy_path(const std::string& dir, const std::string& name) {
  std::string file = name;
  for (char& c : file)
    if (c == '/' || c == ':') c = '_';
  return (std::filesystem::path(dir) / (file + ".npy")).string();
}

}  // namespace

std::vector<std::string> Executor::write_inputs(const std::string& dir) const {
  const Impl& m = *impl_;
  std::filesystem::create_directories(dir);
  std::vector<std::string> paths;
  for (int t = 0; t < m.T; ++t)
    if (m.g.tensor(t).is_graph_input) {
      paths.push_back(npy_path(dir, m.g.tensor(t).name));
      exec::write_npy(paths.back(), m.host_value[t]);
    }
  return paths;
}

void Executor::write_model(const std::string& path) const {
  const Impl& m = *impl_;
  onnx::ModelProto model;
  if (!model.ParseFromString(read_file(m.g.source()))) throw Error(m.g.source(), "", "not a valid ONNX model", ErrorKind::corrupt);
  for (auto& init : *model.mutable_graph()->mutable_initializer()) {
    const int t = m.g.find_tensor(init.name());
    if (t < 0 || !m.host_value[t].defined()) continue;  // not used by the graph
    const at::Tensor v = m.host_value[t].to(at::kCPU).contiguous();
    init.clear_float_data(), init.clear_int32_data(), init.clear_int64_data(), init.clear_double_data();
    init.clear_external_data();
    init.set_data_location(onnx::TensorProto::DEFAULT);
    init.set_raw_data(std::string(static_cast<const char*>(v.data_ptr()), v.nbytes()));
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) throw Error(path, "", "the filled model does not fit in one protobuf (2 GiB)");
  write_file_atomic(path, bytes);
}

std::vector<std::string> Executor::write_outputs(const std::string& dir) const {
  const Impl& m = *impl_;
  std::filesystem::create_directories(dir);
  std::vector<std::string> paths;
  for (int t = 0; t < m.T; ++t) {
    const Tensor& ts = m.g.tensor(t);
    if (!ts.is_graph_output) continue;
    at::Tensor v = m.host_value[t];
    if (!v.defined() && ts.producer >= 0 && !m.placement.empty() && m.placement[ts.producer] >= 0)
      v = m.slots[static_cast<std::size_t>(t) * m.W + m.placement[ts.producer]];
    if (!v.defined()) throw Error(m.g.source(), ts.name, "no value: run the model first");
    paths.push_back(npy_path(dir, ts.name));
    exec::write_npy(paths.back(), v);
  }
  return paths;
}

Executor::Executor(const Graph& graph, std::vector<WorkerSpec> workers, ExecOptions options)
    : impl_(std::make_unique<Impl>(graph, std::move(workers), options)) {}
Executor::~Executor() = default;
int Executor::num_workers() const { return impl_->W; }
const std::vector<WorkerSpec>& Executor::workers() const { return impl_->specs; }

const char* Executor::cpu_kernels() { return CpuKernels::library(); }

const char* Executor::gpu_copies() {
#ifdef DEVPLACE_CUDA_COPIES
  return "async";
#else
  return "blocking";
#endif
}
RunStats Executor::run(const Placement& placement) { return impl_->run(placement); }
std::vector<HostTensor> Executor::outputs() const { return impl_->outputs(); }
Schedule Executor::timeline() const { return impl_->timeline(); }
Profile Executor::profile(int worker, int to_worker, int warmup, int runs) {
  return impl_->profile(worker, to_worker, warmup, runs);
}
std::vector<HostTensor> Executor::run_share(const Placement& placement, const std::vector<int>& device_rank, int rank,
                                            TensorExchange& exchange, double* seconds) {
  return impl_->run_share(placement, device_rank, rank, exchange, seconds);
}

}  // namespace devplace
