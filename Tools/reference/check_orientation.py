#!/usr/bin/env python3
"""Compares `blazeface detect --rotation R` with MediaPipe 0.10.14's Tasks FaceDetector
given the same stored (turned) picture and ImageProcessingOptions(rotation_degrees=R).

For each fixture and R in 90, 180, 270 the upright PNG is turned counter-clockwise by R
(so that turning it R degrees clockwise makes it upright again) and written as a PNG.
Both programs detect on it with the rotation; both report in the stored picture's
coordinates. Also printed: MediaPipe's rotated result against MediaPipe's own result on
the upright picture mapped into the stored picture's coordinates, which shows how far
MediaPipe's rotation (a rect turned about the image centre, sampled by warpPerspective)
is from an exact quarter turn of the pixels (what this library does).

Usage: /root/mpenv/bin/python Tools/reference/check_orientation.py --cli .build/debug/blazeface
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_goldens  # noqa: E402

import mediapipe as mp  # noqa: E402
from mediapipe.tasks.python import BaseOptions, vision  # noqa: E402
from mediapipe.tasks.python.vision.core.image_processing_options import ImageProcessingOptions  # noqa: E402

FIXTURES = ["astronaut", "two_faces_1280x853", "multi_face", "wide_1200x300", "tall_300x1000",
            "head_71x139", "astronaut_223x231", "face_off_edge_320x240"]


def mediapipe_detect(rgb, rotation):
    options = vision.FaceDetectorOptions(base_options=BaseOptions(model_asset_path=make_goldens.MODEL),
                                         min_detection_confidence=0.5, min_suppression_threshold=0.3)
    with vision.FaceDetector.create_from_options(options) as detector:
        result = detector.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb),
                                 ImageProcessingOptions(rotation_degrees=rotation))
    out = []
    for d in result.detections:
        b = d.bounding_box
        out.append({"box": (b.origin_x, b.origin_y, b.width, b.height), "score": d.categories[0].score,
                    "keypoints": [(k.x, k.y) for k in d.keypoints]})
    return out


def to_stored(point, rotation):
    """A normalized upright point in the picture stored turned counter-clockwise by `rotation`."""
    x, y = point
    return {90: (y, 1 - x), 180: (1 - x, 1 - y), 270: (1 - y, x)}[rotation]


def centre(d):
    return (sum(k[0] for k in d["keypoints"]) / 6, sum(k[1] for k in d["keypoints"]) / 6)


def compare(a, b, stats):
    """Pairs each detection of `a` with the nearest of `b` (by keypoint centre: a small
    score change may swap the order of two faces) and records the largest differences."""
    if len(a) != len(b):
        stats["count_mismatch"] += 1
        return
    left = list(b)
    for p in a:
        q = min(left, key=lambda d: (centre(d)[0] - centre(p)[0]) ** 2 + (centre(d)[1] - centre(p)[1]) ** 2)
        left.remove(q)
        stats["score"] = max(stats["score"], abs(p["score"] - q["score"]))
        stats["keypoint"] = max(stats["keypoint"], max(max(abs(u[0] - v[0]), abs(u[1] - v[1]))
                                                       for u, v in zip(p["keypoints"], q["keypoints"])))
        if "box" in p and "box" in q:
            stats["box_px"] = max(stats["box_px"], max(abs(u - v) for u, v in zip(p["box"], q["box"])))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    args = parser.parse_args()
    images = os.path.join(make_goldens.IMAGES)
    ours_vs_mp = {"count_mismatch": 0, "score": 0.0, "keypoint": 0.0, "box_px": 0}
    mp_vs_upright = {"count_mismatch": 0, "score": 0.0, "keypoint": 0.0, "box_px": 0}
    ours_vs_upright = {"count_mismatch": 0, "score": 0.0, "keypoint": 0.0, "box_px": 0}
    checks = faces = 0
    with tempfile.TemporaryDirectory() as tmp:
        for rotation in (90, 180, 270):
            paths, stored_rgbs, uprights = [], [], []
            for name in FIXTURES:
                upright = np.asarray(Image.open(os.path.join(images, name + ".png")).convert("RGB"))
                stored = Image.fromarray(upright).rotate(rotation, expand=True)   # counter-clockwise
                path = os.path.join(tmp, "%s_%d.png" % (name, rotation))
                stored.save(path)
                paths.append(path)
                stored_rgbs.append(np.ascontiguousarray(np.asarray(stored)))
                uprights.append(np.ascontiguousarray(upright))
            run = subprocess.run([args.cli, "detect", "--rotation", str(rotation)] + paths,
                                 capture_output=True, text=True, check=True)
            lines = [json.loads(line) for line in run.stdout.splitlines()]
            for name, line, stored, upright in zip(FIXTURES, lines, stored_rgbs, uprights):
                ours = [{"box": (d["boundingBox"]["originX"], d["boundingBox"]["originY"], d["boundingBox"]["width"],
                                 d["boundingBox"]["height"]), "score": d["categories"][0]["score"],
                         "keypoints": [(k["x"], k["y"]) for k in d["keypoints"]]} for d in line["detections"]]
                theirs = mediapipe_detect(stored, rotation)
                mapped = [{"score": d["score"], "keypoints": [to_stored(k, rotation) for k in d["keypoints"]]}
                          for d in mediapipe_detect(upright, 0)]
                one = {"count_mismatch": 0, "score": 0.0, "keypoint": 0.0, "box_px": 0}
                compare(ours, theirs, one)
                for key in ours_vs_mp:
                    ours_vs_mp[key] = ours_vs_mp[key] + one[key] if key == "count_mismatch" else max(ours_vs_mp[key], one[key])
                compare(theirs, mapped, mp_vs_upright)
                compare(ours, mapped, ours_vs_upright)
                checks += 1
                faces += len(theirs)
                print("%-24s %3d  ours %d faces, MediaPipe %d; vs MediaPipe: score %.2g, keypoint %.2g, box %d px"
                      % (name, rotation, len(ours), len(theirs), one["score"], one["keypoint"], one["box_px"]))
    print("%d image x rotation checks, %d MediaPipe detections" % (checks, faces))
    print("ours vs MediaPipe rotated:              ", ours_vs_mp)
    print("MediaPipe rotated vs MediaPipe upright:  ", mp_vs_upright)
    print("ours vs MediaPipe upright (mapped):      ", ours_vs_upright)


if __name__ == "__main__":
    main()
