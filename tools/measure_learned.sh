#!/bin/bash
# The measured-reward comparison of docs/results/2026-12-04-learned-placer.md, on clusters/local2.toml (two single-thread
# CPU workers of this machine): per model, HSDAG from scratch at the paper's budget (483 measured
# placements) against devplace's learned placer fine-tuned from a fold policy that never saw the
# model, with 63 measured placements; both end with train's confirmation (the 5 best measured
# again) and write their best placement; then one worker against both, measured in ROUNDS rounds
# (default 3) of 10 runs each. Prints a log (keep it: every figure in the docs comes from it).
# Usage: POLICIES=DIR tools/measure_learned.sh [OUT_DIR]   (DIR holds fold<F>-s1.pt from
# tools/evaluate_learned.sh; default /tmp/devplace-learned). Run from the repository root after
# ./devplace.sh build, on an otherwise idle machine; about 15 minutes here.
set -euo pipefail
C=clusters/local2.toml
D=${1:-/tmp/devplace-measure-learned}
POLICIES=${POLICIES:-/tmp/devplace-learned}
ROUNDS=${ROUNDS:-3}
B=./build/devplace
mkdir -p "$D"
source "$(dirname "$0")/log_step.sh"
echo "# devplace measured-reward comparison, $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (uncommitted changes)'), $(nproc) cores"
# The fold (tools/evaluate_learned.sh) whose policy never saw the model.
declare -A FOLD=([resnet50]=1 [inception_v3]=1 [bert_base]=2)
for m in ${MODELS:-inception_v3 resnet50 bert_base}; do
  step $B -q profile $m --cluster $C -o $D/$m.costs.json
  step $B -q train $m --cluster $C --costs $D/$m.costs.json --reward measured \
    --episodes 60 --samples 8 --runs 1 --warmup 0 -o $D/$m.hsdag.json
  step $B -q train $m --cluster $C --costs $D/$m.costs.json --algo learned \
    --policy "$POLICIES/fold${FOLD[$m]}-s1.pt" --reward measured --episodes 3 --samples 20 --runs 1 --warmup 0 \
    -o $D/$m.learned.json
  for r in $(seq "$ROUNDS"); do
    step $B run $m --cluster $C -d cpu0 -p $D/$m.hsdag.json -p $D/$m.learned.json --runs 10 --warmup 3
  done
done
echo
echo "# done $(date -u +%T)"
