#!/usr/bin/env python3
"""Side by side: MediaPipe 0.10.14's Tasks FaceLandmarker.detect() against `blazeface bench-landmarks`.

Alternates rounds: 100 MediaPipe detect() calls (IMAGE mode, num_faces 4, blendshapes on, after
20 warm-up calls), then one `bench-landmarks --iterations 100 --json` run of the Swift CLI on the
same photo; prints both medians per round and their ratio.

  /root/mpenv/bin/python Benchmarks/compare/compare_landmarks.py \
      --cli .build-haswell/release/blazeface --bundle /path/to/face_landmarker.task [--rounds 4] [--image PNG]
"""
import argparse
import json
import subprocess
import time

import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import BaseOptions, vision


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--image", default="Tests/Fixtures/images/two_faces_1280x853.png")
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args()
    rgb = np.asarray(Image.open(args.image).convert("RGB"))
    options = vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=args.bundle), running_mode=vision.RunningMode.IMAGE,
        num_faces=4, output_face_blendshapes=True)
    landmarker = vision.FaceLandmarker.create_from_options(options)
    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb)
    for _ in range(20):
        landmarker.detect(image)
    for r in range(args.rounds):
        samples = []
        for _ in range(100):
            t = time.perf_counter()
            result = landmarker.detect(image)
            samples.append((time.perf_counter() - t) * 1e6)
        samples.sort()
        theirs = samples[len(samples) // 2]
        ours = json.loads(subprocess.check_output(
            [args.cli, "bench-landmarks", "--iterations", "100", "--json", "--image", args.image]))
        print("round %d: MediaPipe detect() %.1f us (%d faces), Swift detect() %.1f us, ratio %.2f; "
              "Swift per face %.1f us, landmark network %.1f us, blendshape network %.1f us" % (
                  r, theirs, len(result.face_landmarks), ours["detect"]["median_us"],
                  ours["detect"]["median_us"] / theirs, ours["perFace_median_us"],
                  ours["landmarkNetwork"]["median_us"], ours["blendshapeNetwork"]["median_us"]), flush=True)


if __name__ == "__main__":
    main()
