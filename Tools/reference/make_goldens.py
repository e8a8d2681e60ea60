#!/usr/bin/env python3
"""Writes MediaPipe 0.10.14 golden files for every fixture PNG.

For each Tests/Fixtures/images/<stem>.png this writes
Tests/Fixtures/goldens/short_range/<stem>/:

  input.f32        1x128x128x3 NHWC float32 LE: the model input produced by
                   MediaPipe's own ImageToTensorCalculator (options copied from
                   the real face-detection graph, see TENSOR_GRAPH below).
  regressors.f32   1x896x16 float32 LE: raw model output 0 (boxes+keypoints).
  scores.f32       1x896x1  float32 LE: raw model output 1 (logits, before
                   the sigmoid).
  detections.json        final detections, min_detection_confidence 0.5
  detections_min0.3.json final detections, min_detection_confidence 0.3

and Tests/Fixtures/goldens/short_range/manifest.json.

The raw tensors come from one MediaPipe CalculatorGraph:
  ToImageCalculator -> ImageToTensorCalculator -> InferenceCalculator
  -> SplitTensorVectorCalculator -> TensorsToFloatsCalculator (x3)
which is the front half of the legacy "FaceDetection" subgraph, node for
node, with the same options (the legacy FaceDetectionShortRangeCpu graph runs
the InferenceCalculator with the XNNPACK delegate; so do we).

Detections come from the Tasks API (mediapipe.tasks.python.vision.
FaceDetector), from the legacy solution (mp.solutions.face_detection, which
ignores min_detection_confidence for this model and always uses 0.5) and from
the legacy "FaceDetection" subgraph run directly with the requested threshold
("legacy_subgraph").

Pixels fed to MediaPipe are exactly PIL.Image.open(png).convert("RGB"):
gray is replicated to RGB, alpha is dropped (not premultiplied).

Usage:
  .venv-reference/bin/python Tools/reference/make_fixtures.py && \
  .venv-reference/bin/python Tools/reference/make_goldens.py
"""

import glob
import hashlib
import json
import math
import os
import sys

import numpy as np
from PIL import Image

import mediapipe as mp
from mediapipe.tasks.python import BaseOptions
from mediapipe.tasks.python import vision

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(REPO, "Tests", "Fixtures")
IMAGES = os.path.join(FIXTURES, "images")
OUT_ROOT = os.path.join(FIXTURES, "goldens", "short_range")

MP_DIR = os.path.dirname(mp.__file__)
MODEL = os.path.join(MP_DIR, "modules", "face_detection",
                     "face_detection_short_range.tflite")
MODEL_SHA256 = "bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8"

COMMAND = (".venv-reference/bin/python Tools/reference/make_fixtures.py && "
           ".venv-reference/bin/python Tools/reference/make_goldens.py")

NUM_BOXES = 896
NUM_COORDS = 16
TENSOR_SIZE = 128

# The ImageToTensorCalculator options are those of the legacy subgraph
# "FaceDetection" (mediapipe/modules/face_detection/face_detection.pbtxt,
# compiled into the wheel), with output_tensor_width/height = 128 supplied by
# "FaceDetectionShortRange" (tensor_width/tensor_height 128).  The Tasks
# FaceDetectorGraph builds the identical options: size from the model, float
# range from the model metadata NormalizationOptions mean=127.5 std=127.5
# ((0-127.5)/127.5 = -1, (255-127.5)/127.5 = 1), keep_aspect_ratio true,
# border_mode BORDER_ZERO (gpu_origin TOP_LEFT, irrelevant on CPU).
IMAGE_TO_TENSOR_OPTIONS = """
      output_tensor_width: 128
      output_tensor_height: 128
      keep_aspect_ratio: true
      output_tensor_float_range { min: -1.0 max: 1.0 }
      border_mode: BORDER_ZERO
"""

