#!/bin/bash
# The checks of docs/design/execution.md and docs/design/cost-model.md that need a CPU + GPU machine, in one
# script for a lent one (../shared/gpu/README.md builds devplace there first, into /tmp/build, and
# writes the cluster file h200.toml). docs/results/gpu-checks-2026-12-04.log logs its steps on one.
#   DEVPLACE_BIN=/tmp/build/devplace BUILD=/tmp/build CLUSTER=/path/h200.toml OUT=$OUT \
#     bash tools/gpu_execution_checks.sh
# Writes OUT/log.txt and, per model, OUT/MODEL/{costs.json,run.json,calibrated.json,chosen/*}.
set -uo pipefail
B=${DEVPLACE_BIN:-/tmp/build/devplace}
BUILD=${BUILD:-/tmp/build}
C=${CLUSTER:?the CPU + GPU cluster file}
O=${OUT:-/tmp/gpu-checks}
THREADS=${THREADS:-8}
mkdir -p "$O"
exec > >(tee "$O/log.txt") 2>&1
echo "# $(git rev-parse --short HEAD 2>/dev/null), $(date -u +%FT%TZ)"
# 1. The executor on the GPU: outputs of mixed placements against the CPU's, the measurement tests.
"$BUILD/exec_tests" --gtest_filter='*Cuda*:Measure*'
# 2. One crossing, 4 KiB to 16 MiB, both directions, as the executor makes it (async copies where
#    the build found CUDA: the label says which).
cmake --build "$BUILD" --target crossing_bench >/dev/null 2>&1 &&
  timeout 120 "$BUILD/crossing_bench" --benchmark_min_time=0.1 --benchmark_repetitions=3 --benchmark_report_aggregates_only
# 3. Per model: profile, placers, random placements, one interleaved run; the execution model fitted
#    on single devices and random placements predicts the placers'; the placers on the calibrated
#    table, measured beside GPU-only with their intervals.
for m in ${MODELS:-resnet50 inception_v3 bert_base}; do
  echo "## $m"
  DEVPLACE_BIN=$B EXEC_ARGS="--threads $THREADS" timeout 300 tools/execution_series.sh "$m" "$C" "$O/$m" 15
  timeout 120 "$B" calibrate "$m" -c "$C" --costs "$O/$m/costs.json" --measured "$O/$m/run.json" \
    -o "$O/$m/calibrated.json" --predict heft --predict local-search --predict m-topo --predict m-etf \
    --predict m-sct --predict metis --predict round-robin
  DEVPLACE_BIN=$B EXEC_ARGS="--threads $THREADS" timeout 300 tools/measure_calibrated_choices.sh "$m" "$C" \
    "$O/$m/calibrated.json" "$O/$m/chosen"
done
