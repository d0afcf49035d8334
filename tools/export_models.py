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
memory-limited problem of docs/design/learned.md.
With --zoo DIR it writes the held-out model zoo instead (tests/data/zoo/NAME.onnx, see ZOO and
tests/data/zoo/SOURCES.md): 15 torchvision ImageNet, segmentation and video models, most from
families devplace's training corpus lacks (SOURCES.md says which are only related). They only
judge: nothing in devplace is trained, tuned or chosen on them.

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


class SegmentationOut(nn.Module):
    """A torchvision segmentation model returning only its 'out' tensor (not the OrderedDict)."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x)["out"]


# The held-out zoo (--zoo DIR): one row per model, NAME -> DIR/NAME.onnx.
# (name, constructor, input shape, source: torchvision constructor and paper)
# New rows go at the end: each row's seed is SEED + 100 + its index. Left out: video.mvit_v2_s,
# whose export (torch 1.13) exhausts memory in ONNX shape inference (std::bad_alloc at 10 GB; the
# OOM killer at 24 GB), a known problem of its _add_rel_pos (pytorch/vision#7003).
tvm = torchvision.models
ZOO = [
    ("alexnet", lambda: tvm.alexnet(weights=None), [1, 3, 224, 224],
     "torchvision.models.alexnet; Krizhevsky, One weird trick for parallelizing CNNs, 2014 (AlexNet: Krizhevsky, Sutskever, Hinton, 2012)"),
    ("vgg16", lambda: tvm.vgg16(weights=None), [1, 3, 224, 224],
     "torchvision.models.vgg16; Simonyan, Zisserman, Very Deep Convolutional Networks for Large-Scale Image Recognition, 2014"),
    ("squeezenet1_1", lambda: tvm.squeezenet1_1(weights=None), [1, 3, 224, 224],
     "torchvision.models.squeezenet1_1; Iandola et al., SqueezeNet, 2016"),
    ("densenet121", lambda: tvm.densenet121(weights=None), [1, 3, 224, 224],
     "torchvision.models.densenet121; Huang, Liu, van der Maaten, Weinberger, Densely Connected Convolutional Networks, 2017"),
    ("googlenet", lambda: tvm.googlenet(weights=None, aux_logits=False, init_weights=False), [1, 3, 224, 224],
     "torchvision.models.googlenet(aux_logits=False, init_weights=False); Szegedy et al., Going Deeper with Convolutions, 2015"),
    ("shufflenet_v2_x1_0", lambda: tvm.shufflenet_v2_x1_0(weights=None), [1, 3, 224, 224],
     "torchvision.models.shufflenet_v2_x1_0; Ma, Zhang, Zheng, Sun, ShuffleNet V2, 2018"),
    ("regnet_y_800mf", lambda: tvm.regnet_y_800mf(weights=None), [1, 3, 224, 224],
     "torchvision.models.regnet_y_800mf; Radosavovic et al., Designing Network Design Spaces, 2020"),
    ("convnext_tiny", lambda: tvm.convnext_tiny(weights=None), [1, 3, 224, 224],
     "torchvision.models.convnext_tiny; Liu et al., A ConvNet for the 2020s, 2022"),
    ("efficientnet_b0", lambda: tvm.efficientnet_b0(weights=None), [1, 3, 224, 224],
     "torchvision.models.efficientnet_b0; Tan, Le, EfficientNet, 2019"),
    ("mobilenet_v3_large", lambda: tvm.mobilenet_v3_large(weights=None), [1, 3, 224, 224],
     "torchvision.models.mobilenet_v3_large; Howard et al., Searching for MobileNetV3, 2019"),
    ("mnasnet1_0", lambda: tvm.mnasnet1_0(weights=None), [1, 3, 224, 224],
     "torchvision.models.mnasnet1_0; Tan et al., MnasNet: Platform-Aware Neural Architecture Search for Mobile, 2019"),
    ("lraspp_mobilenet_v3_large",
     lambda: SegmentationOut(tvm.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)),
     [1, 3, 224, 224],
     "torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights_backbone=None), 'out' only; Howard et al., Searching for MobileNetV3 (LR-ASPP), 2019"),
    ("r3d_18", lambda: tvm.video.r3d_18(weights=None), [1, 3, 16, 112, 112],
     "torchvision.models.video.r3d_18; Tran et al., A Closer Look at Spatiotemporal Convolutions for Action Recognition, 2018"),
    ("s3d", lambda: tvm.video.s3d(weights=None), [1, 3, 16, 224, 224],
     "torchvision.models.video.s3d; Xie, Sun, Huang, Tu, Murphy, Rethinking Spatiotemporal Feature Learning (S3D), 2018"),
    ("r2plus1d_18", lambda: tvm.video.r2plus1d_18(weights=None), [1, 3, 16, 112, 112],
     "torchvision.models.video.r2plus1d_18; Tran et al., A Closer Look at Spatiotemporal Convolutions for Action Recognition, 2018"),
]


def export_zoo(out, names=None):
    """Exports the held-out zoo (ZOO) to out/NAME.onnx: random seeded weights, opset 17, batch 1,
    eval mode, weights stripped. Never used to train, tune or choose anything; they only judge."""
    for i, (name, make, shape, source) in enumerate(ZOO):
        if names and name not in names:
            continue
        torch.manual_seed(SEED + 100 + i)  # constructors that draw weights do so deterministically
        model = randomize(make(), SEED + 100 + i)
        path = os.path.join(out, name + ".onnx")
        export(model, torch.randn(shape, generator=torch.Generator().manual_seed(SEED + 100 + i)), path, "input")
        finish(path, doc="Held-out zoo: %s; input [%s]." % (source, ",".join(map(str, shape))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
    ap.add_argument("--held-out", metavar="DIR",
                    help="export the held-out test graphs (Swin-T, ViT-B/16, ResNet-50 with view) to DIR instead")
    ap.add_argument("--bert-large", metavar="FILE",
                    help="export only the BERT-large-size encoder (24x1024, 16 heads, FFN 4096) to FILE")
    ap.add_argument("--zoo", metavar="DIR",
                    help="export the held-out model zoo (15 torchvision models, see ZOO) to DIR/NAME.onnx instead")
    ap.add_argument("--only", metavar="NAME", nargs="+", help="with --zoo: export only these names")
    args = ap.parse_args()
    torch.manual_seed(SEED)
    if args.zoo:
        os.makedirs(args.zoo, exist_ok=True)
        export_zoo(args.zoo, args.only)
        return
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