TENSOR_GRAPH = """
input_stream: "image"
output_stream: "input_floats"
output_stream: "out0_floats"
output_stream: "out1_floats"
node {
  calculator: "ToImageCalculator"
  input_stream: "IMAGE:image"
  output_stream: "IMAGE:multi_backend_image"
}
node {
  calculator: "ImageToTensorCalculator"
  input_stream: "IMAGE:multi_backend_image"
  output_stream: "TENSORS:input_tensors"
  output_stream: "MATRIX:transform_matrix"
  options {
    [mediapipe.ImageToTensorCalculatorOptions.ext] {%(itt)s}
  }
}
node {
  calculator: "TensorsToFloatsCalculator"
  input_stream: "TENSORS:input_tensors"
  output_stream: "FLOATS:input_floats"
}
node {
  calculator: "InferenceCalculator"
  input_stream: "TENSORS:input_tensors"
  output_stream: "TENSORS:detection_tensors"
  options {
    [mediapipe.InferenceCalculatorOptions.ext] {
      model_path: "%(model)s"
      delegate { %(delegate)s }
    }
  }
}
node {
  calculator: "SplitTensorVectorCalculator"
  input_stream: "detection_tensors"
  output_stream: "out0"
  output_stream: "out1"
  options {
    [mediapipe.SplitVectorCalculatorOptions.ext] {
      ranges { begin: 0 end: 1 }
      ranges { begin: 1 end: 2 }
    }
  }
}
node {
  calculator: "TensorsToFloatsCalculator"
  input_stream: "TENSORS:out0"
  output_stream: "FLOATS:out0_floats"
}
node {
  calculator: "TensorsToFloatsCalculator"
  input_stream: "TENSORS:out1"
  output_stream: "FLOATS:out1_floats"
}
"""

DELEGATE_GOLDEN = "xnnpack {}"     # as in face_detection_short_range_cpu.binarypb
DELEGATE_COMPARE = "tflite {}"     # plain TFLite CPU kernels, for a tolerance

KEYPOINT_LABELS = ["rightEye", "leftEye", "noseTip", "mouthCenter",
                   "rightEarTragion", "leftEarTragion"]

THRESHOLDS = [(0.5, "detections.json"), (0.3, "detections_min0.3.json")]
MIN_SUPPRESSION_THRESHOLD = 0.3


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load_rgb(path):
    with Image.open(path) as im:
        im.load()
        mode = im.mode
        rgb = np.ascontiguousarray(np.asarray(im.convert("RGB"), np.uint8))
    return rgb, mode


def feed_one_frame(graph, rgb):
    """Starts `graph`, sends the RGB frame on stream "image" at timestamp 0 and
    closes the graph (which waits for every output)."""
    graph.start_run()
    graph.add_packet_to_input_stream(
        "image",
        mp.packet_creator.create_image_frame(
            image_format=mp.ImageFormat.SRGB, data=rgb).at(0))
    graph.close()


def run_float_streams(config, rgb):
    """Runs a graph config on one RGB frame; returns its float-list streams
    (input_floats, out0_floats, out1_floats) as float32 arrays by name."""
    graph = mp.CalculatorGraph(graph_config=config)
    out = {}

    def grab(name, packet):
        assert name not in out, name
        out[name] = np.array(mp.packet_getter.get_float_list(packet),
                             dtype=np.float32)

    for stream in ("input_floats", "out0_floats", "out1_floats"):
        graph.observe_output_stream(stream, grab)
    feed_one_frame(graph, rgb)
    return out


def run_tensor_graph(rgb, delegate):
    """Returns (input, regressors, scores) as float32 arrays."""
    config = TENSOR_GRAPH % {"itt": IMAGE_TO_TENSOR_OPTIONS, "model": MODEL,
                             "delegate": delegate}
    out = run_float_streams(config, rgb)

    inp = out["input_floats"]
    assert inp.size == TENSOR_SIZE * TENSOR_SIZE * 3, inp.size
    # The model has two outputs: 1x896x16 regressors and 1x896x1
    # classificators.  Identify them by size rather than trusting the order.
    outs = [out["out0_floats"], out["out1_floats"]]
    sizes = sorted(o.size for o in outs)
    assert sizes == [NUM_BOXES, NUM_BOXES * NUM_COORDS], sizes
    reg = next(o for o in outs if o.size == NUM_BOXES * NUM_COORDS)
    scores = next(o for o in outs if o.size == NUM_BOXES)
    order = "regressors,scores" if outs[0] is reg else "scores,regressors"
    return inp, reg, scores, order


def write_f32(path, arr):
    np.ascontiguousarray(arr, dtype="<f4").tofile(path)


