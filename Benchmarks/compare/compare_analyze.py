#!/usr/bin/env python3
"""Side by side: MediaPipe 0.10.14's Tasks FaceLandmarker.detect() against `blazeface bench-analyze`.

The issue's speed bar: `analyze` with everything on (landmarks, contours, classification, mesh:
detection, landmark and blendshape networks, geometry, the ML Kit view and the JSON line) on the
two-face 1280x853 photo takes at most 0.25x MediaPipe's FaceLandmarker.detect() (IMAGE mode,
num_faces 4, blendshapes and transformation matrices on: the same outputs). Rounds alternate:
100 MediaPipe calls (after 20 warm-up calls), then one `bench-analyze --iterations 100 --json`
run of the Swift CLI per --threads setting; each round prints the medians and ratios, then
the median ratio of each setting over the rounds.

  /root/mpenv/bin/python Benchmarks/compare/compare_analyze.py \
      --cli .build-haswell/release/blazeface --bundle /path/to/face_landmarker.task [--rounds 6] [--threads 1,2]
"""
import argparse
import json
import os
import resource
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
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--threads", default="1,2",
                    help="comma-separated --threads settings for the Swift side (one pool of that many threads), each run after MediaPipe in every round")
    args = ap.parse_args()
    rgb = np.asarray(Image.open(args.image).convert("RGB"))
    options = vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=args.bundle), running_mode=vision.RunningMode.IMAGE,
        num_faces=4, output_face_blendshapes=True, output_facial_transformation_matrixes=True)
    landmarker = vision.FaceLandmarker.create_from_options(options)
    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb)
    for _ in range(20):
        landmarker.detect(image)
    settings = [int(x) for x in args.threads.split(",")]
    ratios = {ft: [] for ft in settings}
    for r in range(args.rounds):
        samples = []
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        wall0 = time.perf_counter()
        for _ in range(100):
            t = time.perf_counter()
            result = landmarker.detect(image)
            samples.append((time.perf_counter() - t) * 1e6)
        wall = time.perf_counter() - wall0
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        cores = (cpu1.ru_utime - cpu0.ru_utime + cpu1.ru_stime - cpu0.ru_stime) / wall
        samples.sort()
        theirs = samples[len(samples) // 2]
        for ft in settings:
            ours = json.loads(subprocess.check_output(
                [args.cli, "bench-analyze", "--iterations", "100", "--json", "--image", args.image, "--threads", str(ft)]))
            ratio = ours["analyze"]["median_us"] / theirs
            ratios[ft].append(ratio)
            print("round %d: MediaPipe detect() median %.1f us min %.1f us (%d faces, %.2f cores busy), Swift analyze median %.1f us "
                  "min %.1f us (%d faces, %d thread(s), %d face lane(s)), ratio %.3f; load average %.2f" % (
                      r, theirs, samples[0], len(result.face_landmarks), cores, ours["analyze"]["median_us"], ours["analyze"]["min_us"],
                      ours["faces"], ours["threads"], ours["faceThreads"], ratio, os.getloadavg()[0]), flush=True)
    for ft in settings:
        rs = sorted(ratios[ft])
        print("threads %d: median ratio over %d rounds %.3f (all: %s)" % (
            ft, len(rs), rs[len(rs) // 2], ", ".join("%.3f" % x for x in rs)))

if __name__ == "__main__":
    main()
