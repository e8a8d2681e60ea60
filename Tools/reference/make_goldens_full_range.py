#!/usr/bin/env python3
"""Writes MediaPipe 0.10.14 goldens for the FULL-RANGE face detector.

For every Tests/Fixtures/images/<stem>.png this writes
Tests/Fixtures/goldens/full_range/<stem>/:

  input.f32        1x192x192x3 NHWC float32 LE: the model input produced by
                   MediaPipe's own ImageToTensorCalculator, configured as the
                   full-range graph configures it.
  regressors.f32   1x2304x16 float32 LE: raw model output 0.
  scores.f32       1x2304x1  float32 LE: raw model output 1 (logits).
  detections.json        final detections, min_detection_confidence 0.5
  detections_min0.3.json final detections, min_detection_confidence 0.3

and, once, Tests/Fixtures/goldens/full_range/:

  config.json   the configuration MediaPipe really uses, read from the
                subgraphs compiled into mediapipe/python/_framework_bindings.so
                (FaceDetectionFullRangeCpu -> FaceDetectionFullRange ->
                FaceDetection), with every option_value resolved
  anchors.f32   2304x4 float32 LE (x_center, y_center, w, h), the anchors
                SsdAnchorsCalculator builds from those options
  manifest.json versions, hashes, per-fixture counts and checks

The raw tensors come from one CalculatorGraph per image (TENSOR_GRAPH of
make_goldens.py, i.e. the front half of the legacy FaceDetection subgraph),
with the full-range ImageToTensorCalculator options and the XNNPACK delegate
that FaceDetectionFullRangeCpu sets.

Detections: "legacy" is mp.solutions.face_detection.FaceDetection(
model_selection=1, min_detection_confidence=T).  That solution ignores T (the
FaceDetectionFullRange subgraph hard-codes min_score_thresh 0.6 and that wins;
the script verifies this on every fixture), so "legacy_subgraph" is the
compiled FaceDetection subgraph run directly with the FaceDetectionFullRange
options, the XNNPACK delegate and min_score_thresh = T.  "pixel" is
"legacy_subgraph" converted to pixel boxes the way MediaPipe Tasks'
DetectionTransformationCalculator does it; "legacy_pixel" converts "legacy".

The script also re-derives the final detections from the golden tensors with
a numpy port of SsdAnchors + TensorsToDetections + weighted NMS +
DetectionProjection and records how far that is from MediaPipe.

Usage (from the repository root):
  .venv-reference/bin/python Tools/reference/make_goldens_full_range.py
Needs opencv (a mediapipe dependency) for the preprocessing cross-check.
"""

import glob
import hashlib
import json
import os
import sys

import numpy as np
from google.protobuf import text_format

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_goldens as sr  # noqa: E402  (short-range tooling: shared helpers)

import mediapipe as mp  # noqa: E402
from mediapipe.calculators.tensor import image_to_tensor_calculator_pb2  # noqa: E402
from mediapipe.calculators.tensor import inference_calculator_pb2  # noqa: E402
from mediapipe.calculators.tensor import tensors_to_detections_calculator_pb2  # noqa: E402
from mediapipe.calculators.tflite import ssd_anchors_calculator_pb2  # noqa: E402
from mediapipe.calculators.util import non_max_suppression_calculator_pb2  # noqa: E402
from mediapipe.framework import calculator_pb2  # noqa: E402
from mediapipe.modules.face_detection import face_detection_pb2  # noqa: E402

FIXTURES = sr.FIXTURES
IMAGES = sr.IMAGES
OUT_ROOT = os.path.join(FIXTURES, "goldens", "full_range")
MP_DIR = sr.MP_DIR
MODEL_REL = "mediapipe/modules/face_detection/face_detection_full_range_sparse.tflite"
MODEL = os.path.join(MP_DIR, "modules", "face_detection",
                     "face_detection_full_range_sparse.tflite")
MODEL_SHA256 = "2c3728e6da56f21e21a320433396fb06d40d9088f2247c05e5635a688d45dfe1"
BINARYPB = os.path.join(MP_DIR, "modules", "face_detection",
                        "face_detection_full_range_cpu.binarypb")
SO = glob.glob(os.path.join(MP_DIR, "python", "_framework_bindings*.so"))

COMMAND = ".venv-reference/bin/python Tools/reference/make_goldens_full_range.py"

THRESHOLDS = [(0.5, "detections.json"), (0.3, "detections_min0.3.json")]
KEYPOINT_LABELS = sr.KEYPOINT_LABELS
DELEGATE_GOLDEN = sr.DELEGATE_GOLDEN      # xnnpack {}
DELEGATE_COMPARE = sr.DELEGATE_COMPARE    # tflite {}


# --------------------------------------------------------------------------
# 1. The configuration, from the subgraphs compiled into the .so
# --------------------------------------------------------------------------

