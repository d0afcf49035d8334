#!/bin/bash
# The real-execution series of docs/results/2026-12-04-real-execution.md, on clusters/local2.toml (two single-thread CPU
# workers of this machine). Run from the repository root after ./devplace.sh build; prints a log
# (keep it: every figure in the docs comes from it). Takes about 5 minutes on 2 cores.
# Usage: tools/measure_local2.sh [OUT_DIR]   (default /tmp/devplace-measure)
set -euo pipefail
C=clusters/local2.toml
D=${1:-/tmp/devplace-measure}
B=./build/devplace
mkdir -p "$D"
source "$(dirname "$0")/log_step.sh"
echo "# devplace real-execution series, $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (uncommitted changes)'), $(nproc) cores"
for m in resnet50 inception_v3 bert_base; do
  # Simulator error on 5 random placements: with the roofline preset (the first device alone is
  # measured in the same rounds as a reference), then calibrated by the profile (the placements
  # are measured in the profile's own rounds, so both see the same machine).
  step $B run $m --cluster $C --random 5 --runs 5 --warmup 1
  step $B -q profile $m --cluster $C -o $D/$m.costs.json --validate 5
done
for m in inception_v3 bert_base; do
  step $B -q place $m --cluster $C --costs $D/$m.costs.json --algo local-search -o $D/$m.ls.json
  step $B -q place $m --cluster $C --costs $D/$m.costs.json --algo heft -o $D/$m.heft.json
  step $B -q train $m --cluster $C --costs $D/$m.costs.json -o $D/$m.hsdag.json
  # One worker against the placements over two, measured in rounds.
  step $B run $m --cluster $C --costs $D/$m.costs.json -d cpu0 -p $D/$m.heft.json -p $D/$m.ls.json \
    -p $D/$m.hsdag.json --runs 10 --warmup 5
done
echo
echo "# done $(date -u +%T)"
