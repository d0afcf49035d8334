#!/usr/bin/python3
"""Trains a small PyTorch policy on devplace.PlacementEnv by REINFORCE and compares it with its
untrained self, a uniformly random policy and HEFT.

    PYTHONPATH=build/python python3 python/examples/train_env_policy.py [--model resnet50]
        [--cluster paper] [--episodes 60] [--batch 8] [--seed 1]

The policy scores every device's feature row with one shared network (so it works for any
number of devices) and samples among the allowed devices; the greedy policy takes the best
score. The reward is the speed-up over the best single device, with the batch's mean as baseline.
"""
import argparse

import numpy
import torch

import devplace


def rollout(env, net, greedy, generator):
    obs, _ = env.reset()
    log_probs = []
    done = False
    while not done:
        scores = net(torch.from_numpy(obs["features"])).squeeze(-1)
        scores = scores.masked_fill(~torch.from_numpy(obs["allowed"]), -1e9)
        dist = torch.distributions.Categorical(logits=scores)
        action = scores.argmax() if greedy else dist.sample()
        log_probs.append(dist.log_prob(action))
        obs, reward, done, _, info = env.step(int(action))
    return reward, info["latency"], torch.stack(log_probs).sum()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="resnet50")
    ap.add_argument("--cluster", default="paper")
    ap.add_argument("--episodes", type=int, default=60, help="updates")
    ap.add_argument("--batch", type=int, default=8, help="episodes per update")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    generator = torch.Generator().manual_seed(a.seed)
    w = devplace.load(a.model, cluster=a.cluster)
    env = devplace.PlacementEnv(w)
    net = torch.nn.Sequential(torch.nn.Linear(devplace.ScheduleEnv.num_features, 32), torch.nn.Tanh(),
                              torch.nn.Linear(32, 1))
    with torch.no_grad():
        _, untrained, _ = rollout(env, net, True, generator)
    rng = numpy.random.default_rng(a.seed)
    random_latency = []
    for _ in range(a.batch):
        obs, _ = env.reset()
        done = False
        while not done:
            obs, _, done, _, info = env.step(int(rng.choice(numpy.flatnonzero(obs["allowed"]))))
        random_latency.append(info["latency"])
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    for update in range(a.episodes):
        batch = [rollout(env, net, False, generator) for _ in range(a.batch)]
        rewards = torch.tensor([r for r, _, _ in batch])
        advantage = rewards - rewards.mean()
        loss = -(advantage * torch.stack([lp for _, _, lp in batch])).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        _, trained, _ = rollout(env, net, True, generator)
    heft = devplace.judge(w, devplace.place(w, "heft")).latency
    evaluations = a.episodes * a.batch + 2
    print(f"{w.model_name} on {w.cluster_name}: {a.episodes} updates x {a.batch} episodes ({evaluations} evaluations)")
    print(f"  untrained policy (greedy) {untrained * 1e3:.3f} ms")
    print(f"  trained policy (greedy)   {trained * 1e3:.3f} ms")
    print(f"  random policy (median of {a.batch}) {numpy.median(random_latency) * 1e3:.3f} ms")
    print(f"  HEFT                      {heft * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
