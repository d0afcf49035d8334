"""A placement environment with the Gymnasium API's shape, over devplace's C++ simulator.

No dependency on gymnasium: ``reset()`` returns ``(observation, info)`` and ``step(action)``
returns ``(observation, reward, terminated, truncated, info)``, with numpy observations.

Two ways to act:

* ``mode="op"`` (default): one step per op, in the order of devplace's learned placer (the
  highest upward rank among the ops whose producers are placed). The observation describes the
  op at hand on every device (``features``: ``[num_devices x 19]`` from the partial schedule:
  time ratios, finish and ready gaps, transfer delay, busy and memory shares ...; ``allowed``:
  the devices where it runs and fits) and the placement so far (``placement``: a device per op,
  -1 where not decided yet). The action is a device index.
* ``mode="placement"``: one step, the action a whole placement (a device per op).

The static graph is in ``info`` at ``reset()``: ``op_times`` ``[num_ops x num_devices]``
seconds, ``edges`` ``[2 x E]`` op indices and ``edge_bytes`` ``[E]``.

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
                 objective: str = "sim") -> None:
        if mode not in ("op", "placement"):
            raise ValueError(f"mode must be 'op' or 'placement', not {mode!r}")
        if reward not in ("speedup", "neg_latency"):
            raise ValueError(f"reward must be 'speedup' or 'neg_latency', not {reward!r}")
        self.workload = workload
        self.mode = mode
        self.reward_kind = reward
        self.objective = objective
        self._env = _devplace.ScheduleEnv(workload, objective)
        self.num_ops = workload.num_ops
        self.num_devices = workload.num_devices
        self.op_times = _devplace.op_times(workload)
        self.edges, self.edge_bytes = _devplace.edges(workload)
        singles = [_devplace.judge(workload, [d] * self.num_ops, objective) for d in range(self.num_devices)]
        feasible = [v.latency for v in singles if v.feasible]
        self.reference_latency = min(feasible) if feasible else 1.0
        self._placement = numpy.full(self.num_ops, -1, dtype=numpy.int64)
        self._done = True

    def _observation(self) -> Dict[str, Any]:
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
                "op_names": self.workload.op_names, "device_names": self.workload.device_names,
                "reference_latency": self.reference_latency}
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
        op = self._env.current_op()
        self._env.step(int(action))
        self._placement[op] = int(action)
        if not self._env.done():
            return self._observation(), 0.0, False, False, {}
        placement = self._env.placement
        self._placement[:] = placement
        reward, info = self._finish(placement)
        return self._observation(), reward, True, False, info