def tasks_detect(rgb, min_conf):
    options = vision.FaceDetectorOptions(
        base_options=BaseOptions(model_asset_path=MODEL),
        running_mode=vision.RunningMode.IMAGE,
        min_detection_confidence=min_conf,
        min_suppression_threshold=MIN_SUPPRESSION_THRESHOLD)
    with vision.FaceDetector.create_from_options(options) as detector:
        result = detector.detect(
            mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb))
    dets = []
    for d in result.detections:
        bb = d.bounding_box
        dets.append({
            "boundingBox": {"originX": int(bb.origin_x),
                            "originY": int(bb.origin_y),
                            "width": int(bb.width),
                            "height": int(bb.height)},
            "categories": [{"index": int(c.index), "score": float(c.score)}
                           for c in d.categories],
            "keypoints": [{"x": float(k.x), "y": float(k.y),
                           "label": k.label if k.label else KEYPOINT_LABELS[i]}
                          for i, k in enumerate(d.keypoints or [])],
        })
    return dets


def legacy_detect(rgb, min_conf):
    with mp.solutions.face_detection.FaceDetection(
            model_selection=0, min_detection_confidence=min_conf) as fd:
        result = fd.process(rgb)
    return [legacy_dict(d) for d in result.detections or []]


# The legacy "FaceDetection" subgraph (face_detection.pbtxt) run directly with
# the node options that "FaceDetectionShortRange" gives it, plus the delegate
# from FaceDetectionShortRangeCpu, but with min_score_thresh actually set to
# the requested threshold.  Needed because the legacy Python solution ignores
# min_detection_confidence for the short-range model (see README).
LEGACY_SUBGRAPH = """
input_stream: "image"
output_stream: "detections"
node {
  calculator: "FaceDetection"
  input_stream: "IMAGE:image"
  output_stream: "DETECTIONS:detections"
  node_options {
    [type.googleapis.com/mediapipe.FaceDetectionOptions] {
      model_path: "%(model)s"
      tensor_width: 128
      tensor_height: 128
      num_layers: 4
      strides: 8
      strides: 16
      strides: 16
      strides: 16
      interpolated_scale_aspect_ratio: 1.0
      num_boxes: 896
      x_scale: 128.0
      y_scale: 128.0
      w_scale: 128.0
      h_scale: 128.0
      min_score_thresh: %(thresh)r
      delegate { xnnpack {} }
    }
  }
}
"""


def legacy_dict(d):
    ld = d.location_data
    rb = ld.relative_bounding_box
    return {
        "score": float(d.score[0]),
        "relativeBoundingBox": {"xmin": float(rb.xmin),
                                "ymin": float(rb.ymin),
                                "width": float(rb.width),
                                "height": float(rb.height)},
        "keypoints": [{"x": float(k.x), "y": float(k.y)}
                      for k in ld.relative_keypoints],
    }


def legacy_subgraph_detect(rgb, min_conf):
    graph = mp.CalculatorGraph(graph_config=LEGACY_SUBGRAPH % {
        "model": MODEL, "thresh": min_conf})
    packets = []
    graph.observe_output_stream(
        "detections",
        lambda name, p: packets.append(mp.packet_getter.get_proto_list(p)))
    feed_one_frame(graph, rgb)
    assert len(packets) <= 1
    # No packet at all is emitted when nothing is detected.
    return [legacy_dict(d) for d in (packets[0] if packets else [])]


def sigmoid_f32(x):
    x = np.clip(x.astype(np.float32), np.float32(-100), np.float32(100))
    return (np.float32(1) / (np.float32(1) + np.exp(-x))).astype(np.float32)


# Candidate rules for the Tasks pixel box: value = rule(relative * size),
# then clamped to [0, size] (DetectionTransformationCalculator BoundedValue).
def _clamp(v, hi):
    return max(0, min(v, hi))


PIXEL_RULES = {
    "trunc_f32": lambda r, s: _clamp(int(np.float32(r) * np.float32(s)), s),
    "trunc_f64": lambda r, s: _clamp(int(r * s), s),
    "floor_f64": lambda r, s: _clamp(math.floor(r * s), s),
    "round_half_away_f64": lambda r, s: _clamp(
        int(math.copysign(math.floor(abs(r * s) + 0.5), r * s)), s),
    "ceil_f64": lambda r, s: _clamp(math.ceil(r * s), s),
}


