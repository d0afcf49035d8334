#!/bin/bash
# The zero-shot figures of the learned move policy (docs/results/2026-12-04-learned-placer.md, "Zero-shot with the learned move policy"): every
# graph and cluster of the zero-shot table at 64 reward evaluations, placed by the fold policies
# of tools/evaluate_learned.sh (POLICIES=DIR holding fold<F>-s<S>.pt for SEEDS, default "1")
# with the move policy MOVES (default policies/learned-moves.pt), or with MOVES=fold the fold
# move policies POLICIES/moves-fold<F>-s<S>.pt (`LEAVE_OUT=... PRETRAIN=pretrain-moves
# tools/pretrain_learned.sh --policy POLICIES/fold<F>-s<S>.pt --seed S`: synthetic graphs and the
# real graphs of the other folds), beside the controls at the same budget. Writes CSV to stdout.
# Run from the repository root after a build.
set -e
cd "$(dirname "$0")/.."
POLICIES=${POLICIES:?POLICIES=DIR with the fold policies (tools/evaluate_learned.sh trains them)}
SEEDS=${SEEDS:-1}
MOVES=${MOVES:-policies/learned-moves.pt}
B=${DEVPLACE:-build/devplace}
S=../shared/data/openvino
LM="--input input_ids=1,128 --input attention_mask=1,128"
F1=resnet50,inception_v3,ir_resnet50,ir_inception_v3,ir_mobilenet_v2
F2=bert_base,ir_distilbert_base_sst2,ir_roberta_base_cola,ir_ssd_inception_v2_coco,ir_yolov8n
F3=ir_all_mpnet_base_v2,ir_flan_t5_large_decoder,ir_tinyllama_decoder
# The BERT-large-size export sits in BERT-base's fold.
fold_of() { [ "$1" = bert_large ] && set -- bert_base; for f in 1 2 3; do leave=F$f; [[ ",${!leave}," == *",$1,"* ]] && echo $f; done; }
moves_of() { if [ "$MOVES" = fold ]; then echo "$POLICIES/moves-fold$(fold_of "$1")-s$2.pt"; else echo "$MOVES"; fi; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
sed -e 's/^memory_gib = .*/memory_gib = 0.5/' -e 's/^name = "nvlink4"/name = "nvlink4-tight"/' \
  clusters/nvlink4.toml > "$TMP/nvlink4_tight.toml"
row() {  # name model-arguments...
  name=$1; shift
  $B -q compare "$@" --algos heft,random-best,local-search --budget 64 --csv | tail -n +2 | sed "s/^/$name,-,/"
  for s in $SEEDS; do
    $B -q compare "$@" --algos learned,learned-discrepancy,learned-moves,learned-discrepancy-moves --budget 64 \
      --policy "$POLICIES/fold$(fold_of "$name")-s$s.pt" --move-policy "$(moves_of "$name" $s)" --csv | tail -n +2 | sed "s/^/$name,$s,/"
  done
}
echo "graph,pretrain_seed,model,cluster,algorithm,latency_ms,feasible,speedup_vs_slowest_single,speedup_vs_best_single,gap_to_lower_bound,place_seconds"
for m in resnet50 inception_v3 bert_base; do for c in paper server nvlink4; do row $m $m --cluster $c; done; done
for m in resnet50 inception_v3 mobilenet_v2 ssd_inception_v2_coco yolov8n; do row ir_$m $S/$m.xml --cluster paper; done
for m in distilbert_base_sst2 roberta_base_cola all_mpnet_base_v2; do row ir_$m $S/$m.xml --cluster paper $LM; done
row ir_flan_t5_large_decoder $S/flan_t5_large_decoder.xml --cluster paper --input attention_mask=1,128 \
  --input decoder_input_ids=1,128 --input Parameter_93876=1,128,1024
row ir_tinyllama_decoder $S/tinyllama_decoder.xml --cluster paper $LM --input position_ids=1,128 --input beam_idx=1
for c in nvlink4 "$TMP/nvlink4_tight.toml"; do row bert_large tests/data/exports/bert_large.onnx --cluster "$c"; done
