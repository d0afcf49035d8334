#!/usr/bin/python3
"""Episode throughput of devplace.PlacementEnv (Python, random allowed actions) against the C++
side stepping the same decision process (devplace.random_episodes_per_second), in one run.

    PYTHONPATH=build/python python3 python/examples/bench_env.py [--model bert_base] [--episodes 20]
"""
import argparse
import time

import numpy

import devplace


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="bert_base")
    ap.add_argument("--cluster", default="paper")
    ap.add_argument("--episodes", type=int, default=20)
    a = ap.parse_args()
    w = devplace.load(a.model, cluster=a.cluster)
    env = devplace.PlacementEnv(w)
    rng = numpy.random.default_rng(1)
    steps = 0
    t0 = time.perf_counter()
    for _ in range(a.episodes):
        obs, _ = env.reset()
        done = False
        while not done:
            obs, _, done, _, _ = env.step(int(rng.choice(numpy.flatnonzero(obs["allowed"]))))
            steps += 1
    py_seconds = time.perf_counter() - t0
    cpp_steps, cpp_episodes = devplace.random_episodes_per_second(w, a.episodes)
    py_steps = steps / py_seconds
    print(f"{w.model_name} on {w.cluster_name}: {steps // a.episodes} steps per episode, {a.episodes} episodes each")
    print(f"  Python env: {py_steps:,.0f} steps/s, {a.episodes / py_seconds:.2f} episodes/s")
    print(f"  C++ env:    {cpp_steps:,.0f} steps/s, {cpp_episodes:.2f} episodes/s")
    print(f"  Python overhead per step: {(1 / py_steps - 1 / cpp_steps) * 1e6:.1f} us ({cpp_steps / py_steps:.1f}x)")


if __name__ == "__main__":
    main()
