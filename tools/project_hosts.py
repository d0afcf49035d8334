#!/usr/bin/python3
"""Simulated projection of a placed model on 1-64 hosts (docs/design/distributed.md).

    tools/project_hosts.py COSTS.json MODEL [HOSTS]   (HOSTS default 1,2,4,8,16,32,64)

COSTS.json comes from `devplace profile MODEL --cluster clusters/local2.toml --world-size 2` (op
times measured on cpu0, the link between two processes measured and fitted, the crossing overhead
included). Every host is one such CPU worker in a process of its own; every pair of hosts is joined
by a link with (a) the measured loopback figures, (b) 25 GbE line rate (3.125 GB/s) or (c) 100 GbE
(12.5 GB/s), each with the measured per-tensor latency (the overhead of a crossing is on the
hosts: waking threads, copying bytes) plus 10 us on the wire, and (d) 100 GbE with an assumed 50
us per tensor (hosts with spare cores whose receiving threads need not sleep). HEFT and local search (2,000
evaluations, seed 1) place the model on each; prints a Markdown table of simulated latencies.
Environment: DEVPLACE (default build/devplace).
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def cluster_toml(n):
    lines = [f'name = "hosts{n}"', f'description = "{n} single-core CPU hosts, one process each"']
    if n > 1:  # before the devices: a key after [[devices]] would belong to the last device
        lines.append("default_link = { bandwidth_gbs = 1, latency_us = 100 }")
    for h in range(n):
        lines += ["[[devices]]", f'name = "host{h}"', 'kind = "cpu"', 'worker = "cpu:0"', f"rank = {h}",
                  "peak_tflops = 0.078", "mem_bandwidth_gbs = 10"]
    return "\n".join(lines) + "\n"


def cost_table(base, n, latency_us, bandwidth_gbs):
    ops = {op: {f"host{h}": row["cpu0"] for h in range(n)} for op, row in base["ops"].items()}
    links = [{"from": f"host{a}", "to": f"host{b}", "latency_us": latency_us, "bandwidth_gbs": bandwidth_gbs}
             for a in range(n) for b in range(n) if a != b]
    return {"format": "devplace-costs", "unit": "s", "ops": ops, "transfers": base.get("transfers", {}),
            "links": links}


def placed_latency(devplace, model, cluster, costs, algo):
    args = [devplace, "-q", "place", model, "--cluster", cluster, "--costs", costs, "--algo", algo]
    if algo == "local-search":
        args += ["--budget", "2000", "--seed", "1"]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(run.stderr)
    out = run.stdout
    return float(re.search(r"latency ([0-9.]+) ms", out).group(1))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    base = json.load(open(sys.argv[1]))
    model = sys.argv[2]
    hosts = [int(h) for h in (sys.argv[3] if len(sys.argv) > 3 else "1,2,4,8,16,32,64").split(",")]
    devplace = os.environ.get("DEVPLACE", "build/devplace")
    link = base["links"][0]
    wire_us = 10.0
    scenarios = [("measured loopback", link["latency_us"], link["bandwidth_gbs"]),
                 ("25 GbE", link["latency_us"] + wire_us, 3.125),
                 ("100 GbE", link["latency_us"] + wire_us, 12.5),
                 ("100 GbE, 50 us per tensor (assumed)", 50.0, 12.5)]
    print(f"{model}, per-tensor latency {link['latency_us']:.0f} us measured (+{wire_us:.0f} us wire for Ethernet)")
    print()
    print("| hosts | link | HEFT (ms) | local search, 2,000 evals (ms) | speed-up over 1 host |")
    print("|---|---|---|---|---|")
    one = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in hosts:
            cluster = os.path.join(tmp, f"hosts{n}.toml")
            open(cluster, "w").write(cluster_toml(n))
            for name, latency, bandwidth in scenarios if n > 1 else scenarios[:1]:
                costs = os.path.join(tmp, f"costs{n}.json")
                json.dump(cost_table(base, n, latency, bandwidth), open(costs, "w"))
                heft = placed_latency(devplace, model, cluster, costs, "heft")
                ls = placed_latency(devplace, model, cluster, costs, "local-search")
                best = min(heft, ls)
                one = one or best
                print(f"| {n} | {name if n > 1 else '-'} | {heft:.1f} | {ls:.1f} | {one / best:.2f}x |")


if __name__ == "__main__":
    main()
