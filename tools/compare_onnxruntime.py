#!/usr/bin/python3
"""devplace's executor against ONNX Runtime (CPU, the npm package onnxruntime-node) on the same
models, weights and inputs: numeric agreement, and speed on one thread, in the same minute.

For each model, `devplace run M -d cpu0 --write-model --write-inputs --output-dir` writes the model
with the weights devplace uses (seeded random ones where the bundled file is stripped), its inputs
and devplace's outputs; tools/onnxruntime_run.js runs ONNX Runtime on the same files. Outputs are
compared element-wise; then `--rounds` rounds each time devplace (one worker pinned to core 0) and
ONNX Runtime (one intra-op thread, `taskset -c 0`) back to back, `--runs` inferences after
`--warmup` each, and the median of the round medians is reported.

    npm install --prefix ~/ort --ignore-scripts onnxruntime-node   # once
    tools/compare_onnxruntime.py --ort-dir ~/ort [--models resnet50 inception_v3 bert_base]
        [--rounds 3 --runs 20 --warmup 5] [--out /tmp/devplace-ort] [--no-speed]

Prints a Markdown table; exits 1 when an output disagrees beyond the tolerance
(|devplace - ort| <= atol + rtol |ort|, rtol 1e-3, atol 1e-4 x max |ort|).
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys

import numpy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, env=None):
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"compare_onnxruntime: {' '.join(cmd)} failed:\n{done.stderr}")
    return done.stdout


def devplace_run(a, model, extra):
    return run([a.devplace, "-q", "run", model, "-c", os.path.join(ROOT, "clusters", "local2.toml"), "-d", "cpu0"] + extra)


def ort_run(a, model, inputs, extra):
    env = dict(os.environ, NODE_PATH=os.path.join(a.ort_dir, "node_modules"))
    cmd = ["taskset", "-c", "0", "node", os.path.join(ROOT, "tools", "onnxruntime_run.js"), "--model", model,
           "--threads", "1"]
    for path in inputs:
        cmd += ["--input", f"{os.path.splitext(os.path.basename(path))[0]}={path}"]
    return json.loads(run(cmd + extra, env).strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ort-dir", default=os.environ.get("ORT_DIR", os.path.expanduser("~/ort")),
                    help="where `npm install --ignore-scripts onnxruntime-node` was run")
    ap.add_argument("--devplace", default=os.path.join(ROOT, "build", "devplace"))
    ap.add_argument("--models", nargs="+", default=["resnet50", "inception_v3", "bert_base"])
    ap.add_argument("--out", default="/tmp/devplace-ort")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--no-speed", action="store_true")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.ort_dir, "node_modules", "onnxruntime-node")):
        sys.exit(f"compare_onnxruntime: no onnxruntime-node under {a.ort_dir} "
                 "(npm install --prefix DIR --ignore-scripts onnxruntime-node, then --ort-dir DIR)")
    rows, ok = [], True
    for name in a.models:
        out = os.path.join(a.out, name)
        model = os.path.join(out, "model.onnx")
        devplace_run(a, name, ["--runs", "1", "--warmup", "0", "--write-model", model, "--write-inputs",
                               os.path.join(out, "inputs"), "--output-dir", os.path.join(out, "devplace")])
        inputs = sorted(glob.glob(os.path.join(out, "inputs", "*.npy")))
        ort = ort_run(a, model, inputs, ["--runs", "1", "--warmup", "0", "--output-dir", os.path.join(out, "ort")])
        worst_abs = worst_rel = 0.0
        for path in sorted(glob.glob(os.path.join(out, "ort", "*.npy"))):
            want = numpy.load(path).astype(numpy.float64)
            got = numpy.load(os.path.join(out, "devplace", os.path.basename(path))).astype(numpy.float64)
            if got.shape != want.shape:
                sys.exit(f"{name}: output {os.path.basename(path)} has shape {got.shape}, ONNX Runtime {want.shape}")
            scale = float(numpy.abs(want).max()) or 1.0
            diff = float(numpy.abs(got - want).max())
            worst_abs, worst_rel = max(worst_abs, diff), max(worst_rel, diff / scale)
            ok &= bool(numpy.allclose(got, want, rtol=1e-3, atol=1e-4 * scale))
        row = {"model": name, "max_abs": worst_abs, "max_rel": worst_rel, "version": ort["version"]}
        if not a.no_speed:
            dp_medians, ort_medians = [], []
            for _ in range(a.rounds):
                report = json.loads(devplace_run(a, model, ["--runs", str(a.runs), "--warmup", str(a.warmup), "--json"]))
                dp_medians.append(report["placements"][0]["median_ms"])
                ort_medians.append(ort_run(a, model, inputs, ["--runs", str(a.runs), "--warmup", str(a.warmup)])["median_ms"])
            row["devplace_ms"], row["ort_ms"] = statistics.median(dp_medians), statistics.median(ort_medians)
            row["rounds"] = (dp_medians, ort_medians)
        rows.append(row)
    print(f"ONNX Runtime {rows[0]['version']} (onnxruntime-node), one thread; devplace one cpu worker pinned to core 0")
    print()
    if a.no_speed:
        print("| model | max abs diff | max diff / max abs |\n|---|---|---|")
        for r in rows:
            print(f"| {r['model']} | {r['max_abs']:.3g} | {r['max_rel']:.3g} |")
    else:
        print("| model | devplace ms | ONNX Runtime ms | ratio | max abs diff | max diff / max abs |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['model']} | {r['devplace_ms']:.1f} | {r['ort_ms']:.1f} | {r['devplace_ms'] / r['ort_ms']:.2f}x | "
                  f"{r['max_abs']:.3g} | {r['max_rel']:.3g} |")
        print()
        for r in rows:
            dp, ort = r["rounds"]
            print(f"{r['model']} round medians (ms): devplace {', '.join(f'{x:.1f}' for x in dp)}; "
                  f"ONNX Runtime {', '.join(f'{x:.1f}' for x in ort)}")
    if not ok:
        print("\nan output disagrees beyond the tolerance (rtol 1e-3, atol 1e-4 x max |output|)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
