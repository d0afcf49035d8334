// The Python module devplace._devplace: the public API (include/devplace/devplace.h) through
// pybind11, plus the simulator's full schedule and the placement writers. The package
// python/devplace wraps it (docstrings there and here; types in _devplace.pyi).
// Long calls release the GIL; training calls back into Python with it held, and a pending
// signal (Ctrl-C) raised there ends training with KeyboardInterrupt.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <random>

#include "cost/cost_model.h"
#include "devplace/devplace.h"
#include "exec/profiler.h"
#include "io/placement_export.h"
#include "learn/representation/coarsen.h"
#include "learn/representation/features.h"
#include "learn/learned/schedule_env.h"
#include "report/trace.h"
#include "sim/simulator.h"
#include "util/files.h"

namespace py = pybind11;
using namespace devplace;

namespace {

Objective objective_of(const std::string& name) {
  if (name == "sim" || name == "simulator") return Objective::simulator;
  if (name == "tarnawski") return Objective::tarnawski;
  throw Error("", "", "unknown objective '" + name + "' (sim or tarnawski)", ErrorKind::not_found);
}

// The simulated schedule as Python values: records per op and per transfer, and columns.
py::dict schedule_dict(const Workload& w, const Schedule& s) {
  const auto ops = w.op_names();
  const auto devices = w.device_names();
  py::list op_records, transfer_records;
  const auto n = static_cast<py::ssize_t>(s.ops.size());
  py::array_t<double> start(n), end(n);
  py::array_t<int> device(n);
  auto st = start.mutable_unchecked<1>(), en = end.mutable_unchecked<1>();
  auto dv = device.mutable_unchecked<1>();
  for (py::ssize_t i = 0; i < n; ++i) {
    const OpSpan& o = s.ops[static_cast<std::size_t>(i)];
    st(i) = o.start, en(i) = o.end, dv(i) = o.device;
    py::dict r;
    r["op"] = ops[static_cast<std::size_t>(i)];
    r["device"] = o.device >= 0 ? py::cast(devices[static_cast<std::size_t>(o.device)]) : py::none();
    r["start"] = o.start, r["end"] = o.end;
    op_records.append(r);
  }
  for (const TransferSpan& t : s.transfers) {
    py::dict r;
    r["tensor"] = w.problem().graph().tensor(t.tensor).name;
    r["from"] = devices[static_cast<std::size_t>(t.src)];
    r["to"] = devices[static_cast<std::size_t>(t.dst)];
    r["start"] = t.start, r["end"] = t.end;
    transfer_records.append(r);
  }
  py::dict busy, memory;
  for (std::size_t d = 0; d < devices.size(); ++d) {
    busy[py::str(devices[d])] = d < s.busy.size() ? s.busy[d] : 0.0;
    memory[py::str(devices[d])] = d < s.peak_memory.size() ? s.peak_memory[d] : 0;
  }
  py::dict out;
  out["makespan"] = s.makespan;
  out["feasible"] = s.feasible;
  out["busy"] = busy;
  out["peak_memory"] = memory;
  out["ops"] = op_records;
  out["transfers"] = transfer_records;
  py::dict columns;
  columns["op"] = ops, columns["device"] = device, columns["start"] = start, columns["end"] = end;
  out["columns"] = columns;
  return out;
}

// A numpy array that owns `values` (moved, not copied), shaped `shape` (one dimension by default).
template <class T>
py::array_t<T> owned_array(std::vector<T> values, std::vector<py::ssize_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<py::ssize_t>(values.size())};
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, owned->data(), free_when_done);
}

}  // namespace

