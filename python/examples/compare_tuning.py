#!/usr/bin/python3
"""Fine-tuning the learned placer by policy gradient, for the comparison with expert iteration in
docs/results/2026-12-04-learned-placer.md: each fold policy (pretraining seeds 1-3) on Inception-V3 and
BERT-base (`paper`) at 500 and 2,000 reward evaluations, tuning seeds 1-5, 16 placements per update
(ListPolicyConfig's default samples); prints the policy's own placement's latency, as CSV.

    PYTHONPATH=build/python python3 python/examples/compare_tuning.py POLICY_DIR
        (POLICY_DIR holds fold<F>-s<S>.pt from tools/evaluate_learned.sh)
"""
import sys

import devplace

FOLD = {"inception_v3": 1, "bert_base": 2}  # the fold whose policy never saw the model


def main():
    policies = sys.argv[1] if len(sys.argv) > 1 else "/tmp/devplace-learned"
    print("pretrain_seed,seed,budget,model,tuning,policy_ms,best_ms,evaluations")
    for model, fold in FOLD.items():
        w = devplace.Workload.load(model, cluster="paper")
        for budget in (500, 2000):
            updates = (budget - w.num_devices - 1) // 16
            for pretrain_seed in (1, 2, 3):
                for seed in range(1, 6):
                    r = devplace.train(w, algorithm="learned", policy=f"{policies}/fold{fold}-s{pretrain_seed}.pt",
                                       episodes=updates, samples=16, seed=seed, tuning="policy_gradient")
                    print(f"{pretrain_seed},{seed},{budget},{model},policy_gradient,{r.policy_latency * 1e3:.3f},"
                          f"{r.best_sampled_latency * 1e3:.3f},{r.evaluations}", flush=True)


if __name__ == "__main__":
    main()
