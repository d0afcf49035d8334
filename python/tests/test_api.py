"""The Python package against the library: placing, judging, simulating, writing, training,
bad input, and agreement with the CLI (run by ctest as python_tests; PYTHONPATH=build/python)."""
import json
import os
import re
import subprocess

import numpy
import pytest

import devplace

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("DEVPLACE_BIN", os.path.join(ROOT, "build", "devplace"))


@pytest.fixture(scope="module")
def resnet():
    return devplace.load("resnet50", cluster="paper")


def test_load_names_ops_and_devices(resnet):
    assert resnet.model_name == "resnet50"
    assert resnet.device_names == ["cpu", "gpu"]
    assert resnet.num_ops == len(resnet.op_names) > 100
    assert "resnet50" in repr(resnet)


def test_place_and_judge(resnet):
    p = devplace.place(resnet, "heft")
    assert len(p) == resnet.num_ops and set(p) <= {0, 1}
    v = devplace.judge(resnet, p)
    assert v.feasible and 0 < v.latency < 1
    # HEFT is no slower than the CPU alone, and its placement uses the GPU.
    assert devplace.judge(resnet, [0] * resnet.num_ops).latency >= v.latency and 1 in p


def test_placement_equals_the_cli_for_the_same_seed(resnet, tmp_path):
    p = devplace.place(resnet, "local-search", seed=3, budget=400)
    out = tmp_path / "cli.json"
    subprocess.run([CLI, "-q", "place", "resnet50", "--cluster", "paper", "--algo", "local-search", "--seed", "3",
                    "--budget", "400", "-o", str(out)], check=True, capture_output=True)
    assert devplace.read_placement(resnet, str(out)) == p


def test_place_result_is_the_cli_place_path():
    # The same request as `devplace place` (one service behind both): on the H200 table fitted to
    # measured runs, a placement within the model's error of one device becomes that device.
    d = os.path.join(ROOT, "tests", "data", "execution")
    w = devplace.load("inception_v3", cluster=os.path.join(d, "h200-async.toml"),
                      costs=os.path.join(d, "h200-async-inception_v3", "calibrated.json"))
    r = devplace.place_result(w, "round-robin")
    assert r.placer == "round-robin" and r.replaced_by_device >= 0
    assert set(r.placement) == {r.replaced_by_device} and r.placer_latency > r.verdict.latency
    kept = devplace.place_result(w, "round-robin", keep_placement=True)
    assert kept.replaced_by_device == -1 and len(set(kept.placement)) == 2
    assert devplace.place(w, "round-robin") == r.placement
    with pytest.raises(devplace.InvalidArgumentError):
        devplace.place(w, "local-search", policy=os.path.join(ROOT, "policies", "learned.pt"))
    with pytest.raises(devplace.InvalidArgumentError):
        devplace.place(w, "hsdag", finetune=3)


def test_simulate_gives_records_and_columns(resnet):
    p = devplace.place(resnet, "heft")
    s = devplace.simulate(resnet, p)
    assert s["makespan"] == pytest.approx(devplace.judge(resnet, p).latency)
    assert len(s["ops"]) == resnet.num_ops
    cols = s["columns"]
    assert isinstance(cols["start"], numpy.ndarray) and cols["start"].shape == (resnet.num_ops,)
    busy = {d: 0.0 for d in resnet.device_names}
    for r in s["ops"]:
        assert r["end"] >= r["start"] >= 0
        if r["device"] is not None:
            busy[r["device"]] += r["end"] - r["start"]
    for d in resnet.device_names:
        assert busy[d] == pytest.approx(s["busy"][d], rel=1e-9, abs=1e-12)
    for t in s["transfers"]:
        assert t["from"] != t["to"] and t["end"] >= t["start"]


def test_writers(resnet, tmp_path):
    p = devplace.place(resnet, "heft")
    trace = tmp_path / "trace.json"
    devplace.write_trace(resnet, p, str(trace))
    assert json.loads(trace.read_text())["traceEvents"]
    placed = tmp_path / "placement.json"
    devplace.write_placement(resnet, p, str(placed))
    assert devplace.read_placement(resnet, str(placed)) == p
    onnx_out = tmp_path / "placed.onnx"
    devplace.write_onnx(resnet, p, str(onnx_out))
    import onnx
    m = onnx.load(str(onnx_out))
    assert any(prop.key == "devplace.placement" for prop in m.metadata_props)
    affinity = tmp_path / "affinity.json"
    adjusted = devplace.write_openvino_affinity(resnet, p, str(affinity))
    assert len(adjusted) == resnet.num_ops and affinity.exists()


