"""A placement environment with the Gymnasium API's shape, over devplace's C++ simulator.

No dependency on gymnasium: ``reset()`` returns ``(observation, info)`` and ``step(action)``
returns ``(observation, reward, terminated, truncated, info)``, with numpy observations.

Two ways to act:

* ``mode="op"`` (default): one step per op, in the order of devplace's learned placer (among
  the ops whose producers are placed, the one whose inputs are made first in the estimated
  schedule, ties to the highest upward rank). The observation describes the
  op at hand on every device (``features``: ``[num_devices x 23]`` from the partial schedule:
  time ratios, finish and ready gaps, transfer delay, busy and memory shares, the lookahead ...;
  the last two, the rollout's, are 0 unless ``rollout_features=True``, which makes each step
  about 100 times slower (under ``objective="tarnawski"`` they value cut points instead);
  ``allowed``:
  the devices where it runs and fits) and the placement so far (``placement``: a device per op,
  -1 where not decided yet). The action is a device index.
* ``mode="group"``: one step per co-location group of HSDAG's coarsening (``devplace.groups``),
  in topological order; the action is a device for every op of the group. The observation names
  the group (``group``), its ops (``group_ops``, op indices), its summed op times per device
  (``group_times``, seconds, inf where one of its ops cannot run), the devices that run all its
  ops (``allowed``) and the placement so far.
* ``mode="placement"``: one step, the action a whole placement (a device per op).

The static graph is in ``info`` at ``reset()``: ``op_times`` ``[num_ops x num_devices]``
seconds (a read-only view of the C++ cost table, no copy), ``edges`` ``[2 x E]`` op indices,
``edge_bytes`` ``[E]``, ``node_features`` (HSDAG's, a row per op, or per group in group mode)
with ``feature_blocks`` naming its columns, and in group mode ``groups`` (per op its group).

Reward, at the end of an episode (0 before): ``"speedup"`` (default) the best single device's
latency over the placement's, ``"neg_latency"`` minus its latency in seconds. An infeasible
placement scores 0 (speedup) or minus ten times the best single device's latency.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import numpy

from . import _devplace


class PlacementEnv:
    """Places one workload's ops on its devices; see the module's documentation."""

    def __init__(self, workload: _devplace.Workload, mode: str = "op", reward: str = "speedup",
                 objective: str = "sim", rollout_features: bool = False) -> None:
        if mode not in ("op", "group", "placement"):
            raise ValueError(f"mode must be 'op', 'group' or 'placement', not {mode!r}")
        if reward not in ("speedup", "neg_latency"):
            raise ValueError(f"reward must be 'speedup' or 'neg_latency', not {reward!r}")
        self.workload = workload
        self.mode = mode
        self.reward_kind = reward
        self.objective = objective
        self._env = _devplace.ScheduleEnv(workload, objective, rollout_features)
        self.num_ops = workload.num_ops
        self.num_devices = workload.num_devices
        self.op_times = _devplace.op_times(workload)
        self.edges, self.edge_bytes = _devplace.edges(workload)
        singles = [_devplace.judge(workload, [d] * self.num_ops, objective) for d in range(self.num_devices)]
        feasible = [v.latency for v in singles if v.feasible]
        self.reference_latency = min(feasible) if feasible else 1.0
        self.node_features, self.feature_blocks = _devplace.node_features(workload, per_group=(mode == "group"))
        if mode == "group":
            self.groups = _devplace.groups(workload)
            self.num_groups = int(self.groups.max()) + 1 if self.num_ops else 0
            self._group_ops = [numpy.flatnonzero(self.groups == g) for g in range(self.num_groups)]
            self._group_times = numpy.stack([self.op_times[ops].sum(axis=0) for ops in self._group_ops]) \
                if self.num_groups else numpy.zeros((0, self.num_devices))
            self._group = 0
        self._placement = numpy.full(self.num_ops, -1, dtype=numpy.int64)
        self._done = True

    def _observation(self) -> Dict[str, Any]:
        if self.mode == "group":
            if self._group < self.num_groups:
                times = self._group_times[self._group]
                return {"group": self._group, "group_ops": self._group_ops[self._group], "group_times": times.copy(),
                        "allowed": numpy.isfinite(times), "placement": self._placement.copy()}
            return {"group": -1, "group_ops": numpy.zeros(0, dtype=numpy.int64),
                    "group_times": numpy.zeros(self.num_devices), "allowed": numpy.zeros(self.num_devices, dtype=bool),
                    "placement": self._placement.copy()}
        if self.mode == "placement" or self._env.done():
            features = numpy.zeros((self.num_devices, _devplace.ScheduleEnv.num_features), dtype=numpy.float32)
            allowed = numpy.zeros(self.num_devices, dtype=bool)
            op = -1
        else:
            features, allowed = self._env.observe()
            op = self._env.current_op()
        return {"features": features, "allowed": allowed, "op": op, "placement": self._placement.copy()}

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[Dict[str, Any], dict]:
        """Starts an episode: (observation, info with the static graph arrays)."""
        self._env.reset()
        self._placement[:] = -1
        self._done = False
        info = {"op_times": self.op_times, "edges": self.edges, "edge_bytes": self.edge_bytes,
                "node_features": self.node_features, "feature_blocks": self.feature_blocks,
                "op_names": self.workload.op_names, "device_names": self.workload.device_names,
                "reference_latency": self.reference_latency}
        if self.mode == "group":
            self._group = 0
            info["groups"] = self.groups
        return self._observation(), info

    def _finish(self, placement: Sequence[int]) -> Tuple[float, dict]:
        verdict = _devplace.judge(self.workload, list(placement), self.objective)
        self._done = True
        if self.reward_kind == "speedup":
            reward = self.reference_latency / verdict.latency if verdict.feasible else 0.0
        else:
            reward = -verdict.latency if verdict.feasible else -10.0 * self.reference_latency
        return reward, {"latency": verdict.latency, "feasible": verdict.feasible, "reason": verdict.reason,
                        "placement": list(placement)}

    def step(self, action: Any) -> Tuple[Dict[str, Any], float, bool, bool, dict]:
        """Applies an action: (observation, reward, terminated, truncated, info)."""
        if self._done:
            raise _devplace.Error("the episode is over: call reset() first")
        if self.mode == "placement":
            placement = [int(d) for d in action]
            self._placement[:] = placement
            reward, info = self._finish(placement)
            return self._observation(), reward, True, False, info
        if self.mode == "group":
            device = int(action)
            if not 0 <= device < self.num_devices:
                raise _devplace.Error(f"device {device} is outside [0, {self.num_devices})")
            self._placement[self._group_ops[self._group]] = device
            self._group += 1
            if self._group < self.num_groups:
                return self._observation(), 0.0, False, False, {}
            reward, info = self._finish(self._placement.tolist())
            return self._observation(), reward, True, False, info
        op = self._env.current_op()
        self._env.step(int(action))
        self._placement[op] = int(action)
        if not self._env.done():
            return self._observation(), 0.0, False, False, {}
        placement = self._env.placement
        self._placement[:] = placement
        reward, info = self._finish(placement)
        return self._observation(), reward, True, False, info
