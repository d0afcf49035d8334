#!/bin/bash
# Every placer family on the ten OpenVINO IR graphs of ../shared/data/openvino, paper cluster
# (docs/design/openvino-import.md, "Placing them"). Run from the repository root after ./devplace.sh build.
cd "$(dirname "$0")/.."
S=../shared/data/openvino
B=build/devplace
A=cpu-only,gpu-only,hetero,heft,m-etf,metis,local-search,hsdag
run() { f=$1; shift; echo "== $f $*"; /usr/bin/time -f "wall %e s" $B -q compare $S/$f.xml --cluster paper --algos $A "$@" 2>&1 | grep -E "^\| (cpu|gpu|hetero|heft|m-etf|metis|local|hsdag)|wall|error"; }
for f in resnet50 inception_v3 mobilenet_v2 ssd_inception_v2_coco yolov8n; do run $f; done
run distilbert_base_sst2 --input input_ids=1,128 --input attention_mask=1,128
run roberta_base_cola --input input_ids=1,128 --input attention_mask=1,128
run all_mpnet_base_v2 --input input_ids=1,128 --input attention_mask=1,128
run flan_t5_large_decoder --input attention_mask=1,128 --input decoder_input_ids=1,128 --input Parameter_93876=1,128,1024
run tinyllama_decoder --input input_ids=1,128 --input attention_mask=1,128 --input position_ids=1,128 --input beam_idx=1
echo DONE
