import torch
import devplace

net = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 512))
w = devplace.from_torch(net, torch.randn(8, 512), cluster="paper")       # exported by torch.onnx
print(devplace.format_table(devplace.compare(w, ["heft", "local-search", "cpu-only", "gpu-only"])))

r = devplace.load("resnet50", cluster="paper")          # or any .onnx / OpenVINO .xml, inputs={...}
p = devplace.place(r, "local-search", seed=1)           # one device index per op (r.op_names)
print(r, devplace.judge(r, p).latency * 1e3, "ms")
devplace.write_placement(r, p, "resnet50_placement.json")  # op name -> device
devplace.write_trace(r, p, "resnet50_trace.json")