PYBIND11_MODULE(_devplace, m) {
  m.doc() = "devplace's C++ library (use the devplace package, which documents every call)";
  // devplace.Error (a ValueError: bad input) with the library's parts as attributes, and one
  // subclass per ErrorKind, so callers can tell a missing file from a corrupt one.
  static py::exception<Error> error(m, "Error", PyExc_ValueError);
  static std::map<ErrorKind, py::object> kinds;
  for (const auto& [kind, name] : std::vector<std::pair<ErrorKind, const char*>>{
           {ErrorKind::invalid_argument, "InvalidArgumentError"},
           {ErrorKind::not_found, "NotFoundError"},
           {ErrorKind::corrupt, "CorruptError"},
           {ErrorKind::unsupported, "UnsupportedError"},
           {ErrorKind::io, "FileIOError"}}) {
    const std::string qualified = std::string("devplace._devplace.") + name;
    kinds[kind] = py::reinterpret_steal<py::object>(PyErr_NewException(qualified.c_str(), error.ptr(), nullptr));
    m.attr(name) = kinds[kind];
  }
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      const py::object& type = kinds.at(e.kind());
      py::object x = type(e.what());
      x.attr("file") = e.file(), x.attr("node") = e.node(), x.attr("reason") = e.reason();
      x.attr("kind") = error_kind_name(e.kind());
      PyErr_SetObject(type.ptr(), x.ptr());
    }
  });

  py::class_<Workload>(m, "Workload", "A model on a cluster: graph, devices, and the cost of every op on every device")
      .def_static(
          "load",
          [](const std::string& model, const std::vector<std::string>& inputs, const std::string& cluster,
             const std::string& costs, bool fusion) {
            return Workload::load(WorkloadSpec{model, inputs, cluster, costs, fusion});
          },
          py::arg("model"), py::arg("inputs") = std::vector<std::string>{}, py::arg("cluster") = "",
          py::arg("costs") = "", py::arg("fusion") = true, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("model_name", &Workload::model_name)
      .def_property_readonly("cluster_name", &Workload::cluster_name)
      .def_property_readonly("cluster_spec", &Workload::cluster_spec)
      .def_property_readonly("op_names", &Workload::op_names)
      .def_property_readonly("device_names", &Workload::device_names)
      .def_property_readonly("num_ops", &Workload::num_ops)
      .def_property_readonly("num_devices", &Workload::num_devices)
      .def("__repr__", [](const Workload& w) {
        return "<devplace.Workload " + w.model_name() + " on " + w.cluster_name() + ": " + std::to_string(w.num_ops()) +
               " ops, " + std::to_string(w.num_devices()) + " devices>";
      });

  py::class_<Verdict>(m, "Verdict")
      .def_readonly("latency", &Verdict::latency)
      .def_readonly("feasible", &Verdict::feasible)
      .def_readonly("reason", &Verdict::reason)
      .def("__repr__", [](const Verdict& v) {
        return "<devplace.Verdict " +
               (v.feasible ? std::to_string(v.latency * 1e3) + " ms>" : "infeasible: " + v.reason + ">");
      });

  m.def("placer_names", &placer_names, "Every placer's name, classical and learned.");
  py::class_<PlaceResult>(m, "PlaceResult")
      .def_readonly("placer", &PlaceResult::placer)
      .def_readonly("placement", &PlaceResult::placement)
      .def_readonly("verdict", &PlaceResult::verdict)
      .def_readonly("seconds", &PlaceResult::seconds)
      .def_readonly("replaced_by_device", &PlaceResult::replaced_by_device)
      .def_readonly("placer_latency", &PlaceResult::placer_latency)
      .def("__repr__", [](const PlaceResult& r) {
        return "<devplace.PlaceResult " + r.placer + ": " +
               (r.verdict.feasible ? std::to_string(r.verdict.latency * 1e3) + " ms" : "infeasible") +
               (r.replaced_by_device >= 0 ? ", replaced by one device" : "") + ">";
      });
  // The one request behind place() and place_result(), as `devplace place` makes it.
  auto place_request = [](const std::string& algorithm, std::uint64_t seed, std::int64_t budget, double time_budget,
                          const std::string& objective, const std::string& policy, const std::string& move_policy,
                          int finetune, bool keep_placement) {
    PlaceRequest r;
    r.algorithm = algorithm, r.keep_placement = keep_placement;
    PlaceOptions& o = r.options;
    o.seed = seed, o.eval_budget = budget, o.time_budget_s = time_budget, o.objective = objective_of(objective);
    o.learned.policy_file = policy, o.learned.move_policy_file = move_policy, o.learned.fine_tune_episodes = finetune;
    return r;
  };
  m.def(
      "place_result",
      [place_request](const Workload& w, const std::string& algorithm, std::uint64_t seed, std::int64_t budget,
                      double time_budget, const std::string& objective, const std::string& policy,
                      const std::string& move_policy, int finetune, bool keep_placement) {
        const PlaceRequest r =
            place_request(algorithm, seed, budget, time_budget, objective, policy, move_policy, finetune, keep_placement);
        py::gil_scoped_release release;
        return place(w, r);
      },
      "Places the workload as place() does and returns a PlaceResult: placer (the row's name), placement, verdict, "
      "seconds, and replaced_by_device (>= 0 when a cost table fitted to measured runs judged the placement no better "
      "than that device alone within its error; keep_placement=True keeps the placer's).",
      py::arg("workload"), py::arg("algorithm") = "local-search", py::arg("seed") = 1, py::arg("budget") = 0,
      py::arg("time_budget") = 0.0, py::arg("objective") = "sim", py::arg("policy") = "",
      py::arg("move_policy") = "", py::arg("finetune") = 0, py::arg("keep_placement") = false);
  m.def(
      "place",
      [place_request](const Workload& w, const std::string& algorithm, std::uint64_t seed, std::int64_t budget,
                      double time_budget, const std::string& objective, const std::string& policy,
                      const std::string& move_policy, int finetune, bool keep_placement) {
        const PlaceRequest r =
            place_request(algorithm, seed, budget, time_budget, objective, policy, move_policy, finetune, keep_placement);
        py::gil_scoped_release release;
        return place(w, r).placement;
      },
      "Places the workload with the named placer (devplace.placer_names()); returns one device index per op. budget "
      "bounds reward evaluations of searches and learned placers, time_budget their seconds (0: defaults); policy "
      "places zero-shot with a trained policy file (finetune N: after N episodes of training on the workload), "
      "move_policy with another move policy (learned-moves rows). As `devplace place`: on a fitted cost table a "
      "placement within the model's error of one device becomes that device (keep_placement=True keeps it).",
      py::arg("workload"), py::arg("algorithm") = "local-search", py::arg("seed") = 1, py::arg("budget") = 0,
      py::arg("time_budget") = 0.0, py::arg("objective") = "sim", py::arg("policy") = "",
      py::arg("move_policy") = "", py::arg("finetune") = 0, py::arg("keep_placement") = false);
  m.def(
      "judge",
      [](const Workload& w, const Placement& p, const std::string& objective) {
        const Objective o = objective_of(objective);
        py::gil_scoped_release release;
        return judge(w, p, o);
      },
      "The placement's latency under the objective ('sim': the event simulator, or 'tarnawski'): a Verdict (latency in "
      "seconds, feasible, reason).",
      py::arg("workload"), py::arg("placement"), py::arg("objective") = "sim");
  m.def(
      "simulate",
      [](const Workload& w, const Placement& p) {
        Schedule s;
        {
          py::gil_scoped_release release;
          judge(w, p);  // checks the placement, naming a bad op
          s = Simulator(w.problem()).run(p);
        }
        return schedule_dict(w, s);
      },
      "The simulated schedule: makespan, feasible, busy and peak_memory per device, ops and transfers as lists of "
      "records, and columns (op, device, start, end as numpy arrays).",
      py::arg("workload"), py::arg("placement"));
  m.def(
      "write_trace",
      [](const Workload& w, const Placement& p, const std::string& path) {
        py::gil_scoped_release release;
        judge(w, p);
        write_chrome_trace(path, w.problem(), Simulator(w.problem()).run(p));
      },
      "Writes the simulated schedule as a Chrome trace (chrome://tracing, Perfetto).", py::arg("workload"),
      py::arg("placement"), py::arg("path"));
  m.def(
      "write_placement",
      [](const Workload& w, const Placement& p, const std::string& path) { write_placement(w, p, path); },
      "Writes the placement as a devplace placement file (JSON op name -> device), atomically.", py::arg("workload"),
      py::arg("placement"), py::arg("path"));
  m.def(
      "read_placement", [](const Workload& w, const std::string& path) { return read_placement(w, path); },
      "Reads a placement file written by devplace (Python or CLI).", py::arg("workload"), py::arg("path"));
  m.def(
      "write_onnx",
      [](const Workload& w, const Placement& p, const std::string& path) {
        py::gil_scoped_release release;
        judge(w, p);
        export_onnx_with_placement(w.problem().graph().source(), w.problem().graph(), w.problem().cluster(), p, path);
      },
      "Writes a copy of the ONNX model whose nodes carry their device (docs/guide/placement-export.md).", py::arg("workload"),
      py::arg("placement"), py::arg("path"));
  m.def(
      "write_openvino_affinity",
      [](const Workload& w, const Placement& p, const std::string& path) {
        py::gil_scoped_release release;
        judge(w, p);
        return export_openvino_affinity(w.problem().graph(), w.problem().cluster(), p, path).placement;
      },
      "Writes an OpenVINO affinity map (op -> CPU/GPU...) of the placement as HETERO accepts it; returns that adjusted "
      "placement.",
      py::arg("workload"), py::arg("placement"), py::arg("path"));

  py::class_<EpisodeProgress>(m, "EpisodeProgress")
      .def_readonly("episode", &EpisodeProgress::episode)
      .def_readonly("episodes", &EpisodeProgress::episodes)
      .def_readonly("mean_latency", &EpisodeProgress::mean_latency)
      .def_readonly("best_latency", &EpisodeProgress::best_latency)
      .def_readonly("entropy", &EpisodeProgress::entropy);
  py::class_<TrainSummary>(m, "TrainSummary")
      .def_readonly("policy", &TrainSummary::policy)
      .def_readonly("policy_latency", &TrainSummary::policy_latency)
      .def_readonly("best_sampled", &TrainSummary::best_sampled)
      .def_readonly("best_sampled_latency", &TrainSummary::best_sampled_latency)
      .def_readonly("evaluations", &TrainSummary::evaluations)
      .def_readonly("episodes", &TrainSummary::episodes)
      .def_readonly("seconds", &TrainSummary::seconds);
  m.def(
      "train",
      [](const Workload& w, const std::string& preset, int episodes, int samples, std::uint64_t seed,
         const std::string& objective, const std::string& checkpoint, bool resume, const std::string& save_policy,
         const std::function<void(const EpisodeProgress&)>& progress, const std::string& algorithm,
         const std::string& policy, const std::string& tuning) {
        TrainOptions o;
        o.algorithm = algorithm, o.policy = policy, o.tuning = tuning;
        o.preset = preset, o.episodes = episodes, o.samples = samples, o.seed = seed;
        o.objective = objective_of(objective), o.checkpoint_dir = checkpoint, o.resume = resume;
        o.save_policy = save_policy;
        // With the GIL held for the callback; a pending Ctrl-C stops training here.
        o.on_episode = [&](const EpisodeProgress& e) {
          py::gil_scoped_acquire hold;
          if (PyErr_CheckSignals() != 0) throw py::error_already_set();
          if (progress) progress(e);
        };
        py::gil_scoped_release release;
        return train(w, o);
      },
      "Trains HSDAG on the workload (no polish); with algorithm='learned' fine-tunes devplace's pretrained "
      "learned placer (policy: another policy file; episodes updates of samples placements; tuning='expert' "
      "searches with the policy and imitates the best placement found, 'policy_gradient' samples); with algorithm='rnn', "
      "'hierarchical' or 'placeto' trains that learned peer of HSDAG (placeto: policy to start from, save_policy); "
      "progress(EpisodeProgress) is called after every episode; Ctrl-C or an exception in progress stops training. "
      "Returns a TrainSummary.",
      py::arg("workload"), py::arg("preset") = "default", py::arg("episodes") = 0, py::arg("samples") = 0,
      py::arg("seed") = 1, py::arg("objective") = "sim", py::arg("checkpoint") = "", py::arg("resume") = false,
      py::arg("save_policy") = "", py::arg("progress") = nullptr, py::arg("algorithm") = "hsdag",
      py::arg("policy") = "", py::arg("tuning") = "expert");

  py::class_<ExecutionResult>(m, "ExecutionResult")
      .def_readonly("median", &ExecutionResult::median)
      .def_readonly("min", &ExecutionResult::min)
      .def_readonly("max", &ExecutionResult::max)
      .def_readonly("ci_low", &ExecutionResult::ci_low)
      .def_readonly("ci_high", &ExecutionResult::ci_high)
      .def_readonly("samples", &ExecutionResult::samples)
      .def_readonly("copies", &ExecutionResult::copies);
  m.def(
      "execute",
      [](const Workload& w, const Placement& p, int warmup, int runs, int threads, std::uint64_t seed) {
        ExecuteOptions o;
        o.warmup = warmup, o.runs = runs, o.threads = threads, o.seed = seed;
        py::gil_scoped_release release;
        return execute(w, p, o);
      },
      "Runs the placed ONNX model for real on this machine's workers (cpu:N / cuda:N) and times it: an ExecutionResult "
      "(seconds).",
      py::arg("workload"), py::arg("placement"), py::arg("warmup") = 1, py::arg("runs") = 5, py::arg("threads") = 1,
      py::arg("seed") = 1);
  m.def(
      "profile",
      [](const Workload& w, const std::string& path, int runs, int threads, std::uint64_t seed) {
        if (runs < 1) throw Error("", "", "profile: runs must be at least 1");
        std::map<std::string, double> sums;
        {
          py::gil_scoped_release release;
          const Problem& pb = w.problem();
          ExecOptions o;
          o.intra_op_threads = threads, o.seed = seed;
          Executor ex(pb.graph(), workers_for_cluster(pb.cluster(), w.cluster_spec()), o);
          ProfileOptions po;
          po.runs = runs;
          const CostTable t = profile_costs(ex, pb.graph(), pb.cluster(), po);
          write_file_atomic(path, cost_table_to_json(t).dump(1) + "\n");
          for (const auto& [op, row] : t.op_time)
            for (const auto& [device, seconds] : row) sums[device] += seconds;
        }
        return sums;
      },
      "Measures every op on every worker of the workload's cluster (as devplace profile) and writes the cost table "
      "to path (load(..., costs=path) then calibrates the simulator); returns the sum of op times per device, seconds.",
      py::arg("workload"), py::arg("path"), py::arg("runs") = 5, py::arg("threads") = 1, py::arg("seed") = 1);

  // Arrays for researchers. The cost table is a read-only view of the library's own memory (no
  // copy; the array keeps its workload alive); features and groups are built for the call and
  // handed over without a copy.
  m.def(
      "op_times",
      [](py::object workload) {
        const Problem& pb = workload.cast<const Workload&>().problem();
        const auto n = static_cast<py::ssize_t>(pb.num_ops()), d = static_cast<py::ssize_t>(pb.num_devices());
        const auto row = static_cast<py::ssize_t>(sizeof(double)) * d;
        py::array_t<double> view({n, d}, {row, static_cast<py::ssize_t>(sizeof(double))}, pb.op_time_data(), workload);
        py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
        return view;
      },
      "Seconds of every op on every device, [num_ops x num_devices] float64 (inf where an op cannot run): a "
      "read-only view of the workload's cost table, no copy.",
      py::arg("workload"));
  m.def(
      "groups",
      [](const Workload& w, bool chains_only) {
        CoarsenOptions o;
        o.chains_only = chains_only;
        return owned_array(coarsen(w.problem().graph(), o).group_of_op);
      },
      "The co-location groups of HSDAG's coarsening (docs/design/hsdag.md): per op its group, int32 [num_ops]; groups are "
      "numbered in a topological order (every edge goes from a lower to a higher group). chains_only=True keeps "
      "parallel branches apart (the default preset's).",
      py::arg("workload"), py::arg("chains_only") = true);
  m.def(
      "node_features",
      [](const Workload& w, bool per_group, bool chains_only) {
        CoarsenOptions o;
        o.chains_only = chains_only;
        if (!per_group) o.merge_single_predecessor = false, o.colocate = false;
        FeatureOptions f;
        f.cost = true;
        FeatureMatrix m = node_features(w.problem(), coarsen(w.problem().graph(), o), f);
        py::list blocks;
        for (const auto& [name, width] : m.groups) blocks.append(py::make_tuple(name, width));
        const int rows = m.rows, cols = m.cols;
        return py::make_tuple(owned_array(std::move(m.data), {rows, cols}), blocks);
      },
      "HSDAG's node features (learn/representation/features.h, the cost block on): ([rows x cols] float32, [(block name, width)] in "
      "column order); a row per op, or per group of groups() with per_group=True.",
      py::arg("workload"), py::arg("per_group") = false, py::arg("chains_only") = true);
  m.def(
      "edges",
      [](const Workload& w) {
        const Graph& g = w.problem().graph();
        std::vector<std::int64_t> src, dst, bytes;
        for (int t = 0; t < g.num_tensors(); ++t) {
          const int p = g.tensor(t).producer;
          if (p < 0) continue;
          for (int c : g.tensor(t).consumers)
            src.push_back(p), dst.push_back(c), bytes.push_back(w.problem().tensor_bytes(t));
        }
        const auto e = static_cast<py::ssize_t>(src.size());
        py::array_t<std::int64_t> index({py::ssize_t{2}, e}), size(e);
        auto ix = index.mutable_unchecked<2>();
        auto sz = size.mutable_unchecked<1>();
        for (py::ssize_t k = 0; k < e; ++k) ix(0, k) = src[k], ix(1, k) = dst[k], sz(k) = bytes[k];
        return py::make_tuple(index, size);
      },
      "The data edges between ops: ([2 x E] producer and consumer op indices, [E] bytes of the tensor).",
      py::arg("workload"));

  // The learned placer's decision process (learn/learned/schedule_env.h), for environments in Python.
  py::class_<ScheduleEnv>(m, "ScheduleEnv",
                          "The list-scheduling decision process of devplace's learned placer: one op per step, "
                          "one feature row per device")
      .def(py::init([](const Workload& w, const std::string& objective, bool rollout_features) {
             return std::make_unique<ScheduleEnv>(w.problem(), objective_of(objective), rollout_features);
           }),
           py::arg("workload"), py::arg("objective") = "sim", py::arg("rollout_features") = false,
           py::keep_alive<1, 2>())
      .def_readonly_static("num_features", &ScheduleEnv::kFeatures)
      .def("reset", &ScheduleEnv::reset)
      .def("done", &ScheduleEnv::done)
      .def_property_readonly("num_decisions", &ScheduleEnv::num_decisions)
      .def_property_readonly("num_devices", &ScheduleEnv::num_devices)
      .def("current_op", &ScheduleEnv::current_op)
      .def(
          "observe",
          [](const ScheduleEnv& env) {
            py::array_t<float> features({env.num_devices(), ScheduleEnv::kFeatures});
            py::array_t<bool> allowed(env.num_devices());
            std::vector<std::uint8_t> ok(static_cast<std::size_t>(env.num_devices()));
            env.observe(features.mutable_data(), ok.data());
            for (int d = 0; d < env.num_devices(); ++d)
              allowed.mutable_data()[d] = ok[static_cast<std::size_t>(d)] != 0;
            return py::make_tuple(features, allowed);
          },
          "The current op's features on every device [num_devices x num_features] and the allowed devices.")
      .def("earliest_finish_device", &ScheduleEnv::earliest_finish_device)
      .def("lookahead_device", &ScheduleEnv::lookahead_device)
      .def("rollout_device", &ScheduleEnv::rollout_device)
      .def("step",
           [](ScheduleEnv& env, int device) {
             if (env.done()) throw Error("", "", "the episode is over: reset() first");
             if (device < 0 || device >= env.num_devices())
               throw Error(
                   "", "",
                   "device " + std::to_string(device) + " is outside [0, " + std::to_string(env.num_devices()) + ")");
             env.step(device);
           })
      .def_property_readonly("placement", &ScheduleEnv::placement)
      .def(
          "finish_time",
          [](const ScheduleEnv& env, int op) {
            const int n = static_cast<int>(env.placement().size());
            if (op < 0 || op >= n)
              throw Error("", "", "op " + std::to_string(op) + " is outside [0, " + std::to_string(n) + ")");
            return env.finish_time(op);
          },
          py::arg("op"),
           "When the op finishes in the environment's estimate of the partial schedule (seconds; 0 for constants and "
           "ops not placed yet).");

  m.def(
      "random_episodes_per_second",
      [](const Workload& w, int episodes, std::uint64_t seed) {
        if (episodes < 1) throw Error("", "", "episodes must be at least 1");
        std::optional<py::gil_scoped_release> release(std::in_place);
        ScheduleEnv env(w.problem());
        std::mt19937_64 rng(seed);
        std::vector<float> features(static_cast<std::size_t>(env.num_devices()) * ScheduleEnv::kFeatures);
        std::vector<std::uint8_t> allowed(static_cast<std::size_t>(env.num_devices()));
        const auto t0 = std::chrono::steady_clock::now();
        long long steps = 0;
        for (int e = 0; e < episodes; ++e) {
          env.reset();
          while (!env.done()) {
            env.observe(features.data(), allowed.data());
            std::vector<int> ok;
            for (int d = 0; d < env.num_devices(); ++d)
              if (allowed[static_cast<std::size_t>(d)]) ok.push_back(d);
            env.step(ok[std::uniform_int_distribution<std::size_t>(0, ok.size() - 1)(rng)]);
            ++steps;
          }
          judge(w, env.placement());
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        release.reset();  // Python objects need the GIL
        return py::make_tuple(steps / s, episodes / s);
      },
      "The C++ side's own speed on the same decision process: random allowed devices, observing every step and "
      "simulating every episode's placement, as the trainer does. Returns (steps per second, episodes per second).",
      py::arg("workload"), py::arg("episodes") = 20, py::arg("seed") = 1);
}
