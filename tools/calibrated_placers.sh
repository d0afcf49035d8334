#!/bin/bash
# What the placers choose once the simulator predicts real runs (docs/results/2026-12-04-real-execution.md, "Execution
# model"): for the shared H200 machine (../shared/data/h200-2026-12-04) and this machine's local2
# series (tests/data/execution), fit the execution model to each run's single devices and random
# placements (`devplace calibrate`, the placers' own rows held out), then run the placers on the
# calibrated table. Run from the repository root after ./devplace.sh build.
# Usage: tools/calibrated_placers.sh [OUT_DIR]   (default /tmp/devplace-calibrated; about 1 minute)
set -euo pipefail
D=${1:-/tmp/devplace-calibrated}
B=${DEVPLACE_BIN:-./build/devplace}
H=../shared/data/h200-2026-12-04
mkdir -p "$D"
hold=(--predict heft --predict local-search --predict learned --predict m-topo --predict m-etf --predict m-sct
  --predict metis --predict round-robin)
echo "# calibrated placers, $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (uncommitted changes)')"
run() {  # NAME MODEL CLUSTER COSTS RUN_JSON DEVICES
  local name=$1 m=$2 c=$3 costs=$4 measured=$5 devices=$6
  echo; echo "## $name $m"
  $B -q calibrate "$m" -c "$c" --costs "$costs" --measured "$measured" -o "$D/$name-$m.json" "${hold[@]}"
  $B -q compare "$m" -c "$c" --costs "$D/$name-$m.json" --budget 2000 --seed 1 \
    --algos "$devices,random,m-topo,m-etf,m-sct,metis,heft,local-search,learned,learned-discrepancy-moves"
}
for m in resnet50 inception_v3 bert_base; do
  run h200 $m $H/h200.toml $H/$m/costs.json $H/$m/run.json cpu0-only,gpu0-only
done
for m in resnet50 inception_v3; do
  run local2 $m clusters/local2.toml tests/data/execution/local2-$m/costs.json tests/data/execution/local2-$m/run.json \
    cpu0-only,cpu1-only
done