def _varint(buf, pos):
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def extract_compiled_graph(data, type_name):
    """Finds the serialized CalculatorGraphConfig whose `type` is type_name.

    mediapipe_simple_subgraph() compiles each .pbtxt into a serialized
    CalculatorGraphConfig stored as one byte array.  Fields are serialized in
    field-number order, so the blob starts with node (field 1, byte 0x0a)
    and `type` (field 20, bytes a2 01 <len> <name>) is followed only by
    options (1001) / graph_options (1002).  We locate the `type` field, skip
    the trailing options fields, then take the longest blob ending there that
    parses, round-trips byte for byte, and has no unknown fields."""
    name = type_name.encode()
    pat = b"\xa2\x01" + bytes([len(name)]) + name
    hits = []
    start = 0
    while True:
        i = data.find(pat, start)
        if i < 0:
            break
        hits.append(i)
        start = i + 1
    if len(hits) != 1:
        raise SystemExit("%s: expected one serialized graph, found %d"
                         % (type_name, len(hits)))
    end = hits[0] + len(pat)
    while True:
        tag, p = _varint(data, end)
        if tag >> 3 not in (1001, 1002) or tag & 7 != 2:
            break
        n, p = _varint(data, p)
        end = p + n
    for s in range(max(0, hits[0] - 65536), hits[0]):
        if data[s] != 0x0A:
            continue
        c = calculator_pb2.CalculatorGraphConfig()
        try:
            c.ParseFromString(data[s:end])
        except Exception:
            continue
        if c.type != type_name or c.SerializeToString() != data[s:end]:
            continue
        # Unknown fields survive a binary round trip but not a text one.
        c2 = text_format.Parse(text_format.MessageToString(c),
                               calculator_pb2.CalculatorGraphConfig())
        if c2.SerializeToString() != data[s:end]:
            continue
        return c, s, end
    raise SystemExit("%s: no parseable graph found" % type_name)


def unpack_node_options(node, cls):
    for any_msg in node.node_options:
        if any_msg.type_url.endswith("/" + cls.DESCRIPTOR.full_name):
            m = cls()
            m.ParseFromString(any_msg.value)
            return m
    return None


def ext_options(node, ext):
    return node.options.Extensions[ext]


def resolve_option_values(node_opts, option_values, graph_opts):
    """Applies a FaceDetection node's option_value lines ("field:path" or
    "field:options/path") with graph_opts as the source, the way MediaPipe's
    subgraph expansion does (only fields that are set are copied)."""
    applied = []
    for ov in option_values:
        dst, src = ov.split(":", 1)
        if src.startswith("options/"):
            src = src[len("options/"):]
        fd = graph_opts.DESCRIPTOR.fields_by_name[src]
        if fd.label == fd.LABEL_REPEATED:
            present = len(getattr(graph_opts, src)) > 0
        else:
            present = graph_opts.HasField(src)
        if not present:
            applied.append("%s <- %s (unset, not copied)" % (dst, src))
            continue
        val = getattr(graph_opts, src)
        dfd = node_opts.DESCRIPTOR.fields_by_name[dst]
        if dfd.label == dfd.LABEL_REPEATED:
            del getattr(node_opts, dst)[:]
            getattr(node_opts, dst).extend(val)
        elif dfd.message_type is not None:
            getattr(node_opts, dst).CopyFrom(val)
        else:
            setattr(node_opts, dst, val)
        applied.append("%s <- %s" % (dst, src))
    return applied


def f32(v):
    """Shortest decimal that reads back as the same float32."""
    return float(np.format_float_positional(np.float32(v), unique=True,
                                            trim="-"))


def options_dict(msg):
    """Every field of msg, set or default (floats as shortest float32)."""
    out = {}
    for fd in msg.DESCRIPTOR.fields:
        v = getattr(msg, fd.name)
        if fd.label == fd.LABEL_REPEATED:
            if fd.message_type is not None:
                out[fd.name] = [options_dict(x) for x in v]
            else:
                out[fd.name] = [f32(x) if fd.type == fd.TYPE_FLOAT else
                                (x.item() if hasattr(x, "item") else x)
                                for x in v]
        elif fd.message_type is not None:
            out[fd.name] = options_dict(v) if msg.HasField(fd.name) else None
        elif fd.enum_type is not None:
            out[fd.name] = fd.enum_type.values_by_number[v].name
        elif fd.type == fd.TYPE_FLOAT:
            out[fd.name] = f32(v)
        else:
            out[fd.name] = v
    return out


def text(msg):
    return " ".join(text_format.MessageToString(msg, float_format=".9g").split())