def test_bad_input_raises_clear_errors(resnet):
    with pytest.raises(devplace.Error) as missing:
        devplace.load("/nonexistent/model.onnx")
    assert "/nonexistent/model.onnx" in str(missing.value) and missing.value.file == "/nonexistent/model.onnx"
    with pytest.raises(devplace.Error, match="no-such-placer"):
        devplace.place(resnet, "no-such-placer")
    with pytest.raises(devplace.Error, match="input"):
        devplace.load("bert_base", inputs=["not a binding"])
    with pytest.raises(devplace.Error):
        devplace.judge(resnet, [5] * resnet.num_ops)
    with pytest.raises(ValueError):  # devplace.Error is a ValueError
        devplace.load("resnet50", cluster="no-such-cluster")


def test_each_kind_of_error_has_its_class(resnet, tmp_path):
    # One class per kind, each a devplace.Error: callers tell a missing file from a corrupt one.
    with pytest.raises(devplace.NotFoundError) as missing:
        devplace.load(str(tmp_path / "missing.onnx"))
    assert missing.value.kind == "not found" and isinstance(missing.value, devplace.Error)
    with pytest.raises(devplace.NotFoundError):
        devplace.place(resnet, "no-such-placer")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage that is not protobuf")
    with pytest.raises(devplace.CorruptError) as corrupt:
        devplace.load(str(bad))
    assert corrupt.value.file == str(bad) and corrupt.value.kind == "corrupt"
    with pytest.raises(devplace.InvalidArgumentError):
        devplace.judge(resnet, [5] * resnet.num_ops)
    (tmp_path / "a-file").write_text("")
    with pytest.raises(devplace.FileIOError):  # its folder would have to be inside a file
        devplace.write_placement(resnet, devplace.place(resnet, "heft"), str(tmp_path / "a-file" / "p.json"))
    for kind in (devplace.InvalidArgumentError, devplace.NotFoundError, devplace.CorruptError,
                 devplace.UnsupportedError, devplace.FileIOError):
        assert issubclass(kind, devplace.Error) and kind is not devplace.Error


def test_train_reports_progress_and_stops_on_an_exception(resnet):
    seen = []
    r = devplace.train(resnet, episodes=2, samples=4, progress=lambda e: seen.append((e.episode, e.episodes)))
    assert seen == [(1, 2), (2, 2)]
    assert r.episodes == 2 and len(r.policy) == resnet.num_ops and r.evaluations > 0

    def stop(e):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        devplace.train(resnet, episodes=5, samples=4, progress=stop)


def test_from_torch_places_and_runs_a_module(tmp_path):
    import torch  # python3-torch is one of devplace.sh's packages

    net = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    path = str(tmp_path / "net.onnx")
    w = devplace.from_torch(net, torch.randn(1, 64), cluster="paper", path=path)
    assert w.num_ops >= 3 and w.device_names == ["cpu", "gpu"]
    rows = devplace.compare(w, ["heft", "m-topo"])
    assert len(rows) == 2 and rows[0]["latency_ms"] <= rows[1]["latency_ms"]
    # Run it for real on this machine's two CPU workers.
    local = devplace.load(path, cluster=os.path.join(ROOT, "clusters", "local2.toml"))
    r = devplace.execute(local, devplace.place(local, "heft"), warmup=0, runs=2)
    assert len(r.samples) == 2 and r.median > 0
    assert r.ci_low <= r.median <= r.ci_high  # with 2 runs: [min, max]


