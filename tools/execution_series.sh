#!/bin/bash
# The measured series the execution model is fitted to and judged on (docs/design/cost-model.md,
# "Execution model"): profile MODEL on CLUSTER, place it with the classical placers on the
# profiled costs, make 8 random placements, and run them all beside each device alone in one
# interleaved `run --json`. Run from the repository root after ./devplace.sh build.
# Usage: tools/execution_series.sh MODEL CLUSTER OUT_DIR [RUNS]   (writes OUT_DIR/costs.json,
# OUT_DIR/placements/*.json, OUT_DIR/run.json; about 40 s for ResNet-50 on local2 here).
# EXEC_ARGS (e.g. "--no-pin --threads 8") go to profile and run alike.
set -euo pipefail
M=$1 C=$2 D=$3 RUNS=${4:-10}
read -r -a X <<< "${EXEC_ARGS:-}"
B=${DEVPLACE_BIN:-./build/devplace}
mkdir -p "$D/placements"
$B -q profile "$M" -c "$C" -o "$D/costs.json" --runs 5 --fit 0 "${X[@]}"
for algo in heft m-topo m-etf m-sct metis round-robin; do
  $B -q place "$M" -c "$C" --costs "$D/costs.json" --algo $algo -o "$D/placements/$algo.json" >/dev/null
done
$B -q place "$M" -c "$C" --costs "$D/costs.json" --algo local-search --budget 2000 -o "$D/placements/local-search.json" >/dev/null
for s in 1 2 3 4 5 6 7 8; do
  $B -q place "$M" -c "$C" --costs "$D/costs.json" --algo random --seed $s -o "$D/placements/random$s.json" >/dev/null
done
args=()
for d in $(python3 -c "import tomllib,sys; print(' '.join(d['name'] for d in tomllib.load(open(sys.argv[1],'rb'))['devices']))" "$C"); do
  args+=(-d "$d")
done
for p in "$D"/placements/*.json; do args+=(-p "$p"); done
$B -q run "$M" -c "$C" --costs "$D/costs.json" "${args[@]}" "${X[@]}" --runs "$RUNS" --warmup 3 --json > "$D/run.json.tmp"
mv "$D/run.json.tmp" "$D/run.json"
echo "wrote $D/run.json ($(git rev-parse --short HEAD))"
