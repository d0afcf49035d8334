#!/bin/bash
# HETERO's manual-affinity rules on the ten OpenVINO IR graphs of ../shared/data/openvino
# (docs/guide/placement-export.md): place each on `paper` with local search, write the affinity map
# (--export-affinity adjusts the placement to the rules and says how many ops the placer's own
# map broke), then check the written map (devplace check-affinity). Extra arguments go to
# `place` (e.g. --no-fusion). Run from the repository root after ./devplace.sh build.
cd "$(dirname "$0")/.."
S=../shared/data/openvino
B=build/devplace
OUT=${OUT:-/tmp/devplace-affinity}
mkdir -p "$OUT"
run() {
  f=$1; shift
  echo "== $f"
  $B -q place $S/$f.xml --cluster paper --algo local-search --export-affinity "$OUT/$f.json" "$@" 2>&1 |
    grep -E "latency|wrote|error"
  $B -q check-affinity $S/$f.xml "$OUT/$f.json" --cluster paper $BIND 2>&1 | tail -1
}
LM="--input input_ids=1,128 --input attention_mask=1,128"
for f in resnet50 inception_v3 mobilenet_v2 ssd_inception_v2_coco yolov8n; do BIND="" run $f "$@"; done
BIND="$LM" run distilbert_base_sst2 $LM "$@"
BIND="$LM" run roberta_base_cola $LM "$@"
BIND="$LM" run all_mpnet_base_v2 $LM "$@"
T5="--input attention_mask=1,128 --input decoder_input_ids=1,128 --input Parameter_93876=1,128,1024"
BIND="$T5" run flan_t5_large_decoder $T5 "$@"
LL="$LM --input position_ids=1,128 --input beam_idx=1"
BIND="$LL" run tinyllama_decoder $LL "$@"
