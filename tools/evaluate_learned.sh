#!/bin/bash
# The figures of docs/results/2026-12-04-learned-placer.md. Three fold policies per pretraining seed (SEEDS, default
# "1 2 3"), each trained by tools/pretrain_learned.sh with one fold of the real graphs left out
# (a graph is only ever placed by a policy that never saw it, nor its variants: the IR twins of
# the bundled CNNs sit in the same fold, as do the BERT-like encoders and the BERT-large-size
# export), two trainings at a time; then
#   zero-shot: every real graph on `paper` (bundled models also on server and nvlink4; the
#     BERT-large-size export on nvlink4 and on nvlink4 with every device limited to 0.5 GiB) at
#     64 reward evaluations against the controls at the same budget (controls once, the learned
#     rows once per pretraining seed);
#   equal budget: Inception-V3 and BERT-base at 500 and 2,000 evaluations: the controls with
#     seeds 1-5, the learned rows (deterministic for a policy) once per pretraining seed;
#   Tarnawski's latency model: their eight cost graphs with the shipped policy (tarnawski.csv);
#   best known: local search at 200,000 evaluations on every zero-shot graph (best_known.csv).
# PARTS (default "zero best equal tarnawski") picks the parts to run ("best" beside the others).
# Writes CSV to $OUT (default /tmp/devplace-learned). POLICIES=DIR reuses trained fold policies
# (fold<F>-s<S>.pt); DEVPLACE=path runs another devplace binary. Run from the repository root
# after a build; about 40 minutes on 2 cores.
set -e
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/devplace-learned}
POLICIES=${POLICIES:-$OUT}
SEEDS=${SEEDS:-1 2 3}
mkdir -p "$OUT" "$POLICIES"
S=../shared/data/openvino
LM="--input input_ids=1,128 --input attention_mask=1,128"
F1=resnet50,inception_v3,ir_resnet50,ir_inception_v3,ir_mobilenet_v2
F2=bert_base,ir_distilbert_base_sst2,ir_roberta_base_cola,ir_ssd_inception_v2_coco,ir_yolov8n
F3=ir_all_mpnet_base_v2,ir_flan_t5_large_decoder,ir_tinyllama_decoder
running=0
for s in $SEEDS; do for f in 1 2 3; do
  leave=F$f
  p="$POLICIES/fold$f-s$s.pt"
  [ -f "$p" ] && continue
  LEAVE_OUT=${!leave} ./tools/pretrain_learned.sh -q -o "$p" --seed "$s" --log "$OUT/fold$f-s$s.csv" $PRETRAIN_ARGS &
  running=$((running + 1))
  if [ $running -ge 2 ]; then wait -n; running=$((running - 1)); fi
done; done
wait
fold_of() { for f in 1 2 3; do leave=F$f; [[ ",${!leave}," == *",$1,"* ]] && echo $f; done; }
B=${DEVPLACE:-build/devplace}
CONTROLS=heft,random-best,local-search
LEARNED=learned,learned-sampled,learned-discrepancy
sed -e 's/^memory_gib = .*/memory_gib = 0.5/' -e 's/^name = "nvlink4"/name = "nvlink4-tight"/' \
  clusters/nvlink4.toml > "$OUT/nvlink4_tight.toml"
