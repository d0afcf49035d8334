#!/bin/bash
# The multi-process series of docs/design/distributed.md on 127.0.0.1: clusters/local2.toml with cpu0 in
# rank 0 and cpu1 in a `devplace worker` (rank 1). Per bundled model: `profile --world-size 2`
# (op costs, the link between the processes, the calibrated simulator's error on 5 random
# placements run across the processes), then HEFT and local search placed on that table and run
# across the processes (measured against simulated, outputs against one process). Then
# measured-reward training on 1 and 2 replicas, real and with --fake-measure-ms. Run from the
# repository root after ./devplace.sh build; prints a log. About 10 minutes on 2 cores.
# Usage: tools/measure_distributed.sh [OUT_DIR]   (default /tmp/devplace-distributed)
set -euo pipefail
C=clusters/local2.toml
D=${1:-/tmp/devplace-distributed}
B=./build/devplace
PORT=${PORT:-29900}
mkdir -p "$D"
source "$(dirname "$0")/log_step.sh"
# Starts `count` workers of a new group (world size count + 1); its flags for rank 0 in $G.
workers() {
  PORT=$((PORT + 1))
  G="--world-size $(($1 + 1)) --master-port $PORT --timeout 60"
  for r in $(seq 1 "$1"); do $B -q worker --rank "$r" $G > "$D/worker.$PORT.$r.log" 2>&1 & done
}
echo "# devplace multi-process series, $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (uncommitted changes)'), $(nproc) cores"
for m in resnet50 inception_v3 bert_base; do
  workers 1
  step $B -q profile $m --cluster $C --device-ranks 0,1 -o $D/$m.costs.json --validate 5 $G
  wait
  for a in heft local-search; do
    step $B -q place $m --cluster $C --costs $D/$m.costs.json --algo $a -o $D/$m.$a.json
    workers 1
    step $B -q run $m --cluster $C --costs $D/$m.costs.json -p $D/$m.$a.json --device-ranks 0,1 --runs 10 --warmup 2 $G
    wait
  done
done
# Measured-reward training: one replica against two (each replica a worker process with both of
# local2's devices; on 2 cores two replicas share the cores), and the same with measurements
# that take 100 ms without using the cores (--fake-measure-ms).
for fake in 0 100; do
  for r in 1 2; do
    workers $r
    step $B -q train resnet50 --cluster $C --reward measured --episodes 5 --samples 8 --fake-measure-ms $fake \
      ${G/--world-size $((r + 1))/--replicas $r}
    wait
  done
done
echo
echo "# done $(date -u +%T)"