def test_readme_quick_start_runs_as_written(tmp_path):
    readme = open(os.path.join(ROOT, "README.md")).read()
    block = re.search(r"<!-- python-quick-start -->\s*```python\n(.*?)```", readme, re.S)
    assert block, "README has no python quick start block"
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(block.group(1), "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert (tmp_path / "resnet50_trace.json").exists()


def test_readme_examples_are_the_example_files():
    # The README shows examples/quickstart.cpp (built and run by CTest) and examples/quickstart.py
    # (run above) byte for byte, so what a reader copies is what the tests run.
    readme = open(os.path.join(ROOT, "README.md")).read()
    cpp = re.search(r"```cpp\n(.*?)```", readme, re.S)
    py = re.search(r"<!-- python-quick-start -->\s*```python\n(.*?)```", readme, re.S)
    assert cpp and py, "README lacks its C++ or Python example"
    assert cpp.group(1) == open(os.path.join(ROOT, "examples", "quickstart.cpp")).read()
    assert py.group(1) == open(os.path.join(ROOT, "examples", "quickstart.py")).read()


def test_help_reads_well():
    assert "placer" in devplace.place.__doc__
    assert "Args" in devplace.load.__doc__ and "torch.onnx" in devplace.from_torch.__doc__


def test_environment_one_op_per_step(resnet):
    env = devplace.PlacementEnv(resnet)
    obs, info = env.reset(seed=0)
    assert obs["features"].shape == (2, devplace.ScheduleEnv.num_features) and obs["features"].dtype == numpy.float32
    assert obs["allowed"].dtype == bool and (obs["placement"] == -1).all()
    assert info["op_times"].shape == (resnet.num_ops, 2) and info["edges"].shape[0] == 2
    assert info["edges"].shape[1] == info["edge_bytes"].shape[0] > resnet.num_ops
    steps, done, reward = 0, False, 0.0
    while not done:
        action = int(numpy.flatnonzero(obs["allowed"])[-1])
        obs, reward, done, truncated, step_info = env.step(action)
        assert not truncated
        steps += 1
    assert steps == env._env.num_decisions and steps <= resnet.num_ops
    assert step_info["latency"] == pytest.approx(devplace.judge(resnet, step_info["placement"]).latency)
    assert reward == pytest.approx(info["reference_latency"] / step_info["latency"])
    with pytest.raises(devplace.Error):
        env.step(0)


def test_decision_rules_drive_the_environment_as_their_placers_do(resnet):
    for rule, placer in (("lookahead_device", "lookahead"), ("rollout_device", "rollout")):
        env = devplace.ScheduleEnv(resnet)
        while not env.done():
            env.step(getattr(env, rule)())
        assert list(env.placement) == list(devplace.place(resnet, placer)), rule


def test_cut_points_drive_the_environment_under_tarnawskis_model():
    # With the rollout features, the rule under Tarnawski's model is the cut-point choice; it
    # places GNMT as the `rollout` placer does, within 5% of the DP, without those features (the
    # rank order alone) 44% above it.
    path = os.path.join(ROOT, "..", "shared", "data", "dnn-partitioning", "latency-inputs", "LayerGraphs",
                        "gnmt_inference.json")
    if not os.path.exists(path):
        pytest.skip("no shared data at " + path)
    gnmt = devplace.load(path)
    dp = devplace.judge(gnmt, devplace.place(gnmt, "tarnawski-dp", objective="tarnawski"), objective="tarnawski")
    env = devplace.ScheduleEnv(gnmt, "tarnawski", rollout_features=True)
    while not env.done():
        env.step(env.rollout_device())
    assert list(env.placement) == list(devplace.place(gnmt, "rollout", objective="tarnawski"))
    assert devplace.judge(gnmt, env.placement, objective="tarnawski").latency <= 1.05 * dp.latency
    plain = devplace.ScheduleEnv(gnmt, "tarnawski")
    while not plain.done():
        plain.step(plain.rollout_device())
    assert devplace.judge(gnmt, plain.placement, objective="tarnawski").latency > 1.3 * dp.latency


def test_environment_whole_placement_per_step(resnet):
    env = devplace.PlacementEnv(resnet, mode="placement", reward="neg_latency")
    env.reset()
    heft = devplace.place(resnet, "heft")
    _, reward, done, _, info = env.step(heft)
    assert done and reward == pytest.approx(-devplace.judge(resnet, heft).latency)


def run_example(name, *args):
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(CLI), "python"))
    return subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "python", "examples", name), *args], env=env,
                          check=True, capture_output=True, text=True).stdout


def test_examples_run():
    out = run_example("train_env_policy.py", "--episodes", "2", "--batch", "2")
    assert "trained policy (greedy)" in out and "HEFT" in out
    out = run_example("bench_env.py", "--model", "resnet50", "--episodes", "2", "--updates", "1", "--samples", "2")
    assert "Python overhead per step" in out and "C++ trainer" in out


