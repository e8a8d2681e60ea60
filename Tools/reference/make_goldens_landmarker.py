#!/usr/bin/env python3
"""Writes MediaPipe 0.10.14 FaceLandmarker goldens for every fixture PNG.

For each Tests/Fixtures/images/<stem>.png this writes
Tests/Fixtures/goldens/face_landmarker/<stem>.landmarker.json with what the
Tasks FaceLandmarker returns in IMAGE mode (num_faces 4, blendshapes and
facial transformation matrices on), plus manifest.json (versions, bundle
sha256, options, per-fixture face counts). With --time it also measures
detect() on two_faces_1280x853.png and writes timing.json (not deterministic,
so it is kept apart from the goldens).

The model bundle is MediaPipe's face_landmarker.task (never committed); the
script refuses any file whose sha256 is not the pinned one.

Usage:
  /root/mpenv/bin/python Tools/reference/make_goldens_landmarker.py \
      --task /path/to/face_landmarker.task [--time]
"""

import argparse
import glob
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_goldens import load_rgb, sha256  # noqa: E402  (exactly the detector goldens' reading)

import mediapipe as mp  # noqa: E402
from mediapipe.tasks.python import BaseOptions  # noqa: E402
from mediapipe.tasks.python import vision  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(REPO, "Tests", "Fixtures")
IMAGES = os.path.join(FIXTURES, "images")
OUT = os.path.join(FIXTURES, "goldens", "face_landmarker")

TASK_SHA256 = "64184e229b263107bc2b804c6625db1341ff2bb731874b0bcc2fe6544e0bc9ff"
NUM_FACES = 4
TIMED_FIXTURE = "two_faces_1280x853"


def make_landmarker(task):
    options = vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=task),
        running_mode=vision.RunningMode.IMAGE,
        num_faces=NUM_FACES,
        output_face_blendshapes=True,
        output_facial_transformation_matrixes=True)
    return vision.FaceLandmarker.create_from_options(options)


def face_dict(result, i):
    """One face: 478 [x, y, z], 52 blendshapes in MediaPipe's order, 4x4."""
    face = {"landmarks": [[float(p.x), float(p.y), float(p.z)]
                          for p in result.face_landmarks[i]]}
    if result.face_blendshapes:
        face["blendshapes"] = [{"index": int(c.index),
                                "name": c.category_name,
                                "score": float(c.score)}
                               for c in result.face_blendshapes[i]]
    if result.facial_transformation_matrixes:
        m = np.asarray(result.facial_transformation_matrixes[i])
        assert m.shape == (4, 4), m.shape
        # The proto stores float32; widening to double and repr() is exact.
        assert np.array_equal(m, m.astype(np.float32).astype(np.float64))
        face["transformationMatrix"] = [[float(v) for v in row] for row in m]
    return face


def detect(landmarker, rgb):
    return landmarker.detect(mp.Image(image_format=mp.ImageFormat.SRGB,
                                      data=rgb))


def time_detect(landmarker, rgb, rounds, calls):
    """Median and min over `rounds` of the mean time of `calls` detect()s."""
    for _ in range(5):
        detect(landmarker, rgb)
    per_call = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            detect(landmarker, rgb)
        per_call.append((time.perf_counter() - t0) / calls * 1e6)
    return {"median_us": statistics.median(per_call), "min_us": min(per_call),
            "rounds": rounds, "calls_per_round": calls}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", required=True,
                    help="face_landmarker.task (sha256 %s)" % TASK_SHA256)
    ap.add_argument("--time", action="store_true",
                    help="also time detect() on %s.png" % TIMED_FIXTURE)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--calls", type=int, default=20)
    args = ap.parse_args()

    digest = sha256(args.task)
    if digest != TASK_SHA256:
        sys.exit("unexpected face_landmarker.task sha256 %s" % digest)
    os.makedirs(OUT, exist_ok=True)

    manifest = {
        "mediapipe": mp.__version__, "numpy": np.__version__,
        "task_sha256": TASK_SHA256,
        "command": "python Tools/reference/make_goldens_landmarker.py --task face_landmarker.task",
        "options": {"running_mode": "IMAGE", "num_faces": NUM_FACES,
                    "min_face_detection_confidence": 0.5,
                    "min_face_presence_confidence": 0.5,
                    "min_tracking_confidence": 0.5,
                    "output_face_blendshapes": True,
                    "output_facial_transformation_matrixes": True},
        "fixtures": {},
    }
    paths = sorted(glob.glob(os.path.join(IMAGES, "*.png")))
    with make_landmarker(args.task) as landmarker:
        for path in paths:
            stem = os.path.splitext(os.path.basename(path))[0]
            rgb, mode = load_rgb(path)
            h, w = rgb.shape[:2]
            result = detect(landmarker, rgb)
            # IMAGE mode is stateless: a second call must give the same.
            again = detect(landmarker, rgb)
            faces = [face_dict(result, i)
                     for i in range(len(result.face_landmarks))]
            assert faces == [face_dict(again, i)
                             for i in range(len(again.face_landmarks))], stem
            for f in faces:
                assert len(f["landmarks"]) == 478, stem
                assert len(f["blendshapes"]) == 52, stem
            golden = {"image": "images/%s.png" % stem, "width": w,
                      "height": h, "faces": faces}
            with open(os.path.join(OUT, stem + ".landmarker.json"), "w") as f:
                json.dump(golden, f, separators=(",", ":"))
                f.write("\n")
            manifest["fixtures"][stem] = {
                "image": golden["image"], "width": w, "height": h,
                "mode": mode, "image_sha256": sha256(path),
                "faces": len(faces)}
            print("%-24s %dx%d faces %d" % (stem, w, h, len(faces)))

        if args.time:
            rgb, _ = load_rgb(os.path.join(IMAGES, TIMED_FIXTURE + ".png"))
            timing = time_detect(landmarker, rgb, args.rounds, args.calls)
            timing.update({"image": "images/%s.png" % TIMED_FIXTURE,
                           "what": "Tasks FaceLandmarker.detect(), IMAGE mode, options as in manifest.json",
                           "mediapipe": mp.__version__,
                           "machine": platform.processor() or platform.machine(),
                           "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
            with open(os.path.join(OUT, "timing.json"), "w") as f:
                json.dump(timing, f, indent=1)
                f.write("\n")
            print("detect() on %s: median %.0f us, min %.0f us"
                  % (TIMED_FIXTURE, timing["median_us"], timing["min_us"]))

    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
