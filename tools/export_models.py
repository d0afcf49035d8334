#!/usr/bin/python3
"""Export the bundled models (models/*.onnx) with random weights, then strip the weight data.

Run with Debian's interpreter (python3-torch 1.13, python3-torchvision 0.14, python3-onnx 1.12):

    /usr/bin/python3 tools/export_models.py [--out models]

Writes resnet50.onnx (input [1,3,224,224]), inception_v3.onnx ([1,3,299,299]) and bert_base.onnx
(input_ids [1,128] int64; BERT-base encoder: 12 layers, hidden 768, 12 heads, FFN 3072, erf GELU,
no pooler). ONNX opset 17, batch 1, eval mode. Nothing is downloaded: every parameter and buffer is
drawn from a seeded generator, which also keeps torch from de-duplicating identical initializers
into Identity nodes. Every initializer above ~1 KB then loses its data but keeps dims and
data_type, so the files are tens of KB and still carry every shape devplace needs. The output is
deterministic for a given torch version. The build and CI never run this script.
With --held-out DIR it writes the held-out test graphs instead (tests/data/exports: Swin-T,
ViT-B/16 and a ResNet-50 that flattens with x.view(x.size(0), -1); see export_held_out).
With --bert-large FILE it writes a BERT-large-size encoder (24 layers, hidden 1024, 16 heads, FFN
4096; 1.3 GB of FP32 weights, so no single 0.5 GiB GPU of clusters/nvlink4.toml holds it), the
memory-limited problem of docs/learned.md.

BERT's sequence length is symbolic inside the graph (positions by CumSum, reshapes with -1), and
only the declared input shape says 128: binding input_ids to [1, N] at import re-infers every shape.
"""
import argparse
import math
import os
import sys

import onnx
import torch
import torch.nn as nn
import torchvision

OPSET = 17
SEED = 20240601
STRIP_ABOVE_BYTES = 1024


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.attn_out = nn.Linear(hidden, hidden)
        self.attn_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.ffn_in = nn.Linear(hidden, ffn)
        self.ffn_out = nn.Linear(ffn, hidden)
        self.ffn_norm = nn.LayerNorm(hidden, eps=1e-12)

    def split_heads(self, x):
        # [1, S, H] -> [1, heads, S, head_dim]; -1 keeps the sequence length symbolic.
        return x.reshape(1, -1, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x):
        q = self.split_heads(self.query(x))
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
        ctx = ctx.transpose(1, 2).reshape(1, -1, self.heads * self.head_dim)
        x = self.attn_norm(x + self.attn_out(ctx))
        h = nn.functional.gelu(self.ffn_in(x))  # exact (erf) GELU
        return self.ffn_norm(x + self.ffn_out(h))


class BertEncoder(nn.Module):
    """BERT-base without pooler: word + position embeddings, LayerNorm, 12 encoder layers."""

    def __init__(self, vocab=30522, max_pos=512, hidden=768, layers=12, heads=12, ffn=3072):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(max_pos, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(hidden, heads, ffn) for _ in range(layers))

    def forward(self, input_ids):
        # Positions 0..S-1 from input_ids by elementwise ops and CumSum: plain shape inference
        # then follows any sequence length, with no Shape/Slice arithmetic in the graph.
        positions = torch.cumsum(input_ids * 0 + 1, dim=1) - 1
        x = self.norm(self.word(input_ids) + self.position(positions))
        for layer in self.layers:
            x = layer(x)
        return x


