#!/usr/bin/python3
"""Summarises tools/held_out_table.sh's CSVs (one per model, seed and budget) as Markdown.

Usage: tools/held_out_table.py RUNS_DIR
Cells are simulated ms, median [min-max] over seeds; "evals" is the median number of reward
evaluations the row spent as `compare` counts them. "Best known" is the lowest latency any row
reached on that model (any method, any seed).
"""
import csv
import glob
import os
import statistics
import sys

COLUMNS = [("heft", "heft"), ("local-search@64", "local search 64"), ("local-search@2000", "local search 2,000"),
           ("local-search@20000", "local search 20,000"), ("hsdag", "hsdag"), ("lookahead", "lookahead (control)"),
           ("rollout", "rollout (control)"), ("learned", "learned"),
           ("learned-discrepancy-moves@64", "learned-discrepancy-moves 64")]
BUDGETED = {"local-search", "learned-discrepancy-moves"}


def load(folder):
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        with open(path) as f:
            for r in csv.DictReader(f):
                rows.append(r)
    return rows


def main():
    rows = load(sys.argv[1])
    cells, evals, best_single, best_known = {}, {}, {}, {}
    for r in rows:
        if r["latency_ms"] in ("", "error", "inf") or r["feasible"] != "1":
            continue
        m, a = r["model"], r["algorithm"]
        key = f"{a}@{r['budget']}" if a in BUDGETED else a
        lat = float(r["latency_ms"])
        cells.setdefault((m, key), []).append(lat)
        evals.setdefault((m, key), []).append(int(r["evaluations"]))
        sp = float(r["speedup_vs_best_single"])
        if sp > 0:  # the CSV rounds the speed-up to 4 decimals: the median of every row's product
            best_single.setdefault(m, []).append(lat * sp)
        best_known[m] = min(best_known.get(m, lat), lat)
    best_single = {m: statistics.median(v) for m, v in best_single.items()}
    models = sorted({m for m, _ in cells})
    med = lambda m, k: statistics.median(cells[(m, k)]) if (m, k) in cells else None
    print("| model | best single | " + " | ".join(title for _, title in COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 2) + "|")
    for m in models:
        out = [m, f"{best_single.get(m, float('nan')):.3f}"]
        for k, _ in COLUMNS:
            v = cells.get((m, k))
            if not v:
                out.append("-")
                continue
            s = f"{statistics.median(v):.3f}"
            if max(v) - min(v) > 5e-4:
                s += f" [{min(v):.3f}-{max(v):.3f}]"
            out.append(s)
        print("| " + " | ".join(out) + " |")
    print("| evaluations (median over models and seeds) | - | " + " | ".join(
        str(int(statistics.median([e for (mm, kk), es in evals.items() if kk == k for e in es])))
        if any(kk == k for (_, kk) in evals) else "-" for k, _ in COLUMNS) + " |")
    print()

    def summary(k, label):
        have = [m for m in models if med(m, k) is not None]
        if not have:
            return
        n = len(have)
        le_heft = sum(med(m, k) <= med(m, "heft") * (1 + 1e-9) for m in have if med(m, "heft"))
        worst_run = max(have, key=lambda m: max(cells[(m, k)]) / best_known[m])
        worst_run_gap = max(cells[(worst_run, k)]) / best_known[worst_run] - 1
        le_single = sum(med(m, k) <= best_single[m] * (1 + 1e-4) for m in have)  # within that rounding
        gaps = {m: med(m, k) / best_known[m] - 1 for m in have}
        ls = [med(m, k) / med(m, "local-search@20000") - 1 for m in have if med(m, "local-search@20000")]
        worst = max(gaps, key=gaps.get)
        print(f"- {label}: the medians at or below HEFT on {le_heft} of {n}, at or below the best single device on "
              f"{le_single} of {n}; within 5% of the best known on {sum(g <= 0.05 for g in gaps.values())}, "
              f"within 10% on {sum(g <= 0.10 for g in gaps.values())} (worst {worst} {100 * gaps[worst]:+.1f}%); "
              f"median vs local search at 20,000: {100 * statistics.median(ls):+.1f}%; "
              f"worst single run {worst_run} {100 * worst_run_gap:+.1f}% above the best known")

    for k, title in COLUMNS[1:]:  # HEFT is the first reference
        summary(k, title)


if __name__ == "__main__":
    main()
