#!/usr/bin/python3
"""devplace's executor against ONNX Runtime (CPU, the npm package onnxruntime-node) on the same
models, weights and inputs: numeric agreement, and speed at given thread counts with OpenBLAS's
kernel choice both forced and free, in the same minute.

For each model, `devplace run M -d cpu0 --write-model --write-inputs --output-dir` writes the model
with the weights devplace uses (seeded random ones where the bundled file is stripped), its inputs
and devplace's outputs; tools/onnxruntime_run.js runs ONNX Runtime on the same files. Outputs are
compared element-wise; then, for every environment setting and every thread count N in
`--threads`, `--rounds` rounds each time devplace (one cpu worker, `--threads N`, pinned to cores
0..N-1) and ONNX Runtime (N intra-op threads, `taskset -c 0-(N-1)`) back to back, `--runs`
inferences after `--warmup` each; the median of the round medians is reported, with devplace's
worst round p75 to show scatter. The settings are OPENBLAS_CORETYPE set to `--coretype` (as some
machines set it) and unset (OpenBLAS picks its own kernel); `--settings` narrows them.

    npm install --prefix ~/ort --ignore-scripts onnxruntime-node   # once
    tools/compare_onnxruntime.py --ort-dir ~/ort [--models resnet50 inception_v3 bert_base]
        [--threads 1 2] [--settings set unset] [--coretype Haswell]
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


def environment(a, setting):
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    if setting == "set":
        env["OPENBLAS_CORETYPE"] = a.coretype
    return env


def cores(threads):
    return f"0-{threads - 1}" if threads > 1 else "0"


def devplace_run(a, model, extra, threads=1, setting="set"):
    cmd = ["taskset", "-c", cores(threads), a.devplace, "-q", "run", model, "-c",
           os.path.join(ROOT, "clusters", "local2.toml"), "-d", "cpu0", "--threads", str(threads)]
    return run(cmd + extra, environment(a, setting))


def ort_run(a, model, inputs, extra, threads=1, setting="set"):
    env = dict(environment(a, setting), NODE_PATH=os.path.join(a.ort_dir, "node_modules"))
    cmd = ["taskset", "-c", cores(threads), "node", os.path.join(ROOT, "tools", "onnxruntime_run.js"), "--model",
           model, "--threads", str(threads)]
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
    ap.add_argument("--threads", nargs="+", type=int, default=[1], help="intra-op thread counts to time")
    ap.add_argument("--settings", nargs="+", choices=["set", "unset"], default=["set", "unset"],
                    help="OPENBLAS_CORETYPE set to --coretype, and/or unset")
    ap.add_argument("--coretype", default=os.environ.get("OPENBLAS_CORETYPE") or "Haswell")
    ap.add_argument("--no-speed", action="store_true")
    a = ap.parse_args()
    if min(a.threads) < 1 or max(a.threads) > os.cpu_count():
        sys.exit(f"compare_onnxruntime: --threads must be between 1 and the {os.cpu_count()} cores here")
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
            row["speed"] = []
            for setting in a.settings:
                for threads in a.threads:
                    dp_medians, dp_p75, ort_medians = [], [], []
                    for _ in range(a.rounds):
                        report = json.loads(devplace_run(a, model, ["--runs", str(a.runs), "--warmup", str(a.warmup),
                                                                    "--json"], threads, setting))
                        dp_medians.append(report["placements"][0]["median_ms"])
                        dp_p75.append(report["placements"][0]["p75_ms"])
                        ort_medians.append(ort_run(a, model, inputs, ["--runs", str(a.runs), "--warmup", str(a.warmup)],
                                                   threads, setting)["median_ms"])
                    row["speed"].append({"setting": setting, "threads": threads,
                                         "devplace_ms": statistics.median(dp_medians), "devplace_p75_ms": max(dp_p75),
                                         "ort_ms": statistics.median(ort_medians), "rounds": (dp_medians, ort_medians)})
        rows.append(row)
    print(f"ONNX Runtime {rows[0]['version']} (onnxruntime-node); devplace one cpu worker; both pinned to cores "
          f"0..N-1 for N threads; OPENBLAS_CORETYPE={a.coretype} where 'set'")
    print()
    print("| model | max abs diff | max diff / max abs |\n|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {r['max_abs']:.3g} | {r['max_rel']:.3g} |")
    if not a.no_speed:
        print()
        print("| model | OPENBLAS_CORETYPE | threads | devplace ms | devplace worst p75 ms | ONNX Runtime ms | ratio |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            for t in r["speed"]:
                print(f"| {r['model']} | {t['setting']} | {t['threads']} | {t['devplace_ms']:.1f} | "
                      f"{t['devplace_p75_ms']:.1f} | {t['ort_ms']:.1f} | {t['devplace_ms'] / t['ort_ms']:.2f}x |")
        print()
        for r in rows:
            for t in r["speed"]:
                dp, ort = t["rounds"]
                print(f"{r['model']} {t['setting']} {t['threads']} thread(s), round medians (ms): devplace "
                      f"{', '.join(f'{x:.1f}' for x in dp)}; ONNX Runtime {', '.join(f'{x:.1f}' for x in ort)}")
    if not ok:
        print("\nan output disagrees beyond the tolerance (rtol 1e-3, atol 1e-4 x max |output|)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
