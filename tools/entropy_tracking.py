#!/usr/bin/python3
"""How closely HSDAG's entropy followed its target, from training logs (`devplace train --log F`).

Usage: tools/entropy_tracking.py [--episodes 1000] [--share 0.6] LOG.csv...
The default preset's target falls linearly from the first episode's entropy per decision to 0
over `share` of the run (as EntropyBonus: 0-based episode i of `episodes` is at
i / (share * (episodes - 1)); `episodes` is the configured run length, not the episodes a
settled run used). Per log, over episodes 50 to 90% of the target's end (where the target is
well above 0): the least and most entropy / target, and the share of those episodes below a
tenth of the target.
"""
import argparse
import csv
import os


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--episodes", type=int, default=1000)
    ap.add_argument("--share", type=float, default=0.6)
    a = ap.parse_args()
    end = a.episodes * a.share
    print("| log | episodes run | least entropy / target | most | share below 0.1x |")
    print("|---|---|---|---|---|")
    for path in a.logs:
        with open(path) as f:
            rows = list(csv.DictReader(f))
        if not rows:
            continue
        first = float(rows[0]["entropy"])
        ratios = []
        for r in rows:
            episode = int(r["episode"])
            if 50 <= episode < 0.9 * end:
                progress = (episode - 1) / (a.share * (a.episodes - 1))
                ratios.append(float(r["entropy"]) / (first * (1 - progress)))
        if not ratios:
            continue
        below = sum(q < 0.1 for q in ratios) / len(ratios)
        print(f"| {os.path.basename(path)} | {len(rows)} | {min(ratios):.4f} | {max(ratios):.2f} | {below:.2f} |")


if __name__ == "__main__":
    main()
