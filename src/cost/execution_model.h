// ExecutionModel: how a runtime that drives every device from a host thread runs a placed graph,
// the model of devplace's own executor (src/exec). A cost table carries one when it was fitted to
// measured runs (`devplace calibrate`, `devplace profile`); the simulator then schedules with it
// instead of its idealised link model (docs/design/cost-model.md, "Execution model").
//
// What it describes, per device: the time a worker thread spends per task outside the op itself
// (`dispatch`: the queue), more when the task finds the worker idle (`wake`: its threads, and
// the intra-op pool's, asleep and woken), a factor on the table's op times (`op_scale`: the machine's speed
// during the runs against the profile), and, for an asynchronous device (a GPU), that its thread
// only launches kernels (the table's op time is the launch) while the device runs them later, in
// launch order, for `kernel_min + device_scale * roofline time` each. Per ordered pair of devices,
// a tensor crossing costs `fixed + bytes / bandwidth`. `copies` says how the executor moves a
// tensor to or from an asynchronous device: `blocking` (a pageable copy on the device's one
// stream: the thread that copies waits until every kernel launched before it has run) or `async`
// (pinned staging buffers, non-blocking copies and events: only the tensor's own copy is waited
// for).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace devplace {

class Cluster;

struct DeviceExecution {
  std::string device;        // device name
  bool async = false;        // kernels launched by a host thread, run later in launch order
  double dispatch = 0;       // seconds of the worker thread per task (op or copy) outside the op
  double wake = 0;           // seconds more for a task that finds the worker idle (threads asleep)
  double op_scale = 1;       // factor on the table's (or roofline's) op time on the worker thread
  double kernel_min = 0;     // async: seconds every kernel takes on the device at least
  double device_scale = 1;   // async: factor on the roofline time of a kernel on the device
};

struct CrossingExecution {
  std::string from, to;      // device names
  double fixed = 0;          // seconds per tensor crossing (enqueue, synchronise, wake the reader)
  double bandwidth = 10e9;   // bytes per second of the copy
};

struct ExecutionModel {
  enum class Copies { blocking, async };
  Copies copies = Copies::async;
  double staging_bandwidth = 10e9;  // async copies to a device: bytes/s into the pinned buffer
  std::vector<DeviceExecution> devices;
  std::vector<CrossingExecution> crossings;
  // How well it fits: the median absolute relative error over the `fitted_on` measured
  // placements it was fitted to, or over held-out ones where calibrate had some and it is larger
  // (0 when not fitted). `place` treats a simulated gain below it (at least 5%) as noise.
  double fit_error = 0;
  int fitted_on = 0;

  const DeviceExecution* device(const std::string& name) const;
  const CrossingExecution* crossing(const std::string& from, const std::string& to) const;
};

// "async" / "blocking" and back; an unknown name throws Error naming `file` and `node`.
ExecutionModel::Copies copies_from_name(const std::string& name, const std::string& file, const std::string& node);
const char* copies_name(ExecutionModel::Copies copies);

// Defaults before any fit: gpu and accel devices asynchronous, everything else not; each device's
// own launch overhead as its dispatch; each link's latency and bandwidth as the crossing's.
ExecutionModel default_execution_model(const Cluster& cluster, ExecutionModel::Copies copies);

// JSON layout: {"copies": "async"|"blocking", "staging_bandwidth_gbs", "fit_error", "fitted_on",
// "devices": [{"device", "async", "dispatch_us", "wake_us", "op_scale", "kernel_min_us", "device_scale"}],
// "crossings": [{"from", "to", "fixed_us", "bandwidth_gbs"}]}. Throws Error naming `file` and the
// entry for a bad value.
ExecutionModel execution_model_from_json(const nlohmann::json& j, const std::string& file);
nlohmann::json execution_model_to_json(const ExecutionModel& m);

}  // namespace devplace
