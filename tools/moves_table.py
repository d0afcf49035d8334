#!/usr/bin/env python3
"""Prints the learned-moves zero-shot table of docs/results/2026-12-04-learned-placer.md from tools/evaluate_moves.sh's CSV.

usage: tools/moves_table.py MOVES.csv [LEARNED.md]

Best known per graph and cluster = the lower of the zero-shot table's "best known" column in
docs/results/2026-12-04-learned-placer.md (local search at 200,000 evaluations and every row that table found; its rows
come in the order tools/evaluate_moves.sh places them) and any latency in MOVES.csv. Learned
rows: median [min-max] over the pretraining seeds present.
"""
import csv
import statistics
import sys

ALGOS = ["heft", "local-search", "learned", "learned-discrepancy", "learned-moves", "learned-discrepancy-moves"]


def documented_best_known(path):
    """The "best known" column of the zero-shot table, in its row order."""
    out, header = [], None
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("| graph | cluster | single GPU"):
                header = cells
                continue
            if header and line.startswith("|---"):
                continue
            if header and line.startswith("|"):
                out.append(float(cells[header.index("best known")]))
            elif header:
                break
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        moves = list(csv.DictReader(f))
    documented = documented_best_known(argv[2] if len(argv) > 2 else "docs/results/2026-12-04-learned-placer.md")
    table, order = {}, []
    for r in moves:
        key = (r["graph"], r["cluster"])
        if key not in table:
            table[key] = {}
            order.append(key)
        lat = float(r["latency_ms"]) if r["feasible"] == "1" else float("inf")
        table[key].setdefault(r["algorithm"], []).append(lat)
    if len(documented) != len(order):
        print(f"docs table has {len(documented)} rows, the CSV {len(order)} pairs", file=sys.stderr)
        return 1
    print("| graph | cluster | " + " | ".join(ALGOS) + " | best known | discrepancy / discrepancy-moves vs best |")
    print("|---|---|" + "---|" * (len(ALGOS) + 2))
    within = {a: 0 for a in ALGOS}
    for key, doc_best in zip(order, documented):
        med = {a: statistics.median(table[key][a]) for a in ALGOS if a in table[key]}
        best = min([doc_best] + [min(v) for v in table[key].values()])
        for a, v in med.items():
            within[a] += v <= 1.05 * best
        d, dm = med["learned-discrepancy"] / best - 1, med["learned-discrepancy-moves"] / best - 1
        def cell(a):
            v = table[key].get(a, [float("nan")])
            spread = f" [{min(v):.3f}-{max(v):.3f}]" if len(v) > 1 and min(v) != max(v) else ""
            return f"{med.get(a, float('nan')):.3f}{spread}"
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cell(a) for a in ALGOS)
              + f" | {best:.3f} | {100 * d:+.1f}% / {100 * dm:+.1f}% |")
    print()
    print("within 5% of the best known: " + ", ".join(f"{a} {within[a]} of {len(order)}" for a in ALGOS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
