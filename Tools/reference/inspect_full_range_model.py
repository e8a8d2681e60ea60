#!/usr/bin/env python3
"""Lists every op of MediaPipe's full-range face detector with its attributes.

Reads mediapipe/modules/face_detection/face_detection_full_range_sparse.tflite
(sha256 2c3728e6...dfe1, from the mediapipe 0.10.14 wheel) with the `tflite`
flatbuffer package only (no TensorFlow, no interpreter) and writes
Tests/Fixtures/goldens/full_range/model_ops.json:

  * inputs / outputs (name, shape, dtype), op counts, tensor dtype counts,
  * per op: index, opcode (+version), input/output tensor ids, shapes and
    dtypes, and the builtin options that matter for an implementation:
      CONV_2D / DEPTHWISE_CONV_2D  padding, strides, dilation, activation,
                                   depth_multiplier
      PAD                          the constant paddings (4x2 int32)
      RESIZE_BILINEAR              align_corners, half_pixel_centers, size
      DEPTH_TO_SPACE               block_size
      ADD                          activation, whether it broadcasts
      RESHAPE                      the shape operand / new_shape
      DENSIFY                      the sparsity parameters of its input
                                   (traversal order, block map, per-dim
                                   format and sizes, stored values)
  * a "facts" summary (distinct attribute values per op type).

Needs the `tflite` pip package (tflite==2.18.0) and numpy, e.g.
  /root/tflenv/bin/python Tools/reference/inspect_full_range_model.py [MODEL]
Without an argument the model is looked up in a mediapipe install found via
$MEDIAPIPE_SITE_PACKAGES or the default /root/mpenv venv.
"""

import collections
import glob
import hashlib
import json
import os
import sys

import numpy as np
import tflite
from tflite.ActivationFunctionType import ActivationFunctionType
from tflite.BuiltinOperator import BuiltinOperator
from tflite.BuiltinOptions import BuiltinOptions
from tflite.DimensionType import DimensionType
from tflite.Padding import Padding
from tflite.SparseIndexVector import SparseIndexVector
from tflite.TensorType import TensorType

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(REPO, "Tests", "Fixtures", "goldens", "full_range",
                   "model_ops.json")
MODEL_REL = "modules/face_detection/face_detection_full_range_sparse.tflite"
MODEL_SHA256 = "2c3728e6da56f21e21a320433396fb06d40d9088f2247c05e5635a688d45dfe1"


def _names(enum_cls):
    return {v: k for k, v in enum_cls.__dict__.items() if not k.startswith("_")}


OPS = _names(BuiltinOperator)
TYPES = _names(TensorType)
ACTS = _names(ActivationFunctionType)
PADS = _names(Padding)
DIMTYPES = _names(DimensionType)
SPARSE_VEC = _names(SparseIndexVector)
NP_DTYPES = {"FLOAT32": "<f4", "FLOAT16": "<f2", "INT32": "<i4",
             "INT64": "<i8", "UINT8": "u1", "INT8": "i1"}


def find_model():
    if len(sys.argv) > 1:
        return sys.argv[1]
    roots = [os.environ.get("MEDIAPIPE_SITE_PACKAGES", "")]
    roots += glob.glob("/root/mpenv/lib/python3*/site-packages")
    roots += glob.glob(os.path.join(REPO, ".venv-reference", "lib",
                                    "python3*", "site-packages"))
    for r in roots:
        p = os.path.join(r, "mediapipe", MODEL_REL)
        if r and os.path.exists(p):
            return p
    sys.exit("model not found; pass its path")


def options(op, cls):
    table = op.BuiltinOptions()
    o = cls()
    o.Init(table.Bytes, table.Pos)
    return o


def sparse_vector(dm, which):
    kind = dm.ArraySegmentsType() if which == "segments" else dm.ArrayIndicesType()
    table = dm.ArraySegments() if which == "segments" else dm.ArrayIndices()
    if table is None or kind == 0:
        return None, None
    cls = {"Int32Vector": tflite.Int32Vector, "Uint16Vector": tflite.Uint16Vector,
           "Uint8Vector": tflite.Uint8Vector}[SPARSE_VEC[kind]]
    v = cls()
    v.Init(table.Bytes, table.Pos)
    return SPARSE_VEC[kind], v.ValuesAsNumpy()