def randomize(model, seed):
    """Draws every floating parameter and buffer from a seeded generator (no two alike)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, t in list(model.named_parameters()) + list(model.named_buffers()):
            if not t.is_floating_point():
                continue
            if name.endswith("running_var"):
                t.copy_(torch.rand(t.shape, generator=gen) + 0.5)  # variances must stay positive
            else:
                t.copy_(torch.randn(t.shape, generator=gen) * 0.05)
    return model.eval()


def export(model, example, path, input_name, dynamic_axes=None):
    torch.onnx.export(model, (example,), path, opset_version=OPSET, input_names=[input_name],
                      output_names=["output"], dynamic_axes=dynamic_axes, do_constant_folding=True,
                      training=torch.onnx.TrainingMode.EVAL)


def tensor_bytes(t):
    n = 1
    for d in t.dims:
        n *= d
    size = {onnx.TensorProto.FLOAT: 4, onnx.TensorProto.INT64: 8, onnx.TensorProto.INT32: 4,
            onnx.TensorProto.DOUBLE: 8, onnx.TensorProto.FLOAT16: 2}.get(t.data_type, 4)
    return n * size


def strip_tensor(t):
    for field in ("raw_data", "float_data", "int32_data", "int64_data", "double_data",
                  "uint64_data", "string_data"):
        t.ClearField(field)


def finish(path, static_inputs=None, doc=""):
    """Strips weight data, pins declared input dims, checks for Identity nodes, and rewrites."""
    m = onnx.load(path)
    stripped = 0
    for init in m.graph.initializer:
        if tensor_bytes(init) > STRIP_ABOVE_BYTES:
            strip_tensor(init)
            stripped += 1
    for node in m.graph.node:
        if node.op_type == "Constant":
            for a in node.attribute:
                if a.type == onnx.AttributeProto.TENSOR and tensor_bytes(a.t) > STRIP_ABOVE_BYTES:
                    strip_tensor(a.t)
                    stripped += 1
    for out in m.graph.output:  # torch declares odd symbolic dims here; let inference decide
        out.type.tensor_type.ClearField("shape")
    for inp in m.graph.input:
        if static_inputs and inp.name in static_inputs:
            for dim, value in zip(inp.type.tensor_type.shape.dim, static_inputs[inp.name]):
                dim.Clear()
                dim.dim_value = value
    m.doc_string = ("devplace bundled model: random weights, initializers above %d bytes stripped "
                    "of data (dims and data_type kept). %s" % (STRIP_ABOVE_BYTES, doc)).strip()
    m.producer_name = "devplace tools/export_models.py"
    identities = [n.name for n in m.graph.node if n.op_type == "Identity"]
    if identities:
        sys.exit("%s: unexpected Identity nodes: %s" % (path, identities[:5]))
    onnx.save(m, path)
    # The shapes must still infer (with data propagation for BERT's symbolic sequence length).
    inferred = onnx.shape_inference.infer_shapes(m, data_prop=True)
    unknown = [v.name for v in list(inferred.graph.value_info) + list(inferred.graph.output)
               if not v.type.tensor_type.HasField("shape") or any(not d.HasField("dim_value") for d in v.type.tensor_type.shape.dim)]
    types = {}
    for n in m.graph.node:
        types[n.op_type] = types.get(n.op_type, 0) + 1
    print("%-28s %4d nodes, %3d initializers (%d stripped), %6d bytes, %d unknown-shape tensors" %
          (path, len(m.graph.node), len(m.graph.initializer), stripped, os.path.getsize(path),
           len(unknown)))
    print("    ", dict(sorted(types.items())))


class ResNetView(nn.Module):
    """torchvision ResNet-50 whose head flattens with x.view(x.size(0), -1), the run-time shape
    arithmetic (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) that older code exports."""

    def __init__(self):
        super().__init__()
        self.net = torchvision.models.resnet50(weights=None)

    def forward(self, x):
        n = self.net
        x = n.maxpool(n.relu(n.bn1(n.conv1(x))))
        x = n.layer4(n.layer3(n.layer2(n.layer1(x))))
        x = n.avgpool(x)
        return n.fc(x.view(x.size(0), -1))


def export_held_out(out):
    """Exports the held-out test graphs (tests/data/exports): models with run-time shape
    arithmetic that devplace must fold. Published MACs (torchvision's model tables): Swin-T 4.49 G,
    ViT-B/16 17.56 G, ResNet-50 4.09 G."""
    swin = randomize(torchvision.models.swin_t(weights=None), SEED + 4)
    path = os.path.join(out, "swin_t.onnx")
    export(swin, torch.randn(1, 3, 224, 224), path, "input")
    finish(path, doc="torchvision Swin-T (shifted windows, padding to a window multiple), input [1,3,224,224].")

    vit = randomize(torchvision.models.vit_b_16(weights=None), SEED + 5)
    path = os.path.join(out, "vit_b_16.onnx")
    export(vit, torch.randn(1, 3, 224, 224), path, "input")
    finish(path, doc="torchvision ViT-B/16 (class token expanded to the batch), input [1,3,224,224].")

    view = randomize(ResNetView(), SEED + 6)
    path = os.path.join(out, "resnet50_view.onnx")
    export(view, torch.randn(1, 3, 224, 224), path, "input",
           dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    finish(path, doc="ResNet-50 flattening with x.view(x.size(0), -1), dynamic batch: bind input=N,3,224,224.")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
    ap.add_argument("--held-out", metavar="DIR",
                    help="export the held-out test graphs (Swin-T, ViT-B/16, ResNet-50 with view) to DIR instead")
    ap.add_argument("--bert-large", metavar="FILE",
                    help="export only the BERT-large-size encoder (24x1024, 16 heads, FFN 4096) to FILE")
    args = ap.parse_args()
    torch.manual_seed(SEED)
    if args.bert_large:
        large = randomize(BertEncoder(hidden=1024, layers=24, heads=16, ffn=4096), SEED + 7)
        ids = torch.randint(0, 30522, (1, 128), generator=torch.Generator().manual_seed(SEED))
        export(large, ids, args.bert_large, "input_ids", dynamic_axes={"input_ids": {1: "seq"}, "output": {1: "seq"}})
        finish(args.bert_large, static_inputs={"input_ids": [1, 128]},
               doc="BERT-large-size encoder (24x1024, 16 heads, FFN 4096, no pooler), input_ids [1,128] int64.")
        return
    if args.held_out:
        os.makedirs(args.held_out, exist_ok=True)
        export_held_out(args.held_out)
        return
    os.makedirs(args.out, exist_ok=True)

    resnet = randomize(torchvision.models.resnet50(weights=None), SEED + 1)
    path = os.path.join(args.out, "resnet50.onnx")
    export(resnet, torch.randn(1, 3, 224, 224), path, "input")
    finish(path, doc="torchvision ResNet-50, input [1,3,224,224].")

    inception = torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=True)
    inception = randomize(inception, SEED + 2)
    path = os.path.join(args.out, "inception_v3.onnx")
    export(inception, torch.randn(1, 3, 299, 299), path, "input")
    finish(path, doc="torchvision Inception-V3 (no aux logits), input [1,3,299,299].")

    bert = randomize(BertEncoder(), SEED + 3)
    path = os.path.join(args.out, "bert_base.onnx")
    ids = torch.randint(0, 30522, (1, 128), generator=torch.Generator().manual_seed(SEED))
    export(bert, ids, path, "input_ids", dynamic_axes={"input_ids": {1: "seq"}, "output": {1: "seq"}})
    finish(path, static_inputs={"input_ids": [1, 128]},
           doc="BERT-base encoder (12x768, 12 heads, FFN 3072, no pooler), input_ids [1,128] int64; "
               "the sequence length is symbolic inside the graph, so a binding [1,N] re-infers shapes.")


if __name__ == "__main__":
    main()
