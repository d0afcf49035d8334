#!/usr/bin/python3
"""Random cost graphs in the JSON form of Tarnawski et al.'s latency inputs (docs/design/tarnawski.md),
to choose settings of the learned placer's Tarnawski decoding on graphs other than the eight it
is reported on (tools/tarnawski_validation.sh).

    tools/tarnawski_random_graphs.py OUT_DIR [FIRST_SEED LAST_SEED]   (default seeds 1-12)

Even seeds give CNN-like graphs (a stem, then chains and Inception-like blocks of 2-4 parallel
branches joined by a cheap op; the tensors between them cost up to 20x a median op's CPU time to
move, less with depth), odd seeds transformer-like ones (chains and attention-like forks with a
residual edge; tensors cost about one op to move). Per graph: 100-400 nodes, an accelerator 3-30x
faster than the host (each node 0.5-2x that), transfers scaled by 0.1-10x, 4, 8 or 12
accelerators, each holding 1/2 to 1/6 of the weights. Deterministic for a seed.
"""
import json
import os
import random
import sys


def make(seed):
    r = random.Random(seed)
    nodes, edges = [], []
    speedup = r.choice([3, 5, 10, 20, 30])
    transfer = 10 ** r.uniform(-1, 1)

    def node(cpu_ms):
        i = len(nodes)
        nodes.append({"name": f"node{i}", "id": i, "supportedOnFpga": 1, "cpuLatency": cpu_ms,
                      "fpgaLatency": cpu_ms / speedup * r.uniform(0.5, 2), "isBackwardNode": False,
                      "colorClass": i, "layerId": i, "size": r.uniform(1e5, 5e7)})
        return i

    def edge(a, b, scale):
        edges.append({"sourceId": a, "destId": b, "cost": transfer * scale * r.uniform(0.3, 3), "size": 1e6})

    cnn = seed % 2 == 0
    last = node(r.uniform(1, 10))
    activation = 20.0  # CNN-like: large early tensors, smaller with depth
    size = r.randint(100, 400)
    while len(nodes) < size:
        if cnn and r.random() < 0.5:
            ends = []
            for _ in range(r.randint(2, 4)):
                x = last
                for _ in range(r.randint(1, 4)):
                    y = node(r.uniform(1, 10))
                    edge(x, y, activation)
                    x = y
                ends.append(x)
            join = node(r.uniform(0.2, 1))
            for x in ends:
                edge(x, join, activation)
            last = join
            activation = max(0.5, activation * r.uniform(0.7, 0.95))
        elif not cnn and r.random() < 0.5:
            a, b = node(r.uniform(1, 5)), node(r.uniform(1, 5))
            edge(last, a, 1)
            edge(last, b, 1)
            c = node(r.uniform(0.5, 2))
            edge(a, c, 1)
            edge(b, c, 1)
            d = node(r.uniform(1, 5))
            edge(c, d, 1)
            edge(last, d, 1)  # the residual
            last = d
        else:
            y = node(r.uniform(1, 10))
            edge(last, y, activation if cnn else 1)
            last = y
    weights = sum(n["size"] for n in nodes)
    return {"maxSizePerFPGA": weights / r.uniform(2, 6), "maxFPGAs": r.choice([4, 8, 12]), "maxCPUs": 8,
            "nodes": nodes, "edges": edges}


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__)
    out = sys.argv[1]
    try:
        first, last = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) == 4 else (1, 12)
    except ValueError:
        sys.exit(f"tarnawski_random_graphs.py: seeds must be integers, got {sys.argv[2]!r} {sys.argv[3]!r}")
    os.makedirs(out, exist_ok=True)
    for seed in range(first, last + 1):
        path = os.path.join(out, f"random{seed}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(make(seed), f)
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