def compare_tasks_legacy(tasks, legacy, width, height, stats):
    """Compares Tasks and legacy detections of one run, accumulating which
    pixel-box rounding rules reproduce the Tasks integers."""
    if tasks is None:
        return
    if len(tasks) != len(legacy):
        stats["count_mismatch"] += 1
        return
    for t, l in zip(tasks, legacy):
        stats["pairs"] += 1
        if t["categories"][0]["score"] != l["score"]:
            stats["score_mismatch"] += 1
        for tk, lk in zip(t["keypoints"], l["keypoints"]):
            if tk["x"] != lk["x"] or tk["y"] != lk["y"]:
                stats["keypoint_mismatch"] += 1
                break
        rb = l["relativeBoundingBox"]
        fields = [("originX", rb["xmin"], width), ("originY", rb["ymin"], height),
                  ("width", rb["width"], width), ("height", rb["height"], height)]
        for name, rel, size in fields:
            got = t["boundingBox"][name]
            for rule, fn in PIXEL_RULES.items():
                key = "%s/%s" % (name, rule)
                stats["rules"].setdefault(key, [0, 0])
                stats["rules"][key][1] += 1
                if fn(rel, size) == got:
                    stats["rules"][key][0] += 1
            # Cases where rounding and truncation give different integers.
            if PIXEL_RULES["round_half_away_f64"](rel, size) != \
                    PIXEL_RULES["trunc_f64"](rel, size):
                stats["round_differs_from_trunc_" + name] += 1