def load_config():
    """Returns (effective options per calculator, provenance)."""
    if len(SO) != 1:
        raise SystemExit("expected one _framework_bindings*.so, got %r" % SO)
    data = open(SO[0], "rb").read()
    graphs, prov = {}, {}
    for name in ("FaceDetectionFullRangeCpu", "FaceDetectionFullRange",
                 "FaceDetection"):
        g, s, e = extract_compiled_graph(data, name)
        graphs[name] = g
        prov[name] = {"offset": s, "length": e - s,
                      "sha256": hashlib.sha256(data[s:e]).hexdigest(),
                      "text_proto": text_format.MessageToString(
                          g, float_format=".9g")}
    # The wheel's .binarypb is byte for byte the compiled
    # FaceDetectionFullRangeCpu graph.
    cpu = graphs["FaceDetectionFullRangeCpu"]
    s, e = prov["FaceDetectionFullRangeCpu"]["offset"], \
        prov["FaceDetectionFullRangeCpu"]["offset"] + \
        prov["FaceDetectionFullRangeCpu"]["length"]
    assert open(BINARYPB, "rb").read() == data[s:e], \
        "binarypb differs from the compiled graph"

    # FaceDetectionFullRangeCpu: one node FaceDetectionFullRange with
    # FaceDetectionOptions { delegate { xnnpack {} } }.
    assert [n.calculator for n in cpu.node] == ["FaceDetectionFullRange"]
    cpu_opts = unpack_node_options(cpu.node[0],
                                   face_detection_pb2.FaceDetectionOptions)
    # FaceDetectionFullRange: one node FaceDetection with the model options.
    fr = graphs["FaceDetectionFullRange"]
    assert [n.calculator for n in fr.node] == ["FaceDetection"]
    fr_opts = unpack_node_options(fr.node[0],
                                  face_detection_pb2.FaceDetectionOptions)
    # Effective FaceDetectionOptions seen by the FaceDetection subgraph: the
    # FaceDetectionFullRange node options, plus the delegate coming down from
    # FaceDetectionFullRangeCpu.  (The solution's min_score_thresh also comes
    # down via OPTIONS:options, but the node options win; see README.)
    fd_opts = face_detection_pb2.FaceDetectionOptions()
    fd_opts.CopyFrom(fr_opts)
    fd_opts.delegate.CopyFrom(cpu_opts.delegate)

    det = graphs["FaceDetection"]
    nodes = {n.calculator: n for n in det.node}
    assert [n.calculator for n in det.node] == [
        "ToImageCalculator", "ImageToTensorCalculator", "InferenceCalculator",
        "SsdAnchorsCalculator", "TensorsToDetectionsCalculator",
        "NonMaxSuppressionCalculator", "DetectionProjectionCalculator"], \
        [n.calculator for n in det.node]

    eff, applied = {}, {}
    for calc, ext in [
            ("ImageToTensorCalculator",
             image_to_tensor_calculator_pb2.ImageToTensorCalculatorOptions.ext),
            ("InferenceCalculator",
             inference_calculator_pb2.InferenceCalculatorOptions.ext),
            ("SsdAnchorsCalculator",
             ssd_anchors_calculator_pb2.SsdAnchorsCalculatorOptions.ext),
            ("TensorsToDetectionsCalculator",
             tensors_to_detections_calculator_pb2.TensorsToDetectionsCalculatorOptions.ext),
            ("NonMaxSuppressionCalculator",
             non_max_suppression_calculator_pb2.NonMaxSuppressionCalculatorOptions.ext)]:
        node = nodes[calc]
        opts = type(ext_options(node, ext))()
        opts.CopyFrom(ext_options(node, ext))
        applied[calc] = resolve_option_values(opts, node.option_value, fd_opts)
        eff[calc] = opts
    # InferenceCalculator's model_path is relative to the wheel's root.
    assert eff["InferenceCalculator"].model_path == MODEL_REL
    return {"graphs": graphs, "prov": prov, "fd_opts": fd_opts,
            "fr_opts": fr_opts, "eff": eff, "applied": applied,
            "so_sha256": hashlib.sha256(data).hexdigest(),
            "so_name": os.path.relpath(SO[0], os.path.dirname(MP_DIR))}


# --------------------------------------------------------------------------
# Anchors, decoding, NMS, projection: numpy ports used as a cross-check
# --------------------------------------------------------------------------

def _load_expf():
    """glibc's expf, which is what MediaPipe's std::exp(float) calls on
    Linux.  numpy's own float32 exp differs from it by 1 ulp on some inputs
    (e.g. a multi_face score), which then leaks into the weighted NMS."""
    import ctypes
    import ctypes.util
    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        fn = libm.expf
    except (OSError, AttributeError):
        return None, "numpy.exp (no libm expf found)"
    fn.restype = ctypes.c_float
    fn.argtypes = [ctypes.c_float]
    return fn, "libm expf"


EXPF, EXP_SOURCE = _load_expf()


def sigmoid_expf(x, clip):
    """float32 1 / (1 + exp(-clamp(x))) as TensorsToDetectionsCalculator
    computes it (expf from libm when available)."""
    F = np.float32
    x = np.clip(np.asarray(x, np.float32), -F(clip), F(clip))
    if EXPF is None:
        return sr.sigmoid_f32(x)
    e = np.array([EXPF(float(-v)) for v in x.reshape(-1)], np.float32)
    return (F(1) / (F(1) + e)).astype(np.float32).reshape(x.shape)

def ssd_anchors(o):
    """Port of SsdAnchorsCalculator::GenerateAnchors (non-multiscale path),
    float32 like the C++.  Returns Nx4 (x_center, y_center, w, h)."""
    assert not o.multiscale_anchor_generation and not o.feature_map_width
    F = np.float32
    strides = list(o.strides)
    assert len(strides) == o.num_layers

    def scale(i, n):
        if n == 1:
            return (F(o.min_scale) + F(o.max_scale)) * F(0.5)
        return F(o.min_scale) + (F(o.max_scale) - F(o.min_scale)) * F(i) / F(n - 1)

    anchors = []
    layer = 0
    while layer < o.num_layers:
        ars, scales = [], []
        last = layer
        while last < len(strides) and strides[last] == strides[layer]:
            s = scale(last, len(strides))
            if last == 0 and o.reduce_boxes_in_lowest_layer:
                ars += [F(1.0), F(2.0), F(0.5)]
                scales += [F(0.1), s, s]
            else:
                for ar in o.aspect_ratios:
                    ars.append(F(ar))
                    scales.append(s)
                if o.interpolated_scale_aspect_ratio > 0.0:
                    nxt = F(1.0) if last == len(strides) - 1 else \
                        scale(last + 1, len(strides))
                    scales.append(F(np.sqrt(s * nxt)))
                    ars.append(F(o.interpolated_scale_aspect_ratio))
            last += 1
        hs, ws = [], []
        for ar, sc in zip(ars, scales):
            r = F(np.sqrt(ar))
            hs.append(sc / r)
            ws.append(sc * r)
        stride = strides[layer]
        fh = int(np.ceil(F(o.input_size_height) / F(stride)))
        fw = int(np.ceil(F(o.input_size_width) / F(stride)))
        for y in range(fh):
            for x in range(fw):
                for a in range(len(hs)):
                    xc = (F(x) + F(o.anchor_offset_x)) * F(1.0) / F(fw)
                    yc = (F(y) + F(o.anchor_offset_y)) * F(1.0) / F(fh)
                    if o.fixed_anchor_size:
                        w = h = F(1.0)
                    else:
                        w, h = ws[a], hs[a]
                    anchors.append((xc, yc, w, h))
        layer = last
    return np.array(anchors, dtype=np.float32)


