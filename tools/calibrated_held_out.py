"""Markdown tables of tools/calibrated_held_out.sh from its per-run CSVs: per cluster, every model's
best single device, HEFT, local search, learned and learned-discrepancy-moves (ms, and above the
best any row found), then how many models the learned rows place within 5% / 10% of it, at or below
HEFT and at or below the best single device."""
import collections
import csv
import glob
import os
import sys


def main(argv):
    rows = collections.defaultdict(dict)
    for f in sorted(glob.glob(os.path.join(argv[1], "*.csv"))):
        tag, model = os.path.basename(f)[:-4].split(".", 1)
        for r in csv.DictReader(open(f)):
            rows[(tag, model)][r["algorithm"]] = float(r["latency_ms"]) if r["feasible"] == "1" else float("inf")
    learned = ["learned", "learned-discrepancy-moves"]
    for tag in sorted({t for t, _ in rows}):
        print(f"\n### {tag}\n")
        print("| model | best single device | heft | local search (2,000) | learned (0) | learned-discrepancy-moves (64) |")
        print("|---|---|---|---|---|---|")
        counts, n = collections.Counter(), 0
        for (t, m), r in sorted(rows.items()):
            if t != tag:
                continue
            n += 1
            single = min(v for k, v in r.items() if k.endswith("-only"))
            best = min(r.values())
            cell = lambda k: f"{r[k]:.3f} ({(r[k] / best - 1) * 100:+.1f}%)"
            print(f"| {m} | {single:.3f} | {cell('heft')} | {cell('local-search')} | {cell('learned')} | "
                  f"{cell('learned-discrepancy-moves')} |")
            for k in learned:
                counts[k, "5%"] += r[k] <= best * 1.05
                counts[k, "10%"] += r[k] <= best * 1.10
                counts[k, "heft"] += r[k] <= r["heft"] * (1 + 1e-9)
                counts[k, "single"] += r[k] <= single * (1 + 1e-9)
        print()
        for k in learned:
            print(f"- {k}: within 5% of the best found on {counts[k, '5%']}/{n}, within 10% on {counts[k, '10%']}/{n}, "
                  f"at or below HEFT on {counts[k, 'heft']}/{n}, at or below the best single device on "
                  f"{counts[k, 'single']}/{n}")


if __name__ == "__main__":
    main(sys.argv)