def main():
    with open(MODEL, "rb") as f:
        model_sha = hashlib.sha256(f.read()).hexdigest()
    if model_sha != MODEL_SHA256:
        sys.exit("unexpected model sha256 %s" % model_sha)

    pngs = sorted(glob.glob(os.path.join(IMAGES, "*.png")))
    if not pngs:
        sys.exit("no fixtures in %s; run make_fixtures.py first" % IMAGES)

    stats = {"pairs": 0, "count_mismatch": 0, "score_mismatch": 0,
             "keypoint_mismatch": 0, "rules": {},
             "round_differs_from_trunc_originX": 0,
             "round_differs_from_trunc_originY": 0,
             "round_differs_from_trunc_width": 0,
             "round_differs_from_trunc_height": 0}
    entries = []
    for png in pngs:
        stem = os.path.splitext(os.path.basename(png))[0]
        rgb, mode = load_rgb(png)
        h, w = rgb.shape[:2]
        out_dir = os.path.join(OUT_ROOT, stem)
        os.makedirs(out_dir, exist_ok=True)

        inp, reg, scores, order = run_tensor_graph(rgb, DELEGATE_GOLDEN)
        write_f32(os.path.join(out_dir, "input.f32"), inp)
        write_f32(os.path.join(out_dir, "regressors.f32"), reg)
        write_f32(os.path.join(out_dir, "scores.f32"), scores)

        inp2, reg2, scores2, _ = run_tensor_graph(rgb, DELEGATE_COMPARE)
        assert np.array_equal(inp, inp2)

        probs = sigmoid_f32(scores)
        score_err = 0.0
        counts = {}
        for min_conf, fname in THRESHOLDS:
            try:
                tasks, tasks_error = tasks_detect(rgb, min_conf), None
            except Exception as e:  # record, don't hide, a Tasks failure
                tasks, tasks_error = None, "%s: %s" % (type(e).__name__, e)
            legacy = legacy_detect(rgb, min_conf)
            subgraph = legacy_subgraph_detect(rgb, min_conf)
            if min_conf == 0.5 and subgraph != legacy:
                sys.exit("%s: FaceDetection subgraph differs from the legacy "
                         "solution at 0.5" % stem)
            doc = {"width": w, "height": h, "tasks": tasks,
                   "tasks_error": tasks_error, "legacy": legacy,
                   "legacy_subgraph": subgraph,
                   "min_detection_confidence": min_conf,
                   "legacy_effective_min_detection_confidence": 0.5}
            with open(os.path.join(out_dir, fname), "w") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
            # Tasks and the legacy subgraph run the same calculators with the
            # same threshold: compare them (relative -> pixel box rule).
            compare_tasks_legacy(tasks, subgraph, w, h, stats)
            # Consistency: every final score must be sigmoid of a raw logit.
            for d in legacy + subgraph:
                err = float(np.min(np.abs(probs - np.float32(d["score"]))))
                score_err = max(score_err, err)
                if err > 1e-6:
                    sys.exit("%s: legacy score %r is not sigmoid(raw logit) "
                             "(closest diff %g)" % (stem, d["score"], err))
            counts[str(min_conf)] = {
                "tasks": None if tasks is None else len(tasks),
                "legacy": len(legacy),
                "legacy_subgraph": len(subgraph),
                "raw_anchors_above_threshold": int(np.sum(probs >= min_conf)),
            }
        entry = {
            "name": stem,
            "image": os.path.relpath(png, FIXTURES),
            "image_sha256": sha256(png),
            "png_mode": mode,
            "width": w,
            "height": h,
            "goldens": os.path.relpath(out_dir, FIXTURES),
            "faces": counts,
            "max_logit": float(np.max(scores)),
            "max_final_score_vs_sigmoid_logit_diff": score_err,
            "xnnpack_vs_tflite_cpu_max_abs_diff": {
                "regressors": float(np.max(np.abs(reg - reg2))),
                "scores": float(np.max(np.abs(scores - scores2))),
                "sigmoid_scores": float(np.max(np.abs(
                    probs - sigmoid_f32(scores2)))),
            },
        }
        entries.append(entry)
        print("%-22s %4dx%-4d %-4s faces@0.5 tasks=%s legacy=%d  "
              "faces@0.3 tasks=%s legacy=%d subgraph=%d  (outputs: %s)"
              % (stem, w, h, mode, counts["0.5"]["tasks"],
                 counts["0.5"]["legacy"], counts["0.3"]["tasks"],
                 counts["0.3"]["legacy"], counts["0.3"]["legacy_subgraph"],
                 order))

    rules = {k: "%d/%d" % tuple(v) for k, v in sorted(stats["rules"].items())}
    print("tasks vs legacy_subgraph:", {k: v for k, v in stats.items() if k != "rules"})
    for k, v in rules.items():
        print("  pixel box rule %-32s matches %s" % (k, v))

    import PIL
    import skimage
    manifest = {
        "generator": "Tools/reference/make_goldens.py",
        "command": COMMAND,
        "mediapipe_version": mp.__version__,
        "numpy_version": np.__version__,
        "pillow_version": PIL.__version__,
        "scikit_image_version": skimage.__version__,
        "model": "mediapipe/modules/face_detection/face_detection_short_range.tflite",
        "model_sha256": model_sha,
        "input_tensor": {"shape": [1, 128, 128, 3], "layout": "NHWC",
                         "dtype": "float32", "byte_order": "little"},
        "regressors": {"shape": [1, NUM_BOXES, NUM_COORDS], "dtype": "float32",
                       "byte_order": "little"},
        "scores": {"shape": [1, NUM_BOXES, 1], "dtype": "float32",
                   "byte_order": "little", "note": "raw logits, no sigmoid"},
        "image_to_tensor_options": " ".join(IMAGE_TO_TENSOR_OPTIONS.split()),
        "inference_delegate": DELEGATE_GOLDEN,
        "detections": {
            "thresholds": {"detections.json": 0.5,
                           "detections_min0.3.json": 0.3},
            "min_suppression_threshold": MIN_SUPPRESSION_THRESHOLD,
            "tasks": "mediapipe.tasks.python.vision.FaceDetector, IMAGE mode",
            "legacy": "mp.solutions.face_detection.FaceDetection(model_selection=0, "
                      "min_detection_confidence=T); T is ignored, 0.5 is used",
            "legacy_subgraph": "legacy FaceDetection subgraph with the "
                               "FaceDetectionShortRange options and "
                               "min_score_thresh=T",
        },
        "tasks_vs_legacy_subgraph": {
            "pairs_compared": stats["pairs"],
            "count_mismatches": stats["count_mismatch"],
            "score_mismatches": stats["score_mismatch"],
            "keypoint_mismatches": stats["keypoint_mismatch"],
            "pixel_box_rule_matches": rules,
            "round_differs_from_trunc": {
                k.rsplit("_", 1)[1]: v for k, v in stats.items()
                if k.startswith("round_differs")},
        },
        "fixtures": entries,
    }
    with open(os.path.join(OUT_ROOT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
