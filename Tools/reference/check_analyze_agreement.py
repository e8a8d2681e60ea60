#!/usr/bin/env python3
"""Broad end-to-end check: `blazeface analyze --mesh` vs MediaPipe 0.10.14's Tasks FaceLandmarker.

The issue's "Done when" bars on photos nobody tuned against: the same images as
check_landmarks_agreement.py (check_agreement.py's seeded recipes; image i from
numpy.random.default_rng([seed, i]) alone, written as PNG), the Tasks FaceLandmarker (IMAGE mode,
num_faces 4, blendshapes and facial transformation matrices on, the official face_landmarker.task)
against our ML Kit pipeline with MediaPipe's raw outputs (`blazeface analyze --mesh --max-faces 4
--min-face-size 0`) on the same pixels. Per image: the number of faces; per face, in order, mesh x
and y within 2e-3, blendshape scores within 1e-2, transformation matrix entries within 1e-2. Prints
the largest differences seen.

  /root/mpenv/bin/python Tools/reference/check_analyze_agreement.py \
      --cli .build-haswell/release/blazeface --bundle /path/to/face_landmarker.task --count 200
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import landmarker_reference  # noqa: E402  (the seeded images, MediaPipe's FaceLandmarker)

XY_BAR, BLENDSHAPE_BAR, MATRIX_BAR = 2e-3, 1e-2, 1e-2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--out", default="/tmp/agree_analyze")
    args = ap.parse_args()
    paths, recipes = landmarker_reference.seeded_images(args.seed, args.count, args.out)
    theirs = landmarker_reference.tasks_face_landmarker(args.bundle, paths, matrices=True)

    out = subprocess.run([args.cli, "analyze", "--mesh", "--max-faces", "4", "--min-face-size", "0"] + paths,
                         capture_output=True, text=True)
    ours = {}
    for line in out.stdout.splitlines():
        d = json.loads(line)
        if "faces" not in d:
            continue
        ours[d["image"]] = [(np.array(f["mesh"], np.float32), np.array(list(f["blendshapes"].values()), np.float32),
                             np.array(f["transformationMatrix"], np.float32)) for f in d["faces"]]
    failures, faces = [], 0
    worst_xy = worst_bs = worst_m = 0.0
    for path, recipe, ref in zip(paths, recipes, theirs):
        got = ours.get(path)
        if got is None or len(got) != len(ref):
            failures.append((path, recipe, "faces %s vs MediaPipe %d" % (None if got is None else len(got), len(ref))))
            continue
        for (l1, b1, m1), (l2, b2, m2) in zip(got, ref):
            faces += 1
            dxy = float(np.abs(l1[:, :2] - l2[:, :2]).max())
            dbs = float(np.abs(b1 - b2).max())
            dm = float(np.abs(m1 - m2).max())
            worst_xy, worst_bs, worst_m = max(worst_xy, dxy), max(worst_bs, dbs), max(worst_m, dm)
            if dxy > XY_BAR or dbs > BLENDSHAPE_BAR or dm > MATRIX_BAR:
                failures.append((path, recipe, "mesh xy %.3g, blendshape %.3g, matrix %.3g" % (dxy, dbs, dm)))
    print("%d images, %d faces (MediaPipe); max |dx|,|dy| %.3g, max blendshape difference %.3g, "
          "max matrix entry difference %.3g; %d failures" % (len(paths), faces, worst_xy, worst_bs, worst_m, len(failures)))
    for f in failures:
        print("FAIL", *f)
    if out.returncode != 0:
        print("CLI exit status", out.returncode, out.stderr[-500:])
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
