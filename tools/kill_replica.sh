#!/bin/bash
# The fault series of docs/design/distributed.md: measured-reward HSDAG training on ResNet-50 with two
# replicas, one killed (SIGKILL) mid-training: its placement is measured again on the other and
# training finishes. Then one replica, killed: training stops with a checkpoint, and --resume
# with a fresh replica finishes the run. Run from the repository root after ./devplace.sh build.
# Usage: tools/kill_replica.sh [OUT_DIR]   (default /tmp/devplace-faults)
set -uo pipefail
D=${1:-/tmp/devplace-faults}
B=./build/devplace
PORT=${PORT:-29950}
T="-q train resnet50 --cluster clusters/local2.toml --reward measured --episodes 6 --samples 8 --timeout 10"
mkdir -p "$D"
rm -rf "$D/checkpoint"
echo "# devplace fault series, $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (uncommitted changes)'), $(nproc) cores"
# Starts replica ranks 1..count of a group of count + 1 on a new port; their pids in $PIDS.
replicas() {
  PORT=$((PORT + 1))
  PIDS=()
  for r in $(seq 1 "$1"); do
    $B -q worker --rank "$r" --world-size $(($1 + 1)) --master-port $PORT --timeout 10 > /dev/null 2>&1 &
    PIDS+=($!)
  done
}
# Kills the replica `pid` after `seconds`, saying when.
kill_after() {
  sleep "$2"
  kill -9 "$1" && echo "## $(date -u +%T.%3N) killed replica pid $1"
}
stamp() { echo "## $(date -u +%T.%3N) $*"; }

echo; echo "# Two replicas, one killed after 8 s"
replicas 2
kill_after "${PIDS[1]}" 8 &
stamp "train --replicas 2"
$B $T --replicas 2 --master-port $PORT 2>&1
stamp "exit status $?"
wait

echo; echo "# One replica, killed after 8 s"
replicas 1
kill_after "${PIDS[0]}" 8 &
stamp "train --replicas 1 --checkpoint"
$B $T --replicas 1 --master-port $PORT --checkpoint "$D/checkpoint" 2>&1
stamp "exit status $?"
wait
replicas 1
stamp "train --replicas 1 --checkpoint --resume (a fresh replica)"
$B $T --replicas 1 --master-port $PORT --checkpoint "$D/checkpoint" --resume 2>&1
stamp "exit status $?"
wait
