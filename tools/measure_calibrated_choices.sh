#!/bin/bash
# Measures what the placers chose on a calibrated table (tools/calibrated_placers.sh) on this
# machine, beside each device alone, in one interleaved run: the simulator's prediction of a
# placement no fit saw, and whether it is really faster (run prints the 95% interval against the
# best single device). Usage: tools/measure_calibrated_choices.sh MODEL CLUSTER CALIBRATED.json OUT_DIR
set -euo pipefail
M=$1 C=$2 T=$3 D=$4
B=${DEVPLACE_BIN:-./build/devplace}
read -r -a X <<< "${EXEC_ARGS:---no-pin}"
mkdir -p "$D"
args=()
for d in $(python3 -c "import tomllib,sys; print(' '.join(d['name'] for d in tomllib.load(open(sys.argv[1],'rb'))['devices']))" "$C"); do
  args+=(-d "$d")
done
for a in heft local-search learned learned-discrepancy-moves; do
  $B -q place "$M" -c "$C" --costs "$T" --algo $a --budget 2000 --keep-placement -o "$D/$a.json" >/dev/null
  args+=(-p "$D/$a.json")
done
$B run "$M" -c "$C" --costs "$T" "${args[@]}" "${X[@]}" --runs 15 --warmup 3
