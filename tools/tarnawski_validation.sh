#!/bin/bash
# Held-out check of the learned placer under Tarnawski et al.'s latency model: twelve random cost
# graphs in their form (tools/tarnawski_random_graphs.py, seeds 1-12, never in any corpus nor in
# the docs' tables), learned-discrepancy at 64 and 2,000 evaluations against tarnawski-dp. Prints
# one line per graph and the geometric mean of the ratio to the DP. Choose decoding settings here,
# then report them on the eight graphs of docs/results/2026-12-04-learned-placer.md. Extra arguments go to `devplace
# compare` (e.g. --policy FILE); DEVPLACE=path runs another binary; BUDGETS="250 500 1000" other
# budgets; ALGO=NAME another placer (e.g. learned-discrepancy-segments, segment-search);
# SEEDS="13 36" the generator's seeds 13-36 instead (the second validation set). Run from the
# repository root after a build; about 35 s here for twelve graphs.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${DEVPLACE:-build/devplace}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
read -r FIRST LAST <<< "${SEEDS:-1 12}"
/usr/bin/python3 tools/tarnawski_random_graphs.py "$D" "$FIRST" "$LAST"
for s in $(seq "$FIRST" "$LAST"); do
  f=$D/random$s.json
  dp=$($B -q compare "$f" --objective tarnawski --algos tarnawski-dp --csv | tail -1 | cut -d, -f4)
  row="random$s $dp"
  for b in ${BUDGETS:-64 2000}; do
    row="$row $($B -q compare "$f" --objective tarnawski --budget $b --algos "${ALGO:-learned-discrepancy}" "$@" --csv |
      tail -1 | cut -d, -f4)"
  done
  echo "$row"
done | /usr/bin/python3 -c '
import math, os, sys
algo = os.environ.get("ALGO", "learned-discrepancy")
budgets = sys.argv[1:]
rows = [line.split() for line in sys.stdin]
print("graph      tarnawski-dp  " + "".join("  " + f"{algo} ({b})".rjust(24) for b in budgets))
logs = [0.0] * len(budgets); near = [0] * len(budgets)
for name, dp, *found in rows:
    dp = float(dp)
    cells = []
    for k, x in enumerate(map(float, found)):
        logs[k] += math.log(x / dp); near[k] += x <= 1.05 * dp
        cells.append(f"{x:12.3f} ({x / dp - 1:+6.1%})")
    print(f"{name:10s} {dp:12.3f}  " + "".join(f"  {c:>24s}" for c in cells))
for k, b in enumerate(budgets):
    print(f"at {b}: geometric mean {math.exp(logs[k] / len(rows)) - 1:+.1%} over the DP, within 5% on {near[k]} of {len(rows)}")
' ${BUDGETS:-64 2000}