def main():
    path = find_model()
    buf = open(path, "rb").read()
    sha = hashlib.sha256(buf).hexdigest()
    if sha != MODEL_SHA256:
        sys.exit("unexpected model sha256 %s" % sha)
    model = tflite.Model.GetRootAsModel(buf, 0)
    assert model.SubgraphsLength() == 1
    g = model.Subgraphs(0)

    def tensor(i):
        t = g.Tensors(i)
        return t

    def tinfo(i):
        t = tensor(i)
        return {"id": int(i), "shape": [int(x) for x in t.ShapeAsNumpy()]
                if t.ShapeLength() else [], "dtype": TYPES[t.Type()]}

    def const(i):
        t = tensor(i)
        b = model.Buffers(t.Buffer())
        if b.DataLength() == 0:
            return None
        raw = b.DataAsNumpy().tobytes()
        arr = np.frombuffer(raw, dtype=NP_DTYPES[TYPES[t.Type()]])
        return arr

    ops = []
    counts = collections.Counter()
    facts = collections.defaultdict(collections.Counter)
    for k in range(g.OperatorsLength()):
        op = g.Operators(k)
        oc = model.OperatorCodes(op.OpcodeIndex())
        name = OPS[max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode())]
        counts[name] += 1
        ins = [int(i) for i in op.InputsAsNumpy()]
        outs = [int(i) for i in op.OutputsAsNumpy()]
        entry = {"index": k, "op": name, "version": int(oc.Version()),
                 "inputs": [tinfo(i) if i >= 0 else None for i in ins],
                 "outputs": [tinfo(i) for i in outs]}
        attrs = {}
        if name == "CONV_2D":
            o = options(op, tflite.Conv2DOptions)
            attrs = {"padding": PADS[o.Padding()],
                     "stride": [o.StrideH(), o.StrideW()],
                     "dilation": [o.DilationHFactor(), o.DilationWFactor()],
                     "activation": ACTS[o.FusedActivationFunction()],
                     "kernel": entry["inputs"][1]["shape"][1:3]}
        elif name == "DEPTHWISE_CONV_2D":
            o = options(op, tflite.DepthwiseConv2DOptions)
            attrs = {"padding": PADS[o.Padding()],
                     "stride": [o.StrideH(), o.StrideW()],
                     "dilation": [o.DilationHFactor(), o.DilationWFactor()],
                     "depth_multiplier": o.DepthMultiplier(),
                     "activation": ACTS[o.FusedActivationFunction()],
                     "kernel": entry["inputs"][1]["shape"][1:3]}
        elif name == "PAD":
            p = const(ins[1])
            attrs = {"paddings": p.reshape(-1, 2).tolist()}
        elif name == "RESIZE_BILINEAR":
            o = options(op, tflite.ResizeBilinearOptions)
            size = const(ins[1])
            attrs = {"align_corners": bool(o.AlignCorners()),
                     "half_pixel_centers": bool(o.HalfPixelCenters()),
                     "size": None if size is None else size.tolist()}
        elif name == "DEPTH_TO_SPACE":
            o = options(op, tflite.DepthToSpaceOptions)
            attrs = {"block_size": o.BlockSize()}
        elif name == "ADD":
            o = options(op, tflite.AddOptions)
            a, b = entry["inputs"][0]["shape"], entry["inputs"][1]["shape"]
            attrs = {"activation": ACTS[o.FusedActivationFunction()],
                     "broadcast": a != b,
                     "constant_operand": any(const(i) is not None for i in ins)}
        elif name == "RESHAPE":
            s = const(ins[1]) if len(ins) > 1 else None
            attrs = {"shape_operand": None if s is None else s.tolist()}
            if op.BuiltinOptionsType() == BuiltinOptions.ReshapeOptions:
                o = options(op, tflite.ReshapeOptions)
                attrs["new_shape"] = o.NewShapeAsNumpy().tolist() \
                    if o.NewShapeLength() else []
        elif name == "DENSIFY":
            t = tensor(ins[0])
            sp = t.Sparsity()
            dims = []
            for d in range(sp.DimMetadataLength()):
                dm = sp.DimMetadata(d)
                dd = {"format": DIMTYPES[dm.Format()]}
                if DIMTYPES[dm.Format()] == "DENSE":
                    dd["dense_size"] = dm.DenseSize()
                else:
                    st, seg = sparse_vector(dm, "segments")
                    it, idx = sparse_vector(dm, "indices")
                    dd.update({"segments_type": st, "segments_len": len(seg),
                               "indices_type": it, "indices_len": len(idx)})
                dims.append(dd)
            values = const(ins[0])
            dense = int(np.prod(entry["inputs"][0]["shape"]))
            attrs = {"traversal_order": sp.TraversalOrderAsNumpy().tolist(),
                     "block_map": sp.BlockMapAsNumpy().tolist()
                     if sp.BlockMapLength() else [],
                     "dim_metadata": dims,
                     "stored_values": int(values.size),
                     "dense_values": dense}
        elif name == "DEQUANTIZE":
            attrs = {"constant_input": const(ins[0]) is not None}
        if attrs:
            entry["attrs"] = attrs
            for key, val in attrs.items():
                if key in ("size", "stored_values", "dense_values",
                           "dim_metadata", "kernel", "shape_operand"):
                    if key == "kernel":
                        facts[name]["kernel=%s" % val] += 1
                    continue
                facts[name]["%s=%s" % (key, json.dumps(val))] += 1
        ops.append(entry)

    # Tensors by dtype, and which are constants.
    dtype_counts = collections.Counter()
    for i in range(g.TensorsLength()):
        t = tensor(i)
        kind = "const" if model.Buffers(t.Buffer()).DataLength() else "activation"
        dtype_counts["%s/%s" % (TYPES[t.Type()], kind)] += 1

    doc = {
        "generator": "Tools/reference/inspect_full_range_model.py",
        "model": "mediapipe/" + MODEL_REL,
        "model_sha256": sha,
        "description": (model.Description() or b"").decode(),
        "schema_version": int(model.Version()),
        "metadata_entries": [model.Metadata(i).Name().decode()
                             for i in range(model.MetadataLength())],
        "inputs": [dict(tinfo(i), name=tensor(i).Name().decode())
                   for i in g.InputsAsNumpy()],
        "outputs": [dict(tinfo(i), name=tensor(i).Name().decode())
                    for i in g.OutputsAsNumpy()],
        "op_counts": dict(sorted(counts.items())),
        "tensor_dtype_counts": dict(sorted(dtype_counts.items())),
        "facts": {k: dict(sorted(v.items())) for k, v in sorted(facts.items())},
        "ops": ops,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(json.dumps({k: doc[k] for k in doc if k != "ops"}, indent=1))
    for e in ops:
        if e["op"] in ("RESIZE_BILINEAR", "DEPTH_TO_SPACE") or (
                e["op"] == "ADD" and e["attrs"]["broadcast"]):
            print(e["index"], e["op"], [i and i["shape"] for i in e["inputs"]],
                  "->", e["outputs"][0]["shape"], e["attrs"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
