#!/bin/bash
# The learned placer on calibrated execution models (docs/results/2026-12-04-learned-on-calibrated.md):
# every model of tests/data/zoo plus the three bundled ones, placed on two clusters whose execution
# model was fitted to real runs: the H200 (tests/data/execution/h200-async.toml with the model fitted
# to the Inception-V3 series, roofline op times) and this machine's two CPU workers
# (clusters/local2.toml with the model fitted to its Inception-V3 series). Rows: the single devices,
# HEFT, local search at 2,000 evaluations, `learned` (the policy's own placement, 0 evaluations) and
# learned-discrepancy-moves at 64; seed 1. POLICY=FILE places with another list policy,
# MOVE_POLICY=FILE with another move policy (default: the shipped ones for calibrated models).
# Usage: tools/calibrated_held_out.sh OUT_DIR   (about 3 minutes on 2 cores)
set -euo pipefail
O=$(realpath -m "$1")
B=${DEVPLACE_BIN:-./build/devplace}
E=tests/data/execution
cd "$(dirname "$0")/.."
mkdir -p "$O/runs"
P=()
[ -n "${POLICY:-}" ] && P=(--policy "$POLICY")
[ -n "${MOVE_POLICY:-}" ] && P+=(--move-policy "$MOVE_POLICY")
# An execution model alone (a cost table without op rows), so that any model can use it.
execution_only() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
json.dump({"format": j["format"], "execution": j["execution"]}, open(sys.argv[2], "w"), indent=1)' "$1" "$2"; }
execution_only $E/h200-async-inception_v3/calibrated.json "$O/h200.json"
"$B" -q calibrate inception_v3 -c clusters/local2.toml --costs $E/local2-inception_v3/costs.json \
  --measured $E/local2-inception_v3/run.json -o "$O/local2-inception_v3.json" >/dev/null
execution_only "$O/local2-inception_v3.json" "$O/local2.json"
one() {  # TAG CLUSTER MODEL
  local f="$O/runs/$1.$(basename "$3" .onnx).csv"
  [ -s "$f" ] && return 0
  local devices
  devices=$(grep -E '^name = "(cpu|gpu)' "$2" | sed 's/name = "\(.*\)"/\1-only/' | paste -sd,)
  { "$B" -q compare "$3" -c "$2" --costs "$O/$1.json" --algos "$devices,heft,local-search,learned" --budget 2000 \
      --seed 1 "${P[@]}" --csv
    "$B" -q compare "$3" -c "$2" --costs "$O/$1.json" --algos learned-discrepancy-moves --budget 64 --seed 1 \
      "${P[@]}" --csv | tail -n +2; } > "$f.tmp"
  mv "$f.tmp" "$f"
}
for m in tests/data/zoo/*.onnx resnet50 inception_v3 bert_base; do
  one h200 $E/h200-async.toml "$m" &
  one local2 clusters/local2.toml "$m"
  wait
done
python3 tools/calibrated_held_out.py "$O/runs" | tee "$O/table.md"
