#!/usr/bin/env python3
"""Writes Tests/Fixtures/goldens/roi/detections.json: MediaPipe 0.10.14's detections
inside a region of interest.

The Tasks FaceDetector refuses a region of interest ("This task doesn't support
region-of-interest"), but its graph, like the legacy "FaceDetection" subgraph run here,
takes one as a NormalizedRect on the ROI / NORM_RECT stream, which ImageToTensorCalculator
letterboxes instead of the whole image. The rect is built as the Tasks API's
ConvertToNormalizedRect builds it from a RectF (left, top, right, bottom): centre and size
computed in float as the C++ ConvertToNormalizedRect does with RectF's float fields
((left + right) / 2, right - left); rotation 0. Detections are the subgraph's
(short range, min_score_thresh 0.5, NMS 0.3), relative to the whole image.

Usage: /root/mpenv/bin/python Tools/reference/make_roi_goldens.py
"""

import json
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_goldens  # noqa: E402

import mediapipe as mp  # noqa: E402
from mediapipe.framework.formats import rect_pb2  # noqa: E402

OUT = os.path.join(make_goldens.FIXTURES, "goldens", "roi")

# (fixture, left, top, right, bottom): regions holding one of several faces, a tight box
# around a face, a region cut by nothing but the image, and a tall and a wide region.
CASES = [
    ("two_faces_1280x853", 0.05, 0.1, 0.55, 0.9),
    ("two_faces_1280x853", 0.45, 0.0, 1.0, 1.0),
    ("multi_face", 0.0, 0.0, 0.5, 0.5),
    ("multi_face", 0.3, 0.2, 1.0, 0.9),
    ("astronaut", 0.25, 0.1, 0.65, 0.45),
    ("astronaut", 0.0, 0.0, 1.0, 0.6),
    ("wide_1200x300", 0.2, 0.0, 0.6, 1.0),
    ("tall_300x1000", 0.0, 0.05, 1.0, 0.55),
]

GRAPH = make_goldens.LEGACY_SUBGRAPH.replace(
    'input_stream: "image"\n', 'input_stream: "image"\ninput_stream: "roi"\n', 1).replace(
    'input_stream: "IMAGE:image"\n', 'input_stream: "IMAGE:image"\n  input_stream: "ROI:roi"\n', 1)


def detect(rgb, roi):
    l, t, r, b = (np.float32(v) for v in roi)
    rect = rect_pb2.NormalizedRect(x_center=float(np.float32(l + r) / np.float32(2)),
                                   y_center=float(np.float32(t + b) / np.float32(2)),
                                   width=float(np.float32(r - l)), height=float(np.float32(b - t)), rotation=0)
    graph = mp.CalculatorGraph(graph_config=GRAPH % {"model": make_goldens.MODEL, "thresh": 0.5})
    packets = []
    graph.observe_output_stream("detections", lambda name, p: packets.append(mp.packet_getter.get_proto_list(p)))
    graph.start_run()
    graph.add_packet_to_input_stream("image", mp.packet_creator.create_image_frame(
        image_format=mp.ImageFormat.SRGB, data=rgb).at(0))
    graph.add_packet_to_input_stream("roi", mp.packet_creator.create_proto(rect).at(0))
    graph.close()
    return [make_goldens.legacy_dict(d) for d in (packets[0] if packets else [])]


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []
    for name, *roi in CASES:
        rgb, _ = make_goldens.load_rgb(os.path.join(make_goldens.IMAGES, name + ".png"))
        found = detect(rgb, roi)
        whole = detect(rgb, [0.0, 0.0, 1.0, 1.0])
        cases.append({"image": name, "roi": dict(zip(["left", "top", "right", "bottom"], roi)),
                      "detections": found, "whole_image_count": len(whole)})
        print(name, roi, len(found), "faces (whole image:", len(whole), ")")
    with open(os.path.join(OUT, "detections.json"), "w") as f:
        json.dump({"mediapipe": "0.10.14", "graph": "legacy FaceDetection subgraph with ROI input (short range)",
                   "min_score_thresh": 0.5, "cases": cases}, f, indent=1)


if __name__ == "__main__":
    main()
