"""devplace: learn and search where each op of a neural network runs on CPUs, GPUs and accelerators.

Place a PyTorch module or a model file on a cluster, judge and simulate the placement, compare
placers, train the learned ones, run the placed ONNX model for real and write the placement for
the runtime that executes it::

    import devplace
    w = devplace.load("resnet50", cluster="paper")         # a bundled model, or any .onnx / .xml
    p = devplace.place(w, "heft")                          # any name in devplace.placer_names()
    print(devplace.judge(w, p).latency * 1e3, "ms")
    devplace.write_trace(w, p, "trace.json")               # chrome://tracing

A placement is a list of device indices, one per op in ``w.op_names`` order; device i is
``w.device_names[i]``. Errors raise :class:`devplace.Error`, a ``ValueError`` whose ``file``,
``node``, ``reason`` and ``kind`` say where and what, as one subclass per kind:
:class:`InvalidArgumentError` (a value or option the call does not accept, a bad binding),
:class:`NotFoundError` (a missing file, an unknown placer, model, preset, op or device),
:class:`CorruptError` (a file that does not parse), :class:`UnsupportedError` (valid input devplace
cannot handle) and :class:`FileIOError` (reading or writing failed). Long calls release the GIL; :func:`train` can be interrupted with Ctrl-C.
"""
from __future__ import annotations

import atexit
import json
import os
import tempfile
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from ._devplace import (  # noqa: F401  (re-exported)
    EpisodeProgress,
    ScheduleEnv,
    CorruptError,
    Error,
    ExecutionResult,
    FileIOError,
    InvalidArgumentError,
    NotFoundError,
    UnsupportedError,
    TrainSummary,
    Verdict,
    Workload,
    edges,
    execute,
    groups,
    judge,
    node_features,
    op_times,
    place,
    place_result,
    PlaceResult,
    placer_names,
    profile,
    random_episodes_per_second,
    read_placement,
    simulate,
    train,
    write_onnx,
    write_openvino_affinity,
    write_placement,
    write_trace,
)

from .env import PlacementEnv  # noqa: E402

__all__ = [
    "CorruptError", "EpisodeProgress", "Error", "ExecutionResult", "FileIOError", "InvalidArgumentError",
    "NotFoundError", "PlaceResult", "PlacementEnv", "UnsupportedError", "ScheduleEnv", "TrainSummary", "Verdict",
    "Workload", "compare", "edges", "execute", "format_table", "from_torch", "groups", "judge", "load",
    "node_features", "op_times", "place", "place_result", "placer_names", "profile", "random_episodes_per_second", "read_placement",
    "simulate", "train", "write_onnx", "write_openvino_affinity", "write_placement", "write_trace",
]


def cluster_file(cluster: Dict[str, Any]) -> str:
    """Writes a cluster given as a dict (the JSON cluster format: ``name``, ``devices`` with
    ``name``, ``kind``, ``peak_tflops``, ``mem_bandwidth_gbs``, ``memory_gib`` ..., and ``links``
    or ``default_link``; docs/design/cost-model.md) to a temporary file, removed at exit, and returns
    its path. :func:`load` calls it for a dict."""
    fd, path = tempfile.mkstemp(prefix="devplace_cluster_", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(cluster, f)
    atexit.register(lambda: os.path.exists(path) and os.remove(path))
    return path


def load(model: str, inputs: Optional[Dict[str, Sequence[int]] | Sequence[str]] = None,
         cluster: str | Dict[str, Any] = "", costs: str = "", fusion: bool = True) -> Workload:
    """Load a model onto a cluster.

    Args:
        model: a model file (.onnx, OpenVINO IR .xml, devplace or Tarnawski .json) or a bundled
            name (resnet50, inception_v3, bert_base).
        inputs: input shape bindings, as ``{"input_ids": (1, 256)}`` or ``["input_ids=1,256"]``.
        cluster: a cluster file (.toml, .json), a preset (paper, server, nvlink4) or a dict in
            the JSON cluster format (see :func:`cluster_file`); empty: the model's own devices,
            else paper.
        costs: a cost table from ``devplace profile`` overriding the cost model for the ops it names.
        fusion: False runs every op as its own kernel (the cluster's fusion rules ignored).
    """
    if inputs is None:
        bindings: List[str] = []
    elif isinstance(inputs, dict):
        bindings = [f"{name}={','.join(str(int(d)) for d in shape)}" for name, shape in inputs.items()]
    else:
        bindings = list(inputs)
    if isinstance(cluster, dict):
        cluster = cluster_file(cluster)
    return Workload.load(model, bindings, cluster, costs, fusion)


def from_torch(module: Any, example_inputs: Any, cluster: str = "", path: Optional[str] = None,
               input_names: Optional[Sequence[str]] = None, opset: int = 13) -> Workload:
    """Export a ``torch.nn.Module`` through ``torch.onnx`` and load it onto a cluster.

    Args:
        module: the module (put in eval mode for the export).
        example_inputs: a tensor or a tuple of tensors, as ``torch.onnx.export`` takes them.
        cluster: as in :func:`load`.
        path: where to keep the ONNX file (default: a temporary file, kept for :func:`execute`
            and :func:`write_onnx`, which read the model again).
        input_names: names of the graph inputs (default ``input0``, ``input1`` ...).
        opset: the ONNX opset to export with.
    """
    import torch  # Debian's python3-torch; imported here so the rest works without it

    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    if path is None:
        fd, path = tempfile.mkstemp(prefix=f"devplace_{type(module).__name__}_", suffix=".onnx")
        os.close(fd)
    names = list(input_names) if input_names else [f"input{i}" for i in range(len(example_inputs))]
    was_training = module.training
    module.eval()
    try:
        with torch.no_grad():
            torch.onnx.export(module, example_inputs, path, input_names=names, opset_version=opset)
    finally:
        module.train(was_training)
    return load(path, cluster=cluster)


def compare(workload: Workload, algorithms: Iterable[str] = ("heft", "local-search", "random"), seed: int = 1,
            budget: int = 0) -> List[Dict[str, Any]]:
    """Place ``workload`` with each algorithm and judge it: one row per algorithm, best first.

    Each row: ``algorithm``, ``latency_ms`` (inf when infeasible), ``feasible``, ``seconds`` (time
    to place) and ``placement``. ``budget`` bounds the reward evaluations of searches and learned
    placers (0: their defaults).
    """
    rows = []
    for name in algorithms:
        t0 = time.perf_counter()
        p = place(workload, name, seed=seed, budget=budget)
        seconds = time.perf_counter() - t0
        v = judge(workload, p)
        rows.append({"algorithm": name, "latency_ms": v.latency * 1e3 if v.feasible else float("inf"),
                     "feasible": v.feasible, "seconds": seconds, "placement": p})
    rows.sort(key=lambda r: r["latency_ms"])
    return rows


def format_table(rows: List[Dict[str, Any]]) -> str:
    """The rows of :func:`compare` as a Markdown table."""
    lines = ["| algorithm | latency (ms) | placed in (s) |", "|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['algorithm']} | {r['latency_ms']:.3f} | {r['seconds']:.3f} |")
    return "\n".join(lines)


__all__ += ["format_table", "cluster_file"]
