#!/bin/bash
# The figures of docs/learned.md. Three fold policies, each trained by tools/pretrain_learned.sh
# with one fold of the real graphs left out (a graph is only ever placed by a policy that never
# saw it, nor its variants: the IR twins of the bundled CNNs sit in the same fold, as do the
# BERT-like encoders), then
#   zero-shot: every real graph on `paper` (bundled models also on server and nvlink4) at 64
#     reward evaluations against the controls at the same budget;
#   equal budget: Inception-V3 and BERT-base at 500 and 2,000 evaluations, seeds 1-5.
# Writes CSV to $OUT (default /tmp/devplace-learned). POLICIES=DIR reuses trained fold policies.
# Run from the repository root after a build; about 25 minutes on 2 cores.
set -e
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/devplace-learned}
POLICIES=${POLICIES:-$OUT}
mkdir -p "$OUT" "$POLICIES"
S=../shared/data/openvino
LM="--input input_ids=1,128 --input attention_mask=1,128"
F1=resnet50,inception_v3,ir_resnet50,ir_inception_v3,ir_mobilenet_v2
F2=bert_base,ir_distilbert_base_sst2,ir_roberta_base_cola,ir_ssd_inception_v2_coco,ir_yolov8n
F3=ir_all_mpnet_base_v2,ir_flan_t5_large_decoder,ir_tinyllama_decoder
for f in 1 2 3; do
  leave=F$f
  [ -f "$POLICIES/fold$f.pt" ] || LEAVE_OUT=${!leave} ./tools/pretrain_learned.sh -q -o "$POLICIES/fold$f.pt" \
    --log "$OUT/fold$f.csv" $PRETRAIN_ARGS
done
fold_of() { for f in 1 2 3; do leave=F$f; [[ ",${!leave}," == *",$1,"* ]] && echo $f; done; }
B=build/devplace
Z=gpu-only,heft,random-best,local-search,learned,learned-sampled
zero() {  # name model-arguments...
  name=$1; shift
  $B -q compare "$@" --algos $Z --budget 64 --policy "$POLICIES/fold$(fold_of "$name").pt" --csv | tail -n +2
}
{
  echo "model,cluster,algorithm,latency_ms,feasible,speedup_vs_slowest_single,speedup_vs_best_single,gap_to_lower_bound,place_seconds"
  for m in resnet50 inception_v3 bert_base; do for c in paper server nvlink4; do zero $m $m --cluster $c; done; done
  for m in resnet50 inception_v3 mobilenet_v2 ssd_inception_v2_coco yolov8n; do zero ir_$m $S/$m.xml --cluster paper; done
  for m in distilbert_base_sst2 roberta_base_cola all_mpnet_base_v2; do zero ir_$m $S/$m.xml --cluster paper $LM; done
  zero ir_flan_t5_large_decoder $S/flan_t5_large_decoder.xml --cluster paper --input attention_mask=1,128 \
    --input decoder_input_ids=1,128 --input Parameter_93876=1,128,1024
  zero ir_tinyllama_decoder $S/tinyllama_decoder.xml --cluster paper $LM --input position_ids=1,128 --input beam_idx=1
} > "$OUT/zero_shot.csv"
{
  echo "seed,budget,model,cluster,algorithm,latency_ms,feasible,speedup_vs_slowest_single,speedup_vs_best_single,gap_to_lower_bound,place_seconds"
  for m in inception_v3 bert_base; do for b in 500 2000; do for s in 1 2 3 4 5; do
    $B -q compare $m --cluster paper --algos random-best,local-search,learned-tuned,learned-tuned-sampled --budget $b \
      --seed $s --policy "$POLICIES/fold$(fold_of $m).pt" --csv | tail -n +2 | sed "s/^/$s,$b,/"
  done; done; done
} > "$OUT/equal_budget.csv"
echo "wrote $OUT/zero_shot.csv and $OUT/equal_budget.csv"
