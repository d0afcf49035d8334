#!/bin/bash
# The held-out table (docs/results/2026-12-04-held-out.md): every model of tests/data/zoo (never used to train, tune
# or choose anything) x {HEFT, local search at 64 / 2,000 / 20,000 evaluations, hsdag, lookahead and rollout (controls:
# the learned placer's decision rules alone), learned, learned-discrepancy-moves at 64}, seeds 1-3, on one cluster;
# evaluations as `compare` counts them.
# Usage: tools/held_out_table.sh OUT_DIR [CLUSTER]   (env: SEEDS="1 2 3", MODELS="a b", JOBS=2,
#   DEVPLACE_BIN, POLICY=FILE for the learned rows). Each (model, seed, budget) call writes one CSV
# under OUT_DIR/runs and is skipped when present, so deleting the hsdag files reruns only hsdag.
# Then prints the Markdown table (tools/held_out_table.py). About 40 minutes on 2 cores.
set -euo pipefail
O=$1 C=${2:-paper}
B=${DEVPLACE_BIN:-./build/devplace}
Z=$(dirname "$0")/../tests/data/zoo
SEEDS=${SEEDS:-1 2 3}
MODELS=${MODELS:-$(ls "$Z"/*.onnx | xargs -n1 basename | sed 's/\.onnx$//')}
P=()
[ -n "${POLICY:-}" ] && P=(--policy "$POLICY")
mkdir -p "$O/runs"
jobs_file=$(mktemp)
for m in $MODELS; do
  for s in $SEEDS; do
    echo "$m $s hsdag 0 hsdag" >> "$jobs_file"
    echo "$m $s fixed 0 heft,lookahead,rollout,learned" >> "$jobs_file"
    echo "$m $s b64 64 local-search,learned-discrepancy-moves" >> "$jobs_file"
    echo "$m $s b2000 2000 local-search" >> "$jobs_file"
    echo "$m $s b20000 20000 local-search" >> "$jobs_file"
  done
done
one() {  # MODEL SEED TAG BUDGET ALGOS
  local f="$O/runs/$1.s$2.$3.csv"
  [ -s "$f" ] && return 0
  local pol=()
  [[ $5 == *learned* ]] && pol=("${P[@]}")
  "$B" -q compare "$Z/$1.onnx" -c "$C" --algos "$5" --budget "$4" --seed "$2" "${pol[@]}" --csv |
    sed "1s/\$/,seed,budget/;2,\$s/\$/,$2,$4/" > "$f.tmp"
  mv "$f.tmp" "$f"
}
while read -r m s t b a; do
  while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-2}" ]; do wait -n; done
  one "$m" "$s" "$t" "$b" "$a" &
done < "$jobs_file"
wait
rm -f "$jobs_file"
python3 "$(dirname "$0")/held_out_table.py" "$O/runs" | tee "$O/table.md"