def decode(reg, logits, anchors, o, thresh):
    """TensorsToDetectionsCalculator (CPU, XYWH because reverse_output_order)
    -> list of (score, [ymin, xmin, ymax, xmax], keypoints[6][2]) in anchor
    order, float32."""
    F = np.float32
    assert o.reverse_output_order and not o.apply_exponential_on_box_size
    reg = reg.reshape(-1, o.num_coords).astype(np.float32)
    a = anchors
    xc = reg[:, 0] / F(o.x_scale) * a[:, 2] + a[:, 0]
    yc = reg[:, 1] / F(o.y_scale) * a[:, 3] + a[:, 1]
    w = reg[:, 2] / F(o.w_scale) * a[:, 2]
    h = reg[:, 3] / F(o.h_scale) * a[:, 3]
    ymin, xmin = yc - h / F(2), xc - w / F(2)
    ymax, xmax = yc + h / F(2), xc + w / F(2)
    kx = reg[:, 4::2] / F(o.x_scale) * a[:, 2:3] + a[:, 0:1]
    ky = reg[:, 5::2] / F(o.y_scale) * a[:, 3:4] + a[:, 1:2]
    s = sigmoid_expf(logits.reshape(-1), o.score_clipping_thresh)
    dets = []
    for i in range(len(s)):
        if s[i] < F(thresh):
            continue
        bw, bh = xmax[i] - xmin[i], ymax[i] - ymin[i]
        if bw < 0 or bh < 0 or np.isnan(bw) or np.isnan(bh):
            continue
        dets.append((s[i], xmin[i], ymin[i], bw, bh,
                     np.stack([kx[i], ky[i]], axis=1)))
    return dets


def weighted_nms(dets, thresh):
    F = np.float32
    order = sorted(range(len(dets)), key=lambda i: -dets[i][0])

    def iou(a, b):
        ax0, ay0, ax1, ay1 = a[1], a[2], a[1] + a[3], a[2] + a[4]
        bx0, by0, bx1, by1 = b[1], b[2], b[1] + b[3], b[2] + b[4]
        if ax0 > bx1 or bx0 > ax1 or ay0 > by1 or by0 > ay1:
            return F(0)
        inter = (min(ax1, bx1) - max(ax0, bx0)) * (min(ay1, by1) - max(ay0, by0))
        norm = a[3] * a[4] + b[3] * b[4] - inter
        return inter / norm if norm > 0 else F(0)

    out = []
    remaining = order
    while remaining:
        top = dets[remaining[0]]
        cand, rest = [], []
        for i in remaining:
            (cand if iou(dets[i], top) > F(thresh) else rest).append(i)
        total = F(0)
        wx0 = wy0 = wx1 = wy1 = F(0)
        kp = np.zeros((6, 2), np.float32)
        for i in cand:
            d = dets[i]
            sc = d[0]
            total += sc
            wx0 += d[1] * sc
            wy0 += d[2] * sc
            wx1 += (d[1] + d[3]) * sc
            wy1 += (d[2] + d[4]) * sc
            kp += d[5] * sc
        xmin, ymin = wx0 / total, wy0 / total
        out.append((top[0], xmin, ymin, wx1 / total - xmin, wy1 / total - ymin,
                    kp / total))
        if len(rest) == len(remaining):
            break
        remaining = rest
    return out


def letterbox_matrix(width, height, size):
    """ImageToTensorCalculator's MATRIX for the whole image with
    keep_aspect_ratio (GetRoi + PadRoi + GetRotatedSubRectToRectTransformMatrix,
    rotation 0), float32."""
    F = np.float32
    rw, rh = F(width), F(height)
    tensor_ar = F(size) / F(size)
    if tensor_ar > rh / rw:
        rw, rh = rw, rw * tensor_ar
    else:
        rw, rh = rh / tensor_ar, rh
    a, b = rw, rh
    e, f = F(0.5) * F(width), F(0.5) * F(height)
    g, h = F(1) / F(width), F(1) / F(height)
    return (a * g, (F(-0.5) * a + e) * g, b * h, (F(-0.5) * b + f) * h)