def test_cluster_from_a_dict_and_a_profiled_cost_table(tmp_path):
    cluster = {"name": "two", "devices": [
        {"name": "fast", "kind": "cpu", "peak_tflops": 1.0, "mem_bandwidth_gbs": 100, "worker": "cpu:0"},
        {"name": "slow", "kind": "cpu", "peak_tflops": 0.1, "mem_bandwidth_gbs": 10, "worker": "cpu:1"}],
        "default_link": {"bandwidth_gbs": 10, "latency_us": 5}}
    w = devplace.load("resnet50", cluster=cluster)
    assert w.device_names == ["fast", "slow"] and w.cluster_name == "two"
    times = devplace.op_times(w)
    assert (times[:, 1] >= times[:, 0]).all()  # the slow device is never faster
    with pytest.raises(devplace.Error):
        devplace.load("resnet50", cluster={"name": "bad", "devices": [{"kind": "cpu"}]})
    costs = str(tmp_path / "costs.json")
    sums = devplace.profile(w, costs, runs=1)
    assert set(sums) == {"fast", "slow"} and all(v > 0 for v in sums.values())
    calibrated = devplace.load("resnet50", cluster=cluster, costs=costs)
    cpu_only = [0] * calibrated.num_ops
    assert devplace.judge(calibrated, cpu_only).latency == pytest.approx(sums["fast"], rel=0.5)


