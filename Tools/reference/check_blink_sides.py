#!/usr/bin/env python3
"""Which eye does MediaPipe's eyeBlinkLeft describe? (The subject's left, it turns out.)

Paints a closed eyelid (skin-coloured ellipse, one dark line) over one eye of the astronaut
fixture at a time, using MediaPipe's own landmarks from the goldens to place it, and prints
eyeBlinkLeft / eyeBlinkRight from the Tasks FaceLandmarker (0.10.14). Run on 2026-11-22:

  original                              0.040 / 0.027
  subject's left eye (mesh 263.., image right) closed  0.376 / 0.050
  subject's right eye (mesh 33.., image left) closed   0.077 / 0.399

so eyeBlinkLeft is the subject's left eye, ML Kit's left: leftEyeOpenProbability uses it.

Usage: /root/mpenv/bin/python Tools/reference/check_blink_sides.py --task face_landmarker.task
"""

import argparse
import json
import os

import numpy as np
from PIL import Image, ImageDraw

import mediapipe as mp
from mediapipe.tasks.python import BaseOptions, vision

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LEFT_EYE = [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466]
RIGHT_EYE = [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", required=True)
    args = ap.parse_args()
    img = Image.open(os.path.join(REPO, "Tests/Fixtures/images/astronaut.png")).convert("RGB")
    w, h = img.size
    golden = os.path.join(REPO, "Tests/Fixtures/goldens/face_landmarker/astronaut.landmarker.json")
    points = np.array(json.load(open(golden))["faces"][0]["landmarks"])
    options = vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=args.task),
        running_mode=vision.RunningMode.IMAGE, num_faces=1, output_face_blendshapes=True)
    with vision.FaceLandmarker.create_from_options(options) as landmarker:
        def blinks(image):
            r = landmarker.detect(mp.Image(image_format=mp.ImageFormat.SRGB,
                                           data=np.ascontiguousarray(np.asarray(image))))
            b = {c.category_name: c.score for c in r.face_blendshapes[0]}
            return "%.3f / %.3f" % (b["eyeBlinkLeft"], b["eyeBlinkRight"])

        print("eyeBlinkLeft / eyeBlinkRight")
        print("original:", blinks(img))
        for name, ids in [("subject's left eye closed", LEFT_EYE), ("subject's right eye closed", RIGHT_EYE)]:
            p = points[ids, :2] * [w, h]
            (x0, y0), (x1, y1) = p.min(0) - [3, 4], p.max(0) + [3, 4]
            closed = img.copy()
            draw = ImageDraw.Draw(closed)
            skin = tuple(int(v) for v in np.asarray(img)[int(y1 + 6), int((x0 + x1) / 2)])
            draw.ellipse([x0, y0, x1, y1], fill=skin)
            draw.line([x0 + 2, (y0 + y1) / 2 + 2, x1 - 2, (y0 + y1) / 2 + 2], fill=(60, 40, 30), width=2)
            print("%s (image x %d..%d): %s" % (name, x0, x1, blinks(closed)))


if __name__ == "__main__":
    main()