zero() {  # name model-arguments... (nvlink4's GPUs are gpu0..gpu3)
  name=$1; shift
  gpu=gpu; [[ " $* " == *" nvlink4 "* || " $* " == *nvlink4_tight* ]] && gpu=gpu0
  $B -q compare "$@" --algos $gpu-only,$CONTROLS --budget 64 --csv | tail -n +2 | sed "s/^/-,/"
  for s in $SEEDS; do
    $B -q compare "$@" --algos $LEARNED --budget 64 --policy "$POLICIES/fold$(fold_of "$name")-s$s.pt" --csv |
      tail -n +2 | sed "s/^/$s,/"
  done
}
each_graph() {  # calls "$1 name model-arguments..." for every graph and cluster of the zero-shot table
  local f=$1
  for m in resnet50 inception_v3 bert_base; do for c in paper server nvlink4; do $f $m $m --cluster $c; done; done
  for m in resnet50 inception_v3 mobilenet_v2 ssd_inception_v2_coco yolov8n; do $f ir_$m $S/$m.xml --cluster paper; done
  for m in distilbert_base_sst2 roberta_base_cola all_mpnet_base_v2; do $f ir_$m $S/$m.xml --cluster paper $LM; done
  $f ir_flan_t5_large_decoder $S/flan_t5_large_decoder.xml --cluster paper --input attention_mask=1,128 \
    --input decoder_input_ids=1,128 --input Parameter_93876=1,128,1024
  $f ir_tinyllama_decoder $S/tinyllama_decoder.xml --cluster paper $LM --input position_ids=1,128 --input beam_idx=1
  # The BERT-large-size export (tests/data/exports/bert_large.onnx) sits in BERT-base's fold.
  for c in nvlink4 "$OUT/nvlink4_tight.toml"; do $f bert_base tests/data/exports/bert_large.onnx --cluster "$c"; done
}
# Best known for every zero-shot graph: local search with 200,000 evaluations, seeds BEST_SEEDS
# (default 1), on the second core while the rest runs.
best() {
  shift
  for s in ${BEST_SEEDS:-1}; do
    $B -q compare "$@" --algos local-search --budget 200000 --seed $s --csv | tail -n +2 | sed "s/^/$s,/"
  done
}
PARTS=${PARTS:-zero best equal tarnawski}
part() { [[ " $PARTS " == *" $1 "* ]]; }
if part best; then
{
  echo "seed,model,cluster,algorithm,latency_ms,feasible,speedup_vs_slowest_single,speedup_vs_best_single,gap_to_lower_bound,place_seconds,evaluations"
  each_graph best
} > "$OUT/best_known.csv" &
fi
if part zero; then
{
  echo "pretrain_seed,model,cluster,algorithm,latency_ms,feasible,speedup_vs_slowest_single,speedup_vs_best_single,gap_to_lower_bound,place_seconds,evaluations"
  each_graph zero
} > "$OUT/zero_shot.csv"
fi
if part equal; then
{
  echo "seed,pretrain_seed,budget,model,cluster,algorithm,latency_ms,feasible,speedup_vs_slowest_single,speedup_vs_best_single,gap_to_lower_bound,place_seconds,evaluations"
  for m in inception_v3 bert_base; do for b in 500 2000; do
    for s in 1 2 3 4 5; do
      $B -q compare $m --cluster paper --budget $b --algos random-best,local-search --seed $s --csv |
        tail -n +2 | sed "s/^/$s,-,$b,/"
    done
    # The learned rows are deterministic for a policy (expert iteration and discrepancy decoding
    # draw nothing at random): once per pretraining seed.
    for s in $SEEDS; do
      $B -q compare $m --cluster paper --budget $b \
        --algos learned-tuned,learned-tuned-sampled,learned-tuned-discrepancy,learned-discrepancy \
        --policy "$POLICIES/fold$(fold_of $m)-s$s.pt" --csv | tail -n +2 | sed "s/^/-,$s,$b,/"
    done
  done; done
} > "$OUT/equal_budget.csv"
fi
# Under the latency model of Tarnawski et al.: their eight cost graphs (never in any corpus), the
# shipped policy, against CPU-only, their greedy, our DP, and local search and segment search
# (from the better of CPU-only and their greedy) at the same budgets.
T=../shared/data/dnn-partitioning/latency-inputs
if part tarnawski; then
{
  echo "budget,model,cluster,algorithm,latency_ms,feasible,speedup_vs_slowest_single,speedup_vs_best_single,gap_to_lower_bound,place_seconds,evaluations"
  for f in $T/LayerGraphs/*.json $T/OperatorGraphs/*.json; do
    $B -q compare "$f" --objective tarnawski --algos cpu-only,tarnawski-greedy,tarnawski-dp,rollout,learned --csv |
      tail -n +2 | sed "s/^/0,/"
    for b in 64 2000; do
      $B -q compare "$f" --objective tarnawski --budget $b --csv \
        --algos local-search,segment-search,learned-discrepancy,learned-discrepancy-segments,learned-tuned |
        tail -n +2 | sed "s/^/$b,/"
    done
  done
} > "$OUT/tarnawski.csv"
fi
wait
echo "wrote the CSVs of $PARTS to $OUT"
