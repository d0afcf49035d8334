#!/bin/bash
# Trains devplace's own learned placer (docs/design/learned.md) on the synthetic corpus plus real
# graphs: the ten OpenVINO IR graphs of ../shared/data/openvino and the three bundled models,
# each on perturbed clusters around the presets. LEAVE_OUT=name[,name] drops graphs (for the
# zero-shot evaluation: a graph is placed by a policy that never saw it). The list policy
# imitates its rollout teacher (3,000 updates, no policy gradient: docs/design/learned.md).
# Extra arguments go to `devplace pretrain` (e.g. -o FILE --seed S); PRETRAIN=pretrain-moves
# trains the move policy on the same graphs instead. Run from the repository root after a build (DEVPLACE=path runs
# another devplace binary).
cd "$(dirname "$0")/.."
S=../shared/data/openvino
LM=input_ids=1,128:attention_mask=1,128
GRAPHS=(
  "resnet50" "inception_v3" "bert_base"
  "$S/resnet50.xml" "$S/inception_v3.xml" "$S/mobilenet_v2.xml" "$S/ssd_inception_v2_coco.xml" "$S/yolov8n.xml"
  "$S/distilbert_base_sst2.xml:$LM" "$S/roberta_base_cola.xml:$LM" "$S/all_mpnet_base_v2.xml:$LM"
  "$S/flan_t5_large_decoder.xml:attention_mask=1,128:decoder_input_ids=1,128:Parameter_93876=1,128,1024"
  "$S/tinyllama_decoder.xml:$LM:position_ids=1,128:beam_idx=1"
)
ARGS=()
for g in "${GRAPHS[@]}"; do
  name=$(basename "${g%%:*}")
  name=${name%.xml}
  [[ "$g" == *.xml* ]] && name="ir_$name"
  if [[ ",${LEAVE_OUT}," == *",$name,"* ]]; then continue; fi
  ARGS+=(--model "$g")
done
PRETRAIN=${PRETRAIN:-pretrain}
[[ "$PRETRAIN" == pretrain ]] && ARGS+=(--imitation 3000 --iterations 0)
exec "${DEVPLACE:-build/devplace}" "$PRETRAIN" "${ARGS[@]}" "$@"