def project(dets, width, height, size):
    m0, m3, m5, m7 = letterbox_matrix(width, height, size)
    out = []
    for sc, x, y, w, h, kp in dets:
        x0, x1 = x * m0 + m3, (x + w) * m0 + m3
        y0, y1 = y * m5 + m7, (y + h) * m5 + m7
        kpp = np.stack([kp[:, 0] * m0 + m3, kp[:, 1] * m5 + m7], axis=1)
        out.append({"score": float(sc),
                    "relativeBoundingBox": {"xmin": float(x0), "ymin": float(y0),
                                            "width": float(x1 - x0),
                                            "height": float(y1 - y0)},
                    "keypoints": [{"x": float(p[0]), "y": float(p[1])}
                                  for p in kpp]})
    return out


def max_detection_diff(a, b):
    """Largest absolute difference over scores, boxes and keypoints of two
    equally long detection lists; None if the counts differ."""
    if len(a) != len(b):
        return None
    m = 0.0
    for x, y in zip(a, b):
        m = max(m, abs(x["score"] - y["score"]))
        for k in ("xmin", "ymin", "width", "height"):
            m = max(m, abs(x["relativeBoundingBox"][k] -
                           y["relativeBoundingBox"][k]))
        for p, q in zip(x["keypoints"], y["keypoints"]):
            m = max(m, abs(p["x"] - q["x"]), abs(p["y"] - q["y"]))
    return m


# --------------------------------------------------------------------------
# 2. MediaPipe runs
# --------------------------------------------------------------------------

def run_tensor_graph(rgb, itt_options, delegate, num_boxes, num_coords, size):
    config = sr.TENSOR_GRAPH % {"itt": itt_options, "model": MODEL,
                                "delegate": delegate}
    out = sr.run_float_streams(config, rgb)
    inp = out["input_floats"]
    assert inp.size == size * size * 3, inp.size
    # Output 0 must be the 2304x16 regressors and output 1 the 2304 logits.
    assert out["out0_floats"].size == num_boxes * num_coords, out["out0_floats"].size
    assert out["out1_floats"].size == num_boxes, out["out1_floats"].size
    return inp, out["out0_floats"], out["out1_floats"]


def legacy_detect(rgb, min_conf):
    with mp.solutions.face_detection.FaceDetection(
            model_selection=1, min_detection_confidence=min_conf) as fd:
        result = fd.process(rgb)
    return [sr.legacy_dict(d) for d in result.detections or []]


def face_detection_subgraph_config(fd_opts, min_conf):
    """A graph of one node, the compiled FaceDetection subgraph, with the effective
    full-range FaceDetectionOptions (absolute model path) and min_score_thresh =
    min_conf."""
    opts = face_detection_pb2.FaceDetectionOptions()
    opts.CopyFrom(fd_opts)
    opts.model_path = MODEL
    opts.min_score_thresh = min_conf
    return """
input_stream: "image"
output_stream: "detections"
node {
  calculator: "FaceDetection"
  input_stream: "IMAGE:image"
  output_stream: "DETECTIONS:detections"
  node_options {
    [type.googleapis.com/mediapipe.FaceDetectionOptions] { %s }
  }
}
""" % text_format.MessageToString(opts, as_one_line=True)


def legacy_subgraph_detect(rgb, fd_opts, min_conf):
    """The compiled FaceDetection subgraph, run directly with the effective
    full-range FaceDetectionOptions (absolute model path) and
    min_score_thresh = min_conf."""
    config = face_detection_subgraph_config(fd_opts, min_conf)
    graph = mp.CalculatorGraph(graph_config=config)
    packets = []
    graph.observe_output_stream(
        "detections",
        lambda name, p: packets.append(mp.packet_getter.get_proto_list(p)))
    graph.start_run()
    graph.add_packet_to_input_stream(
        "image", mp.packet_creator.create_image_frame(
            image_format=mp.ImageFormat.SRGB, data=rgb).at(0))
    graph.close()
    assert len(packets) <= 1
    return [sr.legacy_dict(d) for d in (packets[0] if packets else [])]


def to_pixel(dets, width, height):
    """MediaPipe Tasks' relative -> pixel box conversion
    (DetectionTransformationCalculator): each field times the image size in
    float32, truncated toward zero, clamped to [0, size]; keypoints stay
    relative, unclamped, labelled."""
    rule = sr.PIXEL_RULES["trunc_f32"]
    out = []
    for d in dets:
        rb = d["relativeBoundingBox"]
        out.append({
            "boundingBox": {"originX": rule(rb["xmin"], width),
                            "originY": rule(rb["ymin"], height),
                            "width": rule(rb["width"], width),
                            "height": rule(rb["height"], height)},
            "categories": [{"index": 0, "score": d["score"]}],
            "keypoints": [{"x": k["x"], "y": k["y"], "label": KEYPOINT_LABELS[i]}
                          for i, k in enumerate(d["keypoints"])],
        })
    return out


