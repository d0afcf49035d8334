#!/usr/bin/python3
"""Episode throughput of devplace.PlacementEnv against the C++ side, in one run:

1. the environment alone: Python (random allowed actions) against the C++ side stepping the same
   decision process (devplace.random_episodes_per_second);
2. a whole training loop: REINFORCE in Python on the environment (a 23-64-64-1 scorer per device,
   as devplace's learned placer, one forward per step, a backward pass per update) against the C++
   trainer fine-tuning the learned placer by policy gradient too (devplace.train(algorithm="learned",
   tuning="policy_gradient"): rollouts in lockstep, one batched update), in decisions per second.

    PYTHONPATH=build/python python3 python/examples/bench_env.py [--model bert_base] [--episodes 20]
        [--updates 3] [--samples 8]
"""
import argparse
import time

import numpy
import torch

import devplace


def python_training_steps_per_second(env, updates, samples):
    """REINFORCE on the environment, as a researcher would write it: decisions per second."""
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(devplace.ScheduleEnv.num_features, 64), torch.nn.Tanh(),
                              torch.nn.Linear(64, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    steps = 0
    t0 = time.perf_counter()
    for _ in range(updates):
        rewards, log_probs = [], []
        for _ in range(samples):
            obs, _ = env.reset()
            done, logp = False, []
            while not done:
                scores = net(torch.from_numpy(obs["features"])).squeeze(-1)
                scores = scores.masked_fill(~torch.from_numpy(obs["allowed"]), -1e9)
                dist = torch.distributions.Categorical(logits=scores)
                action = dist.sample()
                logp.append(dist.log_prob(action))
                obs, reward, done, _, _ = env.step(int(action))
                steps += 1
            rewards.append(reward)
            log_probs.append(torch.stack(logp).sum())
        advantage = torch.tensor(rewards) - sum(rewards) / len(rewards)
        loss = -(advantage * torch.stack(log_probs)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return steps / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="bert_base")
    ap.add_argument("--cluster", default="paper")
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--updates", type=int, default=3, help="training loops: policy updates")
    ap.add_argument("--samples", type=int, default=8, help="training loops: episodes per update")
    a = ap.parse_args()
    torch.set_num_threads(1)  # as the C++ trainer, which runs LibTorch on one thread
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
    decisions = devplace.ScheduleEnv(w).num_decisions
    py_train = python_training_steps_per_second(env, a.updates, a.samples)
    summary = devplace.train(w, algorithm="learned", episodes=a.updates, samples=a.samples, tuning="policy_gradient")
    cpp_train = a.updates * a.samples * decisions / summary.seconds
    print(f"Training loops, {a.updates} updates of {a.samples} episodes ({decisions} decisions each):")
    print(f"  Python REINFORCE on the env:     {py_train:,.0f} decisions/s")
    print(f"  C++ trainer (algorithm=learned): {cpp_train:,.0f} decisions/s ({cpp_train / py_train:.1f}x)")


if __name__ == "__main__":
    main()