def test_ctrl_c_interrupts_training():
    code = ("import os, signal, threading, time, devplace\n"
            "w = devplace.load('resnet50', cluster='paper')\n"
            "threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
            "t0 = time.time()\n"
            "try:\n"
            "    devplace.train(w, episodes=100000, samples=4)\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted after %.1f s' % (time.time() - t0))\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(CLI), "python"))
    out = subprocess.run(["/usr/bin/python3", "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert "interrupted after" in out.stdout, out.stdout + out.stderr
    assert float(out.stdout.split()[2]) < 30


def test_cli_runs_on_inputs_from_onnx_tensor_files(tmp_path):
    import onnx
    from onnx import numpy_helper

    x = numpy.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(numpy.float32)
    numpy.save(tmp_path / "x.npy", x)
    (tmp_path / "x.pb").write_bytes(numpy_helper.from_array(x, "input").SerializeToString())
    outs = []
    for name in ("x.npy", "x.pb"):
        out = tmp_path / name.replace(".", "_")
        subprocess.run([CLI, "-q", "run", "resnet50", "--cluster", os.path.join(ROOT, "clusters", "local2.toml"), "-d",
                        "cpu0", "--runs", "1", "--warmup", "0", "--input-file", f"input={tmp_path / name}",
                        "--output-dir", str(out)], check=True, capture_output=True)
        outs.append(numpy.load(out / "output.npy"))
    assert outs[0].shape == (1, 1000) and outs[0].dtype == numpy.float32
    assert numpy.array_equal(outs[0], outs[1])


def test_train_fine_tunes_the_learned_placer_with_progress(resnet):
    seen = []
    r = devplace.train(resnet, algorithm="learned", episodes=2, samples=4,
                       progress=lambda e: seen.append((e.episode, e.episodes, e.best_latency)))
    assert [(e, n) for e, n, _ in seen] == [(1, 2), (2, 2)]
    assert seen[1][2] <= seen[0][2]  # the best so far never gets worse
    assert r.evaluations == 2 * 4 + resnet.num_devices + 1
    assert r.best_sampled_latency <= r.policy_latency
    pg = devplace.train(resnet, algorithm="learned", episodes=2, samples=4, tuning="policy_gradient")
    assert pg.evaluations == r.evaluations and pg.best_sampled_latency <= pg.policy_latency
    with pytest.raises(devplace.Error, match="unknown tuning 'ppo'"):
        devplace.train(resnet, algorithm="learned", tuning="ppo")
    with pytest.raises(devplace.Error, match="hsdag, learned, rnn, hierarchical or placeto"):
        devplace.train(resnet, algorithm="gdp")


@pytest.mark.parametrize("algorithm", ["rnn", "hierarchical", "placeto"])
def test_train_the_learned_peers_with_progress(resnet, algorithm):
    seen = []
    r = devplace.train(resnet, algorithm=algorithm, episodes=2, samples=3, seed=2,
                       progress=lambda e: seen.append((e.episode, e.episodes)))
    assert seen == [(1, 2), (2, 2)] and r.episodes == 2
    # Each placement is what its latency says, and sampling saw at least 2 x 3 placements.
    assert r.policy_latency == pytest.approx(devplace.judge(resnet, r.policy).latency)
    assert r.best_sampled_latency == pytest.approx(devplace.judge(resnet, r.best_sampled).latency)
    assert r.evaluations >= 2 * 3


def test_placeto_policy_saved_from_python_places_zero_shot(resnet, tmp_path):
    path = str(tmp_path / "placeto.pt")
    trained = devplace.train(resnet, algorithm="placeto", episodes=2, samples=2, save_policy=path)
    assert devplace.place(resnet, "placeto", policy=path) == trained.policy  # zero-shot with the saved policy
    resumed = devplace.train(resnet, algorithm="placeto", episodes=1, samples=2, policy=path)
    assert resumed.episodes == 1
    with pytest.raises(devplace.Error, match="need hsdag, learned or placeto"):
        devplace.train(resnet, algorithm="rnn", episodes=1, save_policy=path)


def test_cost_table_is_a_read_only_view_that_keeps_its_workload():
    w = devplace.load("resnet50", cluster="paper")
    times = devplace.op_times(w)
    first = times.copy()
    assert not times.flags.writeable and not times.flags.owndata  # no copy: the library's memory
    with pytest.raises(ValueError):
        times[0, 0] = 1.0
    del w
    import gc
    gc.collect()
    assert numpy.array_equal(times, first)  # the view keeps the workload alive


def test_node_features_and_groups(resnet):
    features, blocks = devplace.node_features(resnet)
    assert features.shape == (resnet.num_ops, sum(width for _, width in blocks)) and features.dtype == numpy.float32
    assert [name for name, _ in blocks][:2] == ["op_type", "degree"] and blocks[-1][0] == "cost"
    groups = devplace.groups(resnet)
    per_group, _ = devplace.node_features(resnet, per_group=True)
    assert groups.shape == (resnet.num_ops,) and per_group.shape[0] == groups.max() + 1 < resnet.num_ops
    src, dst = devplace.edges(resnet)[0]
    assert (groups[src] <= groups[dst]).all()  # groups are numbered in a topological order
    # The op-type block of a group is the mean of its ops' one-hots: its rows sum to 1.
    assert numpy.allclose(per_group[:, :40].sum(axis=1), 1.0)


def test_environment_per_group(resnet):
    env = devplace.PlacementEnv(resnet, mode="group")
    obs, info = env.reset()
    assert info["node_features"].shape[0] == env.num_groups and info["groups"].shape == (resnet.num_ops,)
    times = devplace.op_times(resnet)
    steps, done = 0, False
    while not done:
        assert obs["group_times"] == pytest.approx(times[obs["group_ops"]].sum(axis=0))
        assert (obs["placement"][obs["group_ops"]] == -1).all()
        obs, reward, done, _, step_info = env.step(steps % 2)  # alternate devices group by group
        steps += 1
    assert steps == env.num_groups
    placement = numpy.array(step_info["placement"])
    assert (placement == info["groups"] % 2).all()  # every op went with its group
    assert reward == pytest.approx(info["reference_latency"] / devplace.judge(resnet, list(placement)).latency)
    with pytest.raises(devplace.Error):
        env.step(0)


def test_learned_moves_row_takes_a_move_policy_and_matches_the_cli(resnet, tmp_path):
    p = devplace.place(resnet, "learned-discrepancy-moves", budget=24,
                       move_policy=os.path.join(ROOT, "policies", "learned-moves.pt"))
    out = tmp_path / "cli.json"
    subprocess.run([CLI, "-q", "place", "resnet50", "--cluster", "paper", "--algo", "learned-discrepancy-moves",
                    "--budget", "24", "-o", str(out)], check=True, capture_output=True)
    assert devplace.read_placement(resnet, str(out)) == p
    with pytest.raises(Exception, match="not a move policy"):
        devplace.place(resnet, "learned-moves", move_policy=os.path.join(ROOT, "policies", "learned.pt"))
