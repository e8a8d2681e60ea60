#!/usr/bin/env python3
"""Re-derives every golden input.f32 without MediaPipe, to pin down exactly
what ImageToTensorCalculator (CPU, MediaPipe 0.10.14) computes.

Finding (exact, bit-for-bit, on all fixtures):
  1. ROI = whole image, padded to a square of side max(W, H) centred on the
     image (keep_aspect_ratio: true -> letterbox).
  2. OpenCV warpAffine/warpPerspective of the uint8 RGB image to 128x128 with
     INTER_LINEAR (OpenCV's fixed-point bilinear: 5 fractional bits for the
     position, rounded uint8 result) and BORDER_CONSTANT 0 (BORDER_ZERO), the
     source quad mapped to (0,128),(0,0),(128,0),(128,128) i.e. scale
     128/side and no half-pixel shift beyond what OpenCV applies.
  3. value = float32(v * float32(2/255) - 1) with one rounding (a fused
     multiply-add; OpenCV convertTo), so padding is -1.0, not 0.0.

Usage: .venv-reference/bin/python Tools/reference/check_preprocessing.py
"""

import glob
import os
import sys

import cv2
import numpy as np
from PIL import Image

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(REPO, "Tests", "Fixtures")
SIZE = 128


def preprocess(rgb, warp="affine"):
    h, w = rgb.shape[:2]
    side = float(max(w, h))
    # cv2.boxPoints order: bottom-left, top-left, top-right, bottom-right.
    src = cv2.boxPoints(((w / 2.0, h / 2.0), (side, side), 0.0))
    src = src.astype(np.float32)
    dst = np.array([[0, SIZE], [0, 0], [SIZE, 0], [SIZE, SIZE]], np.float32)
    if warp == "affine":
        m = cv2.getAffineTransform(src[:3], dst[:3])
        out = cv2.warpAffine(rgb, m, (SIZE, SIZE), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    else:
        m = cv2.getPerspectiveTransform(src, dst)
        out = cv2.warpPerspective(rgb, m, (SIZE, SIZE), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    scale = np.float32(2.0) / np.float32(255.0)
    # One rounding, as a fused multiply-add would do.
    return (out.astype(np.float64) * np.float64(scale) - 1.0).astype(np.float32)


def main():
    bad = 0
    for png in sorted(glob.glob(os.path.join(FIX, "images", "*.png"))):
        stem = os.path.splitext(os.path.basename(png))[0]
        golden = os.path.join(FIX, "goldens", "short_range", stem, "input.f32")
        g = np.fromfile(golden, "<f4").reshape(SIZE, SIZE, 3)
        with Image.open(png) as im:
            rgb = np.ascontiguousarray(np.asarray(im.convert("RGB"), np.uint8))
        for warp in ("affine", "perspective"):
            r = preprocess(rgb, warp)
            same = np.array_equal(r, g)
            bad += not same
            print("%-24s %-11s %s" % (stem, warp, "exact" if same else
                  "max diff %g" % float(np.max(np.abs(r - g)))))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