def opencv_preprocess(rgb, size):
    """check_preprocessing.py's OpenCV re-derivation (the warpPerspective
    variant, which is the one that is exact on every fixture), at `size`."""
    import cv2
    h, w = rgb.shape[:2]
    side = float(max(w, h))
    src = cv2.boxPoints(((w / 2.0, h / 2.0), (side, side), 0.0)).astype(np.float32)
    dst = np.array([[0, size], [0, 0], [size, 0], [size, size]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(rgb, m, (size, size), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    scale = np.float32(2.0) / np.float32(255.0)
    return (out.astype(np.float64) * np.float64(scale) - 1.0).astype(np.float32)


def dump_json(path, doc, indent=1):
    with open(path, "w") as f:
        json.dump(doc, f, indent=indent)
        f.write("\n")


def main():
    model_sha = sr.sha256(MODEL)
    if model_sha != MODEL_SHA256:
        sys.exit("unexpected model sha256 %s" % model_sha)
    cfg = load_config()
    eff, fd_opts = cfg["eff"], cfg["fd_opts"]
    itt = eff["ImageToTensorCalculator"]
    anc = eff["SsdAnchorsCalculator"]
    t2d = eff["TensorsToDetectionsCalculator"]
    nms = eff["NonMaxSuppressionCalculator"]
    size = itt.output_tensor_width
    assert size == itt.output_tensor_height == 192
    num_boxes, num_coords = t2d.num_boxes, t2d.num_coords
    effective_legacy_thresh = f32(fd_opts.min_score_thresh)

    anchors = ssd_anchors(anc)
    assert anchors.shape == (num_boxes, 4), anchors.shape
    os.makedirs(OUT_ROOT, exist_ok=True)
    sr.write_f32(os.path.join(OUT_ROOT, "anchors.f32"), anchors)

    # The ImageToTensorCalculator options for TENSOR_GRAPH, from the
    # effective options (no ROI is connected: the whole image is used).
    itt_text = text(itt)

    pngs = sorted(glob.glob(os.path.join(IMAGES, "*.png")))
    if not pngs:
        sys.exit("no fixtures in %s" % IMAGES)
    entries = []
    legacy_vs = {"legacy_equals_subgraph_at_%s" % effective_legacy_thresh: 0,
                 "runs": 0, "legacy_differs_from_subgraph_at_T": 0}
    for png in pngs:
        stem = os.path.splitext(os.path.basename(png))[0]
        rgb, mode = sr.load_rgb(png)
        h, w = rgb.shape[:2]
        out_dir = os.path.join(OUT_ROOT, stem)
        os.makedirs(out_dir, exist_ok=True)

        inp, reg, logits = run_tensor_graph(rgb, itt_text, DELEGATE_GOLDEN,
                                            num_boxes, num_coords, size)
        again = run_tensor_graph(rgb, itt_text, DELEGATE_GOLDEN,
                                 num_boxes, num_coords, size)
        if not all(np.array_equal(x, y) for x, y in zip((inp, reg, logits), again)):
            sys.exit("%s: XNNPACK run is not deterministic" % stem)
        sr.write_f32(os.path.join(out_dir, "input.f32"), inp)
        sr.write_f32(os.path.join(out_dir, "regressors.f32"), reg)
        sr.write_f32(os.path.join(out_dir, "scores.f32"), logits)

        inp2, reg2, logits2 = run_tensor_graph(rgb, itt_text, DELEGATE_COMPARE,
                                               num_boxes, num_coords, size)
        assert np.array_equal(inp, inp2)
        opencv_exact = bool(np.array_equal(
            opencv_preprocess(rgb, size).reshape(-1), inp))

        probs = sigmoid_expf(logits, t2d.score_clipping_thresh)
        score_err = 0.0
        counts, numpy_diff = {}, {}
        for min_conf, fname in THRESHOLDS:
            legacy = legacy_detect(rgb, min_conf)
            subgraph = legacy_subgraph_detect(rgb, fd_opts, min_conf)
            at_eff = legacy_subgraph_detect(rgb, fd_opts, fd_opts.min_score_thresh)
            legacy_vs["runs"] += 1
            if legacy != at_eff:
                sys.exit("%s: legacy solution at T=%s differs from the "
                         "subgraph at min_score_thresh %s" %
                         (stem, min_conf, effective_legacy_thresh))
            legacy_vs["legacy_equals_subgraph_at_%s" % effective_legacy_thresh] += 1
            legacy_vs["legacy_differs_from_subgraph_at_T"] += legacy != subgraph

            # numpy re-derivation from the golden tensors
            ref = project(weighted_nms(decode(reg, logits, anchors, t2d, min_conf),
                                       nms.min_suppression_threshold),
                          w, h, size)
            diff = max_detection_diff(ref, subgraph)
            if diff is None or diff > (0.0 if EXPF is not None else 1e-5):
                sys.exit("%s @%s: numpy post-processing disagrees with "
                         "MediaPipe (%r)" % (stem, min_conf, diff))
            numpy_diff[str(min_conf)] = diff

            doc = {"width": w, "height": h,
                   "min_detection_confidence": min_conf,
                   "legacy": legacy,
                   "legacy_effective_min_detection_confidence":
                       effective_legacy_thresh,
                   "legacy_subgraph": subgraph,
                   "pixel": to_pixel(subgraph, w, h),
                   "legacy_pixel": to_pixel(legacy, w, h)}
            dump_json(os.path.join(out_dir, fname), doc)
            for d in legacy + subgraph:
                err = float(np.min(np.abs(probs - np.float32(d["score"]))))
                score_err = max(score_err, err)
                # Exact with libm expf; numpy's exp may be 1 ulp off.
                if err > (0.0 if EXPF is not None else 1e-6):
                    sys.exit("%s: final score %r is not sigmoid(golden logit) "
                             "(closest diff %g)" % (stem, d["score"], err))
            counts[str(min_conf)] = {
                "legacy": len(legacy),
                "legacy_subgraph": len(subgraph),
                "raw_anchors_above_threshold": int(np.sum(probs >= np.float32(min_conf))),
            }
        entry = {
            "name": stem,
            "image": os.path.relpath(png, FIXTURES),
            "image_sha256": sr.sha256(png),
            "png_mode": mode,
            "width": w,
            "height": h,
            "goldens": os.path.relpath(out_dir, FIXTURES),
            "faces": counts,
            "max_logit": float(np.max(logits)),
            "min_logit": float(np.min(logits)),
            "max_abs_regressor": float(np.max(np.abs(reg))),
            "max_final_score_vs_sigmoid_logit_diff": score_err,
            "input_matches_opencv_rederivation": opencv_exact,
            "numpy_postprocessing_vs_mediapipe_max_abs_diff": numpy_diff,
            "xnnpack_vs_tflite_cpu_max_abs_diff": {
                "regressors": float(np.max(np.abs(reg - reg2))),
                "scores": float(np.max(np.abs(logits - logits2))),
                "sigmoid_scores": float(np.max(np.abs(
                    probs - sigmoid_expf(logits2, t2d.score_clipping_thresh)))),
                "max_ratio_to_tolerance_1e-3_plus_1e-4_abs": float(max(
                    np.max(np.abs(reg - reg2) / (1e-3 + 1e-4 * np.abs(reg))),
                    np.max(np.abs(logits - logits2) /
                           (1e-3 + 1e-4 * np.abs(logits))))),
            },
        }
        entries.append(entry)
        print("%-22s %4dx%-4d %-4s faces legacy=%d  subgraph@0.5=%d "
              "subgraph@0.3=%d  opencv=%s numpy=%s"
              % (stem, w, h, mode, counts["0.5"]["legacy"],
                 counts["0.5"]["legacy_subgraph"],
                 counts["0.3"]["legacy_subgraph"], opencv_exact,
                 {k: "%.2g" % v for k, v in numpy_diff.items()}))

    write_config(cfg, anchors, size, num_boxes, num_coords, model_sha)

    import PIL
    import skimage
    manifest = {
        "generator": "Tools/reference/make_goldens_full_range.py",
        "command": COMMAND,
        "mediapipe_version": mp.__version__,
        "numpy_version": np.__version__,
        "pillow_version": PIL.__version__,
        "scikit_image_version": skimage.__version__,
        "model": MODEL_REL,
        "model_sha256": model_sha,
        "config": "config.json",
        "anchors": {"file": "anchors.f32", "shape": [num_boxes, 4],
                    "columns": ["x_center", "y_center", "w", "h"],
                    "dtype": "float32", "byte_order": "little"},
        "input_tensor": {"shape": [1, size, size, 3], "layout": "NHWC",
                         "dtype": "float32", "byte_order": "little"},
        "regressors": {"shape": [1, num_boxes, num_coords], "dtype": "float32",
                       "byte_order": "little"},
        "scores": {"shape": [1, num_boxes, 1], "dtype": "float32",
                   "byte_order": "little", "note": "raw logits, no sigmoid"},
        "image_to_tensor_options": itt_text,
        "inference_delegate": DELEGATE_GOLDEN,
        "detections": {
            "thresholds": {"detections.json": 0.5,
                           "detections_min0.3.json": 0.3},
            "min_suppression_threshold": f32(nms.min_suppression_threshold),
            "legacy": "mp.solutions.face_detection.FaceDetection(model_selection=1, "
                      "min_detection_confidence=T); T is ignored, %s is used"
                      % effective_legacy_thresh,
            "legacy_subgraph": "compiled FaceDetection subgraph with the "
                               "FaceDetectionFullRange options, delegate "
                               "xnnpack and min_score_thresh=T",
            "pixel": "legacy_subgraph converted like MediaPipe Tasks: "
                     "clamp(trunc(float32(rel) * float32(size)), 0, size) per field",
            "legacy_pixel": "the same conversion of legacy",
        },
        "legacy_threshold_check": legacy_vs,
        "numpy_postprocessing_exp": EXP_SOURCE,
        "fixtures": entries,
    }
    dump_json(os.path.join(OUT_ROOT, "manifest.json"), manifest)
    return 0


def write_config(cfg, anchors, size, num_boxes, num_coords, model_sha):
    eff = cfg["eff"]
    anc = eff["SsdAnchorsCalculator"]
    t2d = eff["TensorsToDetectionsCalculator"]
    fh = int(np.ceil(anc.input_size_height / anc.strides[0]))
    fw = int(np.ceil(anc.input_size_width / anc.strides[0]))
    doc = {
        "generator": "Tools/reference/make_goldens_full_range.py",
        "mediapipe_version": mp.__version__,
        "model": MODEL_REL,
        "model_sha256": model_sha,
        "note": "Effective options of every calculator in the legacy "
                "FaceDetectionFullRangeCpu -> FaceDetectionFullRange -> "
                "FaceDetection graph, read from the serialized subgraphs "
                "compiled into %s, with option_value resolved. Every field "
                "is listed, set or default. Floats are the shortest decimals "
                "that read back as the same float32." % cfg["so_name"],
        "face_detection_options": {
            "effective": options_dict(cfg["fd_opts"]),
            "from_FaceDetectionFullRange_node": text(cfg["fr_opts"]),
            "delegate_from_FaceDetectionFullRangeCpu_node": "delegate { xnnpack { } }",
        },
        "pipeline": [
            "ToImageCalculator",
            "ImageToTensorCalculator (ROI input not connected in "
            "FaceDetectionFullRangeCpu: whole image, letterboxed)",
            "InferenceCalculator",
            "SsdAnchorsCalculator (side packet)",
            "TensorsToDetectionsCalculator",
            "NonMaxSuppressionCalculator",
            "DetectionProjectionCalculator (maps tensor-space boxes and "
            "keypoints back through ImageToTensorCalculator's MATRIX, which "
            "is what removes the letterbox)",
        ],
        "image_to_tensor": options_dict(eff["ImageToTensorCalculator"]),
        "inference": options_dict(eff["InferenceCalculator"]),
        "ssd_anchors": options_dict(anc),
        "anchors": {
            "count": int(anchors.shape[0]),
            "feature_map": [fh, fw],
            "anchors_per_cell": int(anchors.shape[0]) // (fh * fw),
            "order": "row-major over (y, x, anchor)",
            "x_center": "(x + 0.5) / %d in float32" % fw,
            "y_center": "(y + 0.5) / %d in float32" % fh,
            "w_h": "1.0 (fixed_anchor_size)",
            "file": "anchors.f32 (%dx4 float32 LE: x_center, y_center, w, h)"
                    % anchors.shape[0],
        },
        "tensors_to_detections": options_dict(t2d),
        "tensors_to_detections_notes": {
            "box_layout": "reverse_output_order true -> XYWH: each row is "
                          "x_center, y_center, w, h, then 6 keypoints as x, y",
            "decode": "x_c = r0 / x_scale * anchor.w + anchor.x_c; "
                      "y_c = r1 / y_scale * anchor.h + anchor.y_c; "
                      "w = r2 / w_scale * anchor.w; h = r3 / h_scale * anchor.h; "
                      "kp_x = r[4+2k] / x_scale * anchor.w + anchor.x_c; "
                      "kp_y = r[5+2k] / y_scale * anchor.h + anchor.y_c; "
                      "box = (x_c - w/2, y_c - h/2, x_c + w/2, y_c + h/2)",
            "score": "sigmoid(clamp(logit, -100, 100)); kept if >= "
                     "min_score_thresh; boxes with negative or NaN width/height "
                     "are dropped",
        },
        "non_max_suppression": options_dict(eff["NonMaxSuppressionCalculator"]),
        "non_max_suppression_notes": (
            "Sort by score, descending (std::sort, not stable). Repeat: take "
            "the first remaining detection; every remaining detection "
            "(itself included) whose IoU with it is > 0.3 is a candidate, "
            "the rest remain. Output the first detection with its own score "
            "and with xmin, ymin, xmax, ymax and each keypoint replaced by "
            "the score-weighted mean over the candidates (float32 sums in "
            "candidate order; width = mean xmax - mean xmin). Stop when no "
            "detection is removed. IoU = inter / (area1 + area2 - inter), 0 "
            "if the boxes do not intersect."),
        "detection_projection": (
            "DetectionProjectionCalculator with ImageToTensorCalculator's "
            "MATRIX (no options). For the whole image letterboxed to a square "
            "of side S = max(W, H), in float32: x' = x * (S/W) + (-0.5*S + "
            "0.5*W) * (1/W), y' = y * (S/H) + (-0.5*S + 0.5*H) * (1/H), where "
            "S/W is computed as S * (1/W). Keypoints are mapped; the box's 4 "
            "corners are mapped and their bounding box taken, so width = "
            "x'(xmin + width) - x'(xmin)."),
        "model_ops": "model_ops.json (Tools/reference/inspect_full_range_model.py)",
        "option_value_resolution": cfg["applied"],
        "model_io": {
            "input": {"name": "input_1", "shape": [1, size, size, 3],
                      "dtype": "float32", "layout": "NHWC",
                      "range": [-1.0, 1.0]},
            "outputs": [
                {"index": 0, "name": "Identity", "shape": [1, num_boxes, num_coords],
                 "metadata_name": "raw boxes/keypoints"},
                {"index": 1, "name": "Identity_1", "shape": [1, num_boxes, 1],
                 "metadata_name": "scores"},
            ],
            "note": "InferenceCalculator emits the outputs in this order "
                    "(checked by size on every fixture)",
            "metadata_normalization": {"mean": 127.5, "std": 127.5},
        },
        "legacy_solution": {
            "honours_min_detection_confidence": False,
            "effective_min_score_thresh": f32(cfg["fd_opts"].min_score_thresh),
            "why": "FaceDetectionFullRange's node_options for FaceDetection "
                   "set min_score_thresh 0.6; the solution's graph option "
                   "does not override it (verified on every fixture: the "
                   "solution equals the subgraph run at 0.6 for T = 0.5 "
                   "and 0.3)",
        },
        "tasks_api": "mediapipe.tasks FaceDetector (0.10.14) cannot run this "
                     "model: its graph hard-codes the short-range anchors and "
                     "num_boxes 896, and fails with RET_CHECK "
                     "raw_box_tensor->shape().dims[1] == num_boxes_",
        "sources": {
            "framework_bindings": cfg["so_name"],
            "framework_bindings_sha256": cfg["so_sha256"],
            "binarypb": "mediapipe/modules/face_detection/"
                        "face_detection_full_range_cpu.binarypb",
            "binarypb_sha256": sr.sha256(BINARYPB),
            "compiled_subgraphs": cfg["prov"],
        },
    }
    dump_json(os.path.join(OUT_ROOT, "config.json"), doc)


if __name__ == "__main__":
    sys.exit(main())
