#!/usr/bin/env python3
"""Broad agreement check: our `blazeface detect` CLI vs MediaPipe Tasks.

Generates N seeded test images that nothing was tuned against, runs
mediapipe.tasks.python.vision.FaceDetector (mediapipe 0.10.14, the wheel's
face_detection_short_range.tflite) and our CLI on the exact same PNG pixels,
and compares the detections field by field under several option sets.

Images (8-bit RGB PNG, written to --out, default /tmp/agree/) are built from
scikit-image's bundled public-domain images (astronaut, camera, coffee,
rocket, chelsea) plus noise and gradients.  Recipes: random crops and
rescales with every Pillow resampling filter, odd / prime / extreme-aspect
sizes from 20 to 2000 px per side, small-angle rotations, flips and
transpositions, multi-face composites (faces tiny to huge, some cut by the
border), faces on letterboxed canvases, brightness / contrast / gamma /
saturation changes, grayscale, JPEG-compressed-then-decoded pixels, pure
noise, gradients and face-free photos.  Image i is generated from
numpy.random.default_rng([seed, i]) alone, so any single image can be rebuilt
(`--only I`) without the others.

Pixels given to MediaPipe are PIL.Image.open(png).convert("RGB") as an
mp.Image(ImageFormat.SRGB).  Option sets (Tasks option -> CLI flag):

  default     FaceDetectorOptions defaults (0.5 / 0.3)  -> no flags
  conf0.3     min_detection_confidence=0.3              -> --min-detection-confidence 0.3
  supp0.5     min_suppression_threshold=0.5             -> --min-suppression-threshold 0.5
  conf0.3_supp0.5  both                                  -> both flags

With --model full the same images go to our CLI's full-range model
(`blazeface detect --model full`) and to MediaPipe's full-range detector
(face_detection_full_range_sparse.tflite).  The Tasks FaceDetector cannot run
that model, so the references are legacy graphs (see README.md, full-range
section, and make_goldens_full_range.py, whose configuration loader and
helpers this reuses):

  default     mp.solutions.face_detection.FaceDetection(model_selection=1);
              it ignores min_detection_confidence and always applies 0.6,
              our CLI's default for --model full      -> --model full
  conf0.3     the compiled FaceDetection subgraph with the full-range
              options and min_score_thresh 0.3 ("legacy_subgraph")
                                                      -> --min-detection-confidence 0.3
  supp0.5     the compiled FaceDetection subgraph expanded into a plain
              graph (every option_value resolved from the full-range
              options) with the NonMaxSuppressionCalculator's
              min_suppression_threshold set to 0.5 (the subgraph has no
              option for it), min_score_thresh 0.6
                                                      -> --min-suppression-threshold 0.5
  conf0.3_supp0.5  the expanded graph at 0.3 / 0.5    -> both flags

The expanded graph is checked against the two unexpanded references on every
image (at 0.6 / 0.3 against the solution, at 0.3 / 0.3 against the
subgraph); any difference is reported as a reference failure.  Relative
boxes become pixel boxes the way MediaPipe Tasks and our CLI do it: each
field times the image size in float32, truncated toward zero, clamped to
0...size.  Keypoints are compared as they are (normalized).

Pass criteria per image and option set: same number of faces; for each
detection in order, every boundingBox field within 1 px, score within 1e-3,
every keypoint x and y within 1e-3.  The maximum observed differences and
the number of bit-exact detections (integers equal, floats equal as float32)
are reported too.  Failing images are copied to <out>/failures/ together with
a JSON of both outputs and the recipe.  Exits 1 if anything fails.

Usage:
  /root/mpenv/bin/python Tools/reference/check_agreement.py \
      --cli /tmp/build-check/release/blazeface --count 160
  /root/mpenv/bin/python Tools/reference/check_agreement.py --model full \
      --cli /tmp/build-check/release/blazeface --count 160
"""

import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import time

os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import io  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from PIL import Image, ImageEnhance, ImageOps  # noqa: E402
import skimage.data  # noqa: E402

warnings.filterwarnings("ignore")

import mediapipe as mp  # noqa: E402
from mediapipe.tasks.python import BaseOptions  # noqa: E402
from mediapipe.tasks.python import vision  # noqa: E402

MODEL = os.path.join(os.path.dirname(mp.__file__), "modules", "face_detection",
                     "face_detection_short_range.tflite")
KEYPOINT_LABELS = ["rightEye", "leftEye", "noseTip", "mouthCenter",
                   "rightEarTragion", "leftEarTragion"]

BOX_TOL = 1          # pixels
SCORE_TOL = 1e-3
KEYPOINT_TOL = 1e-3

# name -> (Tasks options, CLI flags)
CONFIGS = [
    ("default", {}, []),
    ("conf0.3", {"min_detection_confidence": 0.3},
     ["--min-detection-confidence", "0.3"]),
    ("supp0.5", {"min_suppression_threshold": 0.5},
     ["--min-suppression-threshold", "0.5"]),
    ("conf0.3_supp0.5",
     {"min_detection_confidence": 0.3, "min_suppression_threshold": 0.5},
     ["--min-detection-confidence", "0.3", "--min-suppression-threshold", "0.5"]),
]

# --model full: name -> (reference: min_score_thresh, min_suppression_threshold,
# source), CLI flags (added to --model full).  None = the legacy solution's
# own threshold (0.6, hard-coded in the full-range subgraph).
FULL_CONFIGS = [
    ("default", {"min_score_thresh": None, "min_suppression_threshold": 0.3,
                 "reference": "legacy solution model_selection=1"}, []),
    ("conf0.3", {"min_score_thresh": 0.3, "min_suppression_threshold": 0.3,
                 "reference": "legacy_subgraph"},
     ["--min-detection-confidence", "0.3"]),
    ("supp0.5", {"min_score_thresh": 0.6, "min_suppression_threshold": 0.5,
                 "reference": "expanded FaceDetection graph"},
     ["--min-suppression-threshold", "0.5"]),
    ("conf0.3_supp0.5",
     {"min_score_thresh": 0.3, "min_suppression_threshold": 0.5,
      "reference": "expanded FaceDetection graph"},
     ["--min-detection-confidence", "0.3", "--min-suppression-threshold", "0.5"]),
]

# ---------------------------------------------------------------------------
# Image generation
# ---------------------------------------------------------------------------

FILTERS = {"nearest": Image.NEAREST, "box": Image.BOX,
           "bilinear": Image.BILINEAR, "hamming": Image.HAMMING,
           "bicubic": Image.BICUBIC, "lanczos": Image.LANCZOS}
ROT_FILTERS = {"nearest": Image.NEAREST, "bilinear": Image.BILINEAR,
               "bicubic": Image.BICUBIC}
TRANSPOSES = {"flip_lr": Image.FLIP_LEFT_RIGHT, "flip_tb": Image.FLIP_TOP_BOTTOM,
              "rot90": Image.ROTATE_90, "rot180": Image.ROTATE_180,
              "rot270": Image.ROTATE_270, "transpose": Image.TRANSPOSE,
              "transverse": Image.TRANSVERSE}

MIN_SIDE, MAX_SIDE = 20, 2000
PRIMES = [p for p in range(MIN_SIDE, MAX_SIDE + 1)
          if all(p % d for d in range(2, int(p ** 0.5) + 1))]
SPECIAL_SIZES = [(333, 517), (97, 1013), (1999, 17), (17, 1999), (1999, 20),
                 (20, 1999), (21, 1997), (1997, 23), (20, 20), (21, 21),
                 (2000, 2000), (1999, 1997), (127, 128), (128, 127),
                 (129, 129), (641, 479), (1021, 769), (23, 29), (199, 1993),
                 (1013, 97), (517, 333), (257, 255), (31, 1999), (1999, 37)]


def _load_sources():
    def rgb(a):
        a = np.asarray(a)
        if a.ndim == 2:
            a = np.stack([a] * 3, -1)
        return Image.fromarray(np.ascontiguousarray(a[..., :3]), "RGB")
    return {name: rgb(getattr(skimage.data, name)())
            for name in ("astronaut", "camera", "coffee", "rocket", "chelsea")}


SOURCES = _load_sources()
# Face boxes (x, y, w, h) as MediaPipe finds them in the untouched images.
FACES = {"astronaut": (177, 82, 95, 95), "camera": (182, 124, 87, 87)}


def log_uniform(rng, lo, hi):
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def clamp_side(v):
    return int(max(MIN_SIDE, min(MAX_SIDE, round(v))))


def oddify(rng, v):
    """Nudges a side to be odd or prime most of the time."""
    v = clamp_side(v)
    r = rng.random()
    if r < 0.45:
        i = int(np.searchsorted(PRIMES, v))
        return PRIMES[min(i, len(PRIMES) - 1)]
    if r < 0.85 and v % 2 == 0:
        return v + 1 if v < MAX_SIDE else v - 1
    return v


def pick_size(rng):
    r = rng.random()
    if r < 0.2:
        w, h = SPECIAL_SIZES[rng.integers(len(SPECIAL_SIZES))]
        return int(w), int(h)
    if r < 0.45:
        return (int(PRIMES[rng.integers(len(PRIMES))]),
                int(PRIMES[rng.integers(len(PRIMES))]))
    if r < 0.6:
        short = int(rng.integers(MIN_SIDE, 81))
        long = int(rng.integers(700, MAX_SIDE + 1))
        return (short, long) if rng.random() < 0.5 else (long, short)
    if r < 0.8:
        return (int(rng.integers(MIN_SIDE // 2, MAX_SIDE // 2)) * 2 + 1,
                int(rng.integers(MIN_SIDE // 2, MAX_SIDE // 2)) * 2 + 1)
    return (clamp_side(log_uniform(rng, MIN_SIDE, MAX_SIDE)),
            clamp_side(log_uniform(rng, MIN_SIDE, MAX_SIDE)))


def fit_size(rng, aspect):
    """A random size of about the given aspect (w / h), odd/prime-ish."""
    long = log_uniform(rng, 40, MAX_SIDE)
    if aspect >= 1:
        w, h = long, long / aspect
    else:
        w, h = long * aspect, long
    return oddify(rng, w), oddify(rng, h)


def pick_filter(rng, table=FILTERS):
    name = list(table)[rng.integers(len(table))]
    return name, table[name]


def resize(img, size, rng, p):
    fname, f = pick_filter(rng)
    p.setdefault("resize", []).append({"to": list(size), "filter": fname})
    return img.resize(size, f)


def background(rng, size, p):
    w, h = size
    kind = ["coffee", "rocket", "chelsea", "noise", "gradient", "solid",
            "smooth_noise"][rng.integers(7)]
    p["background"] = kind
    if kind in ("coffee", "rocket", "chelsea"):
        return SOURCES[kind].resize(size, Image.BILINEAR)
    if kind == "noise":
        return Image.fromarray(rng.integers(0, 256, (h, w, 3), np.uint8), "RGB")
    if kind == "smooth_noise":
        small = rng.integers(0, 256, (max(2, h // 40), max(2, w // 40), 3),
                             np.uint8)
        return Image.fromarray(small, "RGB").resize(size, Image.BICUBIC)
    if kind == "gradient":
        return gradient_image(rng, size, p)
    c = tuple(int(x) for x in rng.integers(0, 256, 3))
    p["color"] = list(c)
    return Image.new("RGB", size, c)


def gradient_image(rng, size, p):
    w, h = size
    c0 = rng.uniform(0, 255, 3)
    c1 = rng.uniform(0, 255, 3)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    if rng.random() < 0.5:
        ang = rng.uniform(0, 2 * math.pi)
        t = xx * math.cos(ang) + yy * math.sin(ang)
        p["gradient"] = "linear"
    else:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        t = np.hypot(xx - cx, yy - cy)
        p["gradient"] = "radial"
    t = (t - t.min()) / max(1e-9, float(t.max() - t.min()))
    a = c0[None, None, :] * (1 - t[..., None]) + c1[None, None, :] * t[..., None]
    return Image.fromarray(np.clip(np.round(a), 0, 255).astype(np.uint8), "RGB")


def face_crop(rng, p, src=None):
    """A crop of a face source around its face, with random margins."""
    if src is None:
        src = "astronaut" if rng.random() < 0.75 else "camera"
    img = SOURCES[src]
    fx, fy, fw, fh = FACES[src]
    W, H = img.size
    if rng.random() < 0.85:
        left = rng.uniform(0, 1) * fx
        top = rng.uniform(0, 1) * fy
        right = fx + fw + rng.uniform(0, 1) * (W - fx - fw)
        bottom = fy + fh + rng.uniform(0, 1) * (H - fy - fh)
        # Trim margins sometimes so the face fills the crop.
        if rng.random() < 0.4:
            m = rng.uniform(0.1, 0.8)
            left, top = fx - m * fw, fy - m * fh
            right, bottom = fx + fw + m * fw, fy + fh + m * fh
    else:  # anywhere, may miss the face
        cw, ch = rng.uniform(16, W), rng.uniform(16, H)
        left, top = rng.uniform(0, W - cw), rng.uniform(0, H - ch)
        right, bottom = left + cw, top + ch
    box = tuple(int(round(v)) for v in (max(0, left), max(0, top),
                                        min(W, right), min(H, bottom)))
    p["source"] = src
    p["crop"] = list(box)
    return img.crop(box)


def face_patch(rng, p):
    src = "astronaut" if rng.random() < 0.75 else "camera"
    fx, fy, fw, fh = FACES[src]
    m = rng.uniform(0.2, 0.9)
    cx, cy = fx + fw / 2, fy + fh / 2
    half = (0.5 + m) * max(fw, fh)
    box = [int(round(cx - half)), int(round(cy - half * 1.1)),
           int(round(cx + half)), int(round(cy + half * 0.9))]
    patch = SOURCES[src].crop(box)
    info = {"source": src, "crop": box}
    if rng.random() < 0.3:
        patch = ImageOps.mirror(patch)
        info["mirror"] = True
    p.setdefault("faces", []).append(info)
    return patch, info


# --- recipes: each returns an RGB PIL image and fills the params dict p ----

def r_crop_resize(rng, p):
    img = face_crop(rng, p)
    if rng.random() < 0.6:
        size = fit_size(rng, img.width / img.height)
        p["aspect"] = "kept"
    else:
        size = pick_size(rng)
        p["aspect"] = "free"
    return resize(img, size, rng, p)


def r_canvas(rng, p):
    size = pick_size(rng)
    canvas = background(rng, size, p)
    src = SOURCES["astronaut" if rng.random() < 0.8 else "camera"]
    scale = log_uniform(rng, 0.08, 3.0) * min(size) / 512.0
    sw, sh = max(1, int(round(512 * scale))), max(1, int(round(512 * scale)))
    img = resize(src, (sw, sh), rng, p)
    x = int(rng.integers(-sw // 2, max(1, size[0] - sw // 2)))
    y = int(rng.integers(-sh // 2, max(1, size[1] - sh // 2)))
    canvas.paste(img, (x, y))
    p["pasted"] = [x, y, sw, sh]
    return canvas


def r_rotate(rng, p):
    src = "astronaut" if rng.random() < 0.75 else "camera"
    angle = float(np.clip(rng.normal(0, 12), -35, 35))
    fname, f = pick_filter(rng, ROT_FILTERS)
    expand = bool(rng.random() < 0.5)
    fill = tuple(int(x) for x in rng.integers(0, 256, 3))
    fx, fy, fw, fh = FACES[src]
    center = (fx + fw / 2 + rng.uniform(-60, 60), fy + fh / 2 + rng.uniform(-60, 60))
    rotated = SOURCES[src].rotate(angle, resample=f, expand=expand,
                                  center=center, fillcolor=fill)
    p.update(source=src, angle=angle, rotate_filter=fname, expand=expand,
             fill=list(fill), center=list(center))
    if rng.random() < 0.5:
        W, H = rotated.size
        cw, ch = int(rng.integers(W // 3, W + 1)), int(rng.integers(H // 3, H + 1))
        x0, y0 = int(rng.integers(0, W - cw + 1)), int(rng.integers(0, H - ch + 1))
        rotated = rotated.crop((x0, y0, x0 + cw, y0 + ch))
        p["crop"] = [x0, y0, x0 + cw, y0 + ch]
    return resize(rotated, fit_size(rng, rotated.width / rotated.height), rng, p)


def r_flip(rng, p):
    img = face_crop(rng, p)
    name = list(TRANSPOSES)[rng.integers(len(TRANSPOSES))]
    p["transpose"] = name
    img = img.transpose(TRANSPOSES[name])
    return resize(img, fit_size(rng, img.width / img.height), rng, p)


def r_composite(rng, p):
    size = pick_size(rng)
    if rng.random() < 0.5:  # composites want room for several faces
        size = (oddify(rng, log_uniform(rng, 200, MAX_SIDE)),
                oddify(rng, log_uniform(rng, 200, MAX_SIDE)))
    canvas = background(rng, size, p)
    n = int(rng.integers(1, 8))
    for _ in range(n):
        patch, info = face_patch(rng, p)
        side = log_uniform(rng, 0.02, 1.6) * min(size)
        pw = max(2, int(round(side)))
        ph = max(2, int(round(side * patch.height / patch.width)))
        fname, f = pick_filter(rng)
        patch = patch.resize((pw, ph), f)
        x = int(rng.integers(-pw // 2, max(1, size[0] - pw // 2)))
        y = int(rng.integers(-ph // 2, max(1, size[1] - ph // 2)))
        canvas.paste(patch, (x, y))
        info.update(at=[x, y, pw, ph], filter=fname)
    return canvas


def r_photometric(rng, p):
    img = r_crop_resize(rng, p)
    ops = []
    if rng.random() < 0.7:
        b = log_uniform(rng, 0.15, 3.0)
        img = ImageEnhance.Brightness(img).enhance(b)
        ops.append(["brightness", b])
    if rng.random() < 0.7:
        c = log_uniform(rng, 0.15, 3.0)
        img = ImageEnhance.Contrast(img).enhance(c)
        ops.append(["contrast", c])
    if rng.random() < 0.4:
        g = log_uniform(rng, 0.3, 3.0)
        lut = [int(round(255 * (i / 255.0) ** g)) for i in range(256)] * 3
        img = img.point(lut)
        ops.append(["gamma", g])
    if rng.random() < 0.3:
        s = rng.uniform(0, 3)
        img = ImageEnhance.Color(img).enhance(s)
        ops.append(["saturation", s])
    if rng.random() < 0.15:
        perm = [int(x) for x in rng.permutation(3)]
        img = Image.merge("RGB", [img.split()[i] for i in perm])
        ops.append(["channels", perm])
    p["photometric"] = ops
    return img


def r_grayscale(rng, p):
    img = (r_crop_resize if rng.random() < 0.6 else r_composite)(rng, p)
    p["grayscale"] = True
    return img.convert("L").convert("RGB")


def r_jpeg(rng, p):
    img = (r_crop_resize if rng.random() < 0.6 else r_composite)(rng, p)
    q = int(rng.integers(2, 96))
    sub = int(rng.integers(0, 3))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=q, subsampling=sub)
    p["jpeg"] = {"quality": q, "subsampling": sub}
    return Image.open(io.BytesIO(buf.getvalue())).convert("RGB")


def r_noise(rng, p):
    size = pick_size(rng)
    w, h = size
    kind = ["uniform", "gaussian", "salt_pepper", "smooth"][rng.integers(4)]
    p.update(size=list(size), noise=kind)
    if kind == "uniform":
        a = rng.integers(0, 256, (h, w, 3), np.uint8)
    elif kind == "gaussian":
        a = np.clip(rng.normal(rng.uniform(40, 215), rng.uniform(5, 80),
                               (h, w, 3)), 0, 255).round().astype(np.uint8)
    elif kind == "salt_pepper":
        a = np.where(rng.random((h, w, 1)) < 0.5, 0, 255).astype(np.uint8)
        a = np.repeat(a, 3, axis=2)
    else:
        small = rng.integers(0, 256, (max(2, h // 16), max(2, w // 16), 3),
                             np.uint8)
        return Image.fromarray(small, "RGB").resize(size, Image.BICUBIC)
    return Image.fromarray(a, "RGB")


def r_gradient(rng, p):
    size = pick_size(rng)
    img = gradient_image(rng, size, p)
    if rng.random() < 0.5:
        patch, info = face_patch(rng, p)
        side = log_uniform(rng, 0.1, 1.2) * min(size)
        pw = max(2, int(round(side)))
        ph = max(2, int(round(side * patch.height / patch.width)))
        patch = patch.resize((pw, ph), Image.LANCZOS)
        x = int(rng.integers(-pw // 3, max(1, size[0] - 2 * pw // 3)))
        y = int(rng.integers(-ph // 3, max(1, size[1] - 2 * ph // 3)))
        img.paste(patch, (x, y))
        info["at"] = [x, y, pw, ph]
    return img


def r_other_content(rng, p):
    src = ["coffee", "rocket", "chelsea", "camera"][rng.integers(4)]
    img = SOURCES[src]
    W, H = img.size
    cw, ch = int(rng.integers(16, W + 1)), int(rng.integers(16, H + 1))
    if rng.random() < 0.4:
        cw, ch = W, H
    x0, y0 = int(rng.integers(0, W - cw + 1)), int(rng.integers(0, H - ch + 1))
    p.update(source=src, crop=[x0, y0, x0 + cw, y0 + ch])
    img = img.crop((x0, y0, x0 + cw, y0 + ch))
    size = fit_size(rng, cw / ch) if rng.random() < 0.5 else pick_size(rng)
    return resize(img, size, rng, p)


def r_extreme_aspect(rng, p):
    src = "astronaut" if rng.random() < 0.75 else "camera"
    fx, fy, fw, fh = FACES[src]
    W, H = SOURCES[src].size
    wide = bool(rng.random() < 0.5)
    m = rng.uniform(0.0, 0.4)
    if wide:  # a horizontal strip through the face
        box = (0, int(fy - m * fh), W, int(fy + fh + m * fh))
        size = (int(rng.integers(800, MAX_SIDE + 1)) | 1,
                int(rng.integers(MIN_SIDE, 120)) | 1)
    else:
        box = (int(fx - m * fw), 0, int(fx + fw + m * fw), H)
        size = (int(rng.integers(MIN_SIDE, 120)) | 1,
                int(rng.integers(800, MAX_SIDE + 1)) | 1)
    size = tuple(min(MAX_SIDE, s) for s in size)
    img = SOURCES[src].crop(box)
    p.update(source=src, crop=list(box), orientation="wide" if wide else "tall")
    if rng.random() < 0.5:
        # keep the face undistorted: paste the strip scaled to the short side
        # onto a canvas of the extreme size
        canvas = background(rng, size, p)
        short = size[1] if wide else size[0]
        s = short / (img.height if wide else img.width)
        scaled = resize(img, (max(1, round(img.width * s)),
                              max(1, round(img.height * s))), rng, p)
        off = int(rng.integers(0, max(1, (size[0] if wide else size[1])
                                      - (scaled.width if wide else scaled.height))))
        canvas.paste(scaled, (off, 0) if wide else (0, off))
        p["offset"] = off
        return canvas
    return resize(img, size, rng, p)


RECIPES = [r_crop_resize, r_composite, r_canvas, r_rotate, r_flip,
           r_photometric, r_composite, r_grayscale, r_jpeg, r_crop_resize,
           r_noise, r_gradient, r_other_content, r_extreme_aspect]


def make_image(seed, i):
    rng = np.random.default_rng([seed, i])
    recipe = RECIPES[i % len(RECIPES)]
    p = {}
    img = recipe(rng, p)
    assert img.mode == "RGB", img.mode
    # Sides are 20..2000 except the special 1999x17 / 17x1999 sizes.
    assert 17 <= img.width <= MAX_SIDE and 17 <= img.height <= MAX_SIDE, img.size
    return img, recipe.__name__[2:], p


# ---------------------------------------------------------------------------
# Running both detectors
# ---------------------------------------------------------------------------

def tasks_to_dicts(result):
    out = []
    for d in result.detections:
        bb = d.bounding_box
        out.append({
            "boundingBox": {"originX": int(bb.origin_x), "originY": int(bb.origin_y),
                            "width": int(bb.width), "height": int(bb.height)},
            "categories": [{"index": int(c.index), "score": float(c.score)}
                           for c in d.categories],
            "keypoints": [{"x": float(k.x), "y": float(k.y),
                           "label": k.label or KEYPOINT_LABELS[j]}
                          for j, k in enumerate(d.keypoints or [])],
        })
    return out


def load_rgb(path):
    with Image.open(path) as im:
        return np.ascontiguousarray(np.asarray(im.convert("RGB"), np.uint8))


def run_short_range(images):
    """MediaPipe Tasks FaceDetector (short range) for every CONFIGS entry."""
    mp_out = {name: {} for name, _, _ in CONFIGS}
    for name, opts, _ in CONFIGS:
        options = vision.FaceDetectorOptions(
            base_options=BaseOptions(model_asset_path=MODEL),
            running_mode=vision.RunningMode.IMAGE, **opts)
        with vision.FaceDetector.create_from_options(options) as det:
            for rec in images:
                rgb = load_rgb(rec["path"])
                try:
                    mp_out[name][rec["path"]] = tasks_to_dicts(det.detect(
                        mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb)))
                except Exception as e:  # recorded as a failure
                    mp_out[name][rec["path"]] = "%s: %s" % (type(e).__name__, e)
    return mp_out, []


def _full_range_tools():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import make_goldens_full_range as fr
    import make_goldens as sr
    if sr.sha256(fr.MODEL) != fr.MODEL_SHA256:
        sys.exit("unexpected full-range model sha256 %s" % sr.sha256(fr.MODEL))
    return fr, sr


def expanded_face_detection_graph(fr, cfg, min_score_thresh,
                                  min_suppression_threshold):
    """The compiled FaceDetection subgraph as a plain graph: every node's
    options resolved from the effective full-range FaceDetectionOptions
    (make_goldens_full_range.load_config), the ROI input left unconnected as
    in FaceDetectionFullRangeCpu, absolute model path, and the two
    thresholds set."""
    from mediapipe.framework import calculator_pb2
    from google.protobuf import text_format
    g = calculator_pb2.CalculatorGraphConfig()
    g.CopyFrom(cfg["graphs"]["FaceDetection"])
    g.ClearField("type")
    g.ClearField("graph_options")
    del g.input_stream[:]
    del g.output_stream[:]
    g.input_stream.append("image")
    g.output_stream.append("detections")
    seen = set()
    for node in g.node:
        if node.calculator == "ImageToTensorCalculator":
            keep = [s for s in node.input_stream if not s.startswith("NORM_RECT:")]
            assert len(keep) == len(node.input_stream) - 1
            del node.input_stream[:]
            node.input_stream.extend(keep)
        if node.calculator not in cfg["eff"]:
            continue
        seen.add(node.calculator)
        opts = cfg["eff"][node.calculator]
        ext = type(opts).ext
        dst = node.options.Extensions[ext]
        dst.CopyFrom(opts)
        del node.option_value[:]
        if node.calculator == "InferenceCalculator":
            dst.model_path = fr.MODEL
        elif node.calculator == "TensorsToDetectionsCalculator":
            dst.min_score_thresh = min_score_thresh
        elif node.calculator == "NonMaxSuppressionCalculator":
            dst.min_suppression_threshold = min_suppression_threshold
    assert seen == set(cfg["eff"]), seen
    assert not any(n.option_value for n in g.node)
    return text_format.MessageToString(g)


class SequentialGraph:
    """One CalculatorGraph fed one image at a time (waiting until idle after
    each), detections read back as make_goldens.legacy_dict()s.  The face
    detection graph keeps no state between frames."""

    def __init__(self, sr, config):
        self.sr = sr
        self.graph = mp.CalculatorGraph(graph_config=config)
        self.packets = []
        self.graph.observe_output_stream(
            "detections",
            lambda name, p: self.packets.append(
                mp.packet_getter.get_proto_list(p)))
        self.graph.start_run()
        self.t = 0

    def detect(self, rgb):
        self.packets.clear()
        self.graph.add_packet_to_input_stream(
            "image", mp.packet_creator.create_image_frame(
                image_format=mp.ImageFormat.SRGB, data=rgb).at(self.t))
        self.t += 1
        self.graph.wait_until_idle()
        assert len(self.packets) <= 1
        # No packet at all is emitted when nothing is detected.
        return [self.sr.legacy_dict(d)
                for d in (self.packets[0] if self.packets else [])]

    def close(self):
        self.graph.close()


def run_full_range(images):
    """MediaPipe's full-range detector for every FULL_CONFIGS entry, in
    pixel form; plus the cross-checks of the expanded graph."""
    fr, sr = _full_range_tools()
    cfg = fr.load_config()
    # The solution's hard-coded threshold; our CLI's default for full range.
    legacy_thresh = 0.6
    assert np.float32(cfg["fd_opts"].min_score_thresh) == np.float32(0.6)
    expanded = {}
    for _, o, _ in FULL_CONFIGS:
        key = (o["min_score_thresh"] or legacy_thresh,
               o["min_suppression_threshold"])
        expanded.setdefault(key, None)
    expanded.setdefault((0.3, 0.3), None)
    expanded.setdefault((legacy_thresh, 0.3), None)
    for key in expanded:
        expanded[key] = SequentialGraph(sr, expanded_face_detection_graph(
            fr, cfg, key[0], key[1]))
    # The unexpanded subgraph node with min_score_thresh 0.3 (legacy_subgraph).
    subgraph = SequentialGraph(sr, fr.face_detection_subgraph_config(cfg["fd_opts"], 0.3))

    mp_out = {name: {} for name, _, _ in FULL_CONFIGS}
    ref_problems = []
    with mp.solutions.face_detection.FaceDetection(
            model_selection=1, min_detection_confidence=0.5) as solution:
        for rec in images:
            rgb = load_rgb(rec["path"])
            w, h = rec["width"], rec["height"]
            try:
                res = solution.process(rgb)
                legacy = [sr.legacy_dict(d) for d in res.detections or []]
                sub03 = subgraph.detect(rgb)
                exp = {k: g.detect(rgb) for k, g in expanded.items()}
            except Exception as e:  # recorded as a failure
                err = "%s: %s" % (type(e).__name__, e)
                for name, _, _ in FULL_CONFIGS:
                    mp_out[name][rec["path"]] = err
                continue
            if exp[(legacy_thresh, 0.3)] != legacy:
                ref_problems.append((rec, "expanded graph at %g/0.3 != legacy "
                                     "solution (%d vs %d faces)" % (
                                         legacy_thresh,
                                         len(exp[(legacy_thresh, 0.3)]),
                                         len(legacy))))
            if exp[(0.3, 0.3)] != sub03:
                ref_problems.append((rec, "expanded graph at 0.3/0.3 != "
                                     "FaceDetection subgraph at 0.3 (%d vs %d "
                                     "faces)" % (len(exp[(0.3, 0.3)]),
                                                 len(sub03))))
            for name, o, _ in FULL_CONFIGS:
                if o["min_score_thresh"] is None:
                    dets = legacy
                elif (o["min_score_thresh"], o["min_suppression_threshold"]) \
                        == (0.3, 0.3):
                    dets = sub03
                else:
                    dets = exp[(o["min_score_thresh"],
                                o["min_suppression_threshold"])]
                mp_out[name][rec["path"]] = fr.to_pixel(dets, w, h)
    subgraph.close()
    for g in expanded.values():
        g.close()
    return mp_out, ref_problems


def run_cli(cli, flags, paths):
    """Returns {path: detections list or error string}."""
    out = {}
    for start in range(0, len(paths), 32):
        chunk = paths[start:start + 32]
        res = subprocess.run([cli, "detect", *chunk, *flags],
                             capture_output=True, text=True)
        got = {}
        for line in res.stdout.splitlines():
            if line.strip():
                doc = json.loads(line)
                got[doc["image"]] = doc
        if res.returncode != 0 or set(got) != set(chunk):
            for path in chunk:  # attribute the failure image by image
                r1 = subprocess.run([cli, "detect", path, *flags],
                                    capture_output=True, text=True)
                if r1.returncode != 0 or not r1.stdout.strip():
                    got[path] = "exit %d: %s" % (r1.returncode, r1.stderr.strip()[-500:])
                else:
                    got[path] = json.loads(r1.stdout.splitlines()[0])
        for path in chunk:
            out[path] = got[path]
    return out


def f32(v):
    return np.float32(v)


def compare(mp_dets, cli_doc, width, height):
    """Returns (ok, problems, stats)."""
    st = {"box": 0.0, "score": 0.0, "kp": 0.0, "dets": 0, "exact_dets": 0,
          "fields": 0, "exact_fields": 0}
    probs = []
    if isinstance(cli_doc, str):
        return False, ["cli error: " + cli_doc], st
    if cli_doc.get("width") != width or cli_doc.get("height") != height:
        probs.append("cli size %sx%s != %dx%d" % (cli_doc.get("width"),
                                                  cli_doc.get("height"), width, height))
    cli_dets = cli_doc["detections"]
    if len(cli_dets) != len(mp_dets):
        probs.append("count mediapipe=%d cli=%d" % (len(mp_dets), len(cli_dets)))
    for k, (m, c) in enumerate(zip(mp_dets, cli_dets)):
        st["dets"] += 1
        exact = True
        for f in ("originX", "originY", "width", "height"):
            d = abs(m["boundingBox"][f] - c["boundingBox"][f])
            st["box"] = max(st["box"], d)
            st["fields"] += 1
            st["exact_fields"] += d == 0
            exact &= d == 0
            if d > BOX_TOL:
                probs.append("det %d %s mediapipe=%d cli=%d" % (
                    k, f, m["boundingBox"][f], c["boundingBox"][f]))
        ms, cs = m["categories"][0]["score"], c["categories"][0]["score"]
        if m["categories"][0]["index"] != c["categories"][0]["index"]:
            probs.append("det %d category index differs" % k)
        d = abs(ms - cs)
        st["score"] = max(st["score"], d)
        st["fields"] += 1
        st["exact_fields"] += f32(ms) == f32(cs)
        exact &= bool(f32(ms) == f32(cs))
        if d > SCORE_TOL:
            probs.append("det %d score mediapipe=%.7g cli=%.7g" % (k, ms, cs))
        if len(m["keypoints"]) != len(c["keypoints"]):
            probs.append("det %d keypoint count %d vs %d" % (
                k, len(m["keypoints"]), len(c["keypoints"])))
        for j, (mk, ck) in enumerate(zip(m["keypoints"], c["keypoints"])):
            if mk["label"] != ck["label"]:
                probs.append("det %d keypoint %d label %s vs %s" % (
                    k, j, mk["label"], ck["label"]))
            for a in ("x", "y"):
                d = abs(mk[a] - ck[a])
                st["kp"] = max(st["kp"], d)
                st["fields"] += 1
                st["exact_fields"] += f32(mk[a]) == f32(ck[a])
                exact &= bool(f32(mk[a]) == f32(ck[a]))
                if d > KEYPOINT_TOL:
                    probs.append("det %d kp %s.%s mediapipe=%.7g cli=%.7g" % (
                        k, mk["label"], a, mk[a], ck[a]))
        st["exact_dets"] += exact
    return not probs, probs, st


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", choices=["short", "full"], default="short",
                    help="short: CLI vs Tasks FaceDetector (default); full: "
                         "CLI --model full vs the legacy full-range graphs")
    ap.add_argument("--cli", default="/tmp/build-check/release/blazeface")
    ap.add_argument("--count", type=int, default=160)
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--out", default="/tmp/agree")
    ap.add_argument("--only", type=int, action="append",
                    help="only image index I (repeatable)")
    args = ap.parse_args()

    t0 = time.time()
    full = args.model == "full"
    configs = FULL_CONFIGS if full else CONFIGS
    cli_base = ["--model", "full"] if full else []
    out = os.path.abspath(args.out)
    fail_dir = os.path.join(out, "failures")
    os.makedirs(out, exist_ok=True)
    for old in glob.glob(os.path.join(out, "agree_*.png")):
        os.remove(old)
    shutil.rmtree(fail_dir, ignore_errors=True)

    indices = args.only if args.only else list(range(args.count))
    images = []
    for i in indices:
        img, recipe, params = make_image(args.seed, i)
        path = os.path.join(out, "agree_%04d_%s_%dx%d.png" % (
            i, recipe, img.width, img.height))
        img.save(path, compress_level=1)
        images.append({"index": i, "path": path, "recipe": recipe,
                       "params": params, "width": img.width,
                       "height": img.height})
    t_gen = time.time() - t0
    print("generated %d images in %.1fs (seed %d) -> %s" % (
        len(images), t_gen, args.seed, out), flush=True)

    # MediaPipe on exactly the PNG pixels.
    for rec in images:
        with Image.open(rec["path"]) as im:
            rec["rgb_mode"] = im.mode
    mp_out, ref_problems = (run_full_range if full else run_short_range)(images)
    t_mp = time.time() - t0 - t_gen

    cli_out = {name: run_cli(args.cli, cli_base + flags,
                             [r["path"] for r in images])
               for name, _, flags in configs}
    t_cli = time.time() - t0 - t_gen - t_mp

    rows = {}
    recipe_rows = {}
    overall = {"box": 0.0, "score": 0.0, "kp": 0.0}
    worst = {"box": None, "score": None, "kp": None}
    failures = []
    all_results = []
    for name, _, flags in configs:
        flags = cli_base + flags
        row = rows.setdefault(name, {"images": 0, "faces_mp": 0, "img_with_faces": 0,
                                     "count_mismatch": 0, "failed_images": 0,
                                     "dets": 0, "exact_dets": 0, "fields": 0,
                                     "exact_fields": 0, "exact_images": 0,
                                     "box": 0.0, "score": 0.0, "kp": 0.0})
        for rec in images:
            m = mp_out[name][rec["path"]]
            c = cli_out[name][rec["path"]]
            if isinstance(m, str):
                ok, probs, st = False, ["mediapipe error: " + m], None
            else:
                ok, probs, st = compare(m, c, rec["width"], rec["height"])
            row["images"] += 1
            rr = recipe_rows.setdefault(rec["recipe"], {"checks": 0, "failed": 0,
                                                        "dets": 0})
            rr["checks"] += 1
            if not isinstance(m, str):
                row["faces_mp"] += len(m)
                row["img_with_faces"] += bool(m)
            if any(p.startswith("count") for p in probs):
                row["count_mismatch"] += 1
            if st:
                for k in ("dets", "exact_dets", "fields", "exact_fields"):
                    row[k] += int(st[k])
                rr["dets"] += st["dets"]
                row["exact_images"] += (ok and st["exact_dets"] == st["dets"])
                for k in ("box", "score", "kp"):
                    row[k] = max(row[k], st[k])
                    if st[k] > overall[k]:
                        overall[k] = st[k]
                        worst[k] = "%s [%s]" % (os.path.basename(rec["path"]), name)
            all_results.append({"image": rec["path"], "config": name, "ok": ok,
                                "problems": probs})
            if not ok:
                row["failed_images"] += 1
                rr["failed"] += 1
                os.makedirs(fail_dir, exist_ok=True)
                base = os.path.basename(rec["path"])
                dst = os.path.join(fail_dir, base)
                if not os.path.exists(dst):
                    shutil.copyfile(rec["path"], dst)
                with open(os.path.join(fail_dir, "%s__%s.json" % (
                        base[:-4], name)), "w") as f:
                    json.dump({"image": dst, "index": rec["index"],
                               "seed": args.seed, "recipe": rec["recipe"],
                               "params": rec["params"],
                               "width": rec["width"], "height": rec["height"],
                               "config": name, "cli_flags": flags,
                               "problems": probs, "mediapipe": m, "cli": c},
                              f, indent=1)
                failures.append((rec, name, probs))

    # ---- report ----
    hdr = ("%-16s %6s %7s %6s %7s %7s %6s %11s %13s %8s %9s %9s" % (
        "config", "images", "w/faces", "faces", "cnt!=", "failed", "exact",
        "exact dets", "exact fields", "max box", "max score", "max kp"))
    print()
    print(hdr)
    print("-" * len(hdr))
    tot = {"images": 0, "faces_mp": 0, "failed_images": 0, "dets": 0,
           "exact_dets": 0, "fields": 0, "exact_fields": 0, "exact_images": 0,
           "count_mismatch": 0, "img_with_faces": 0}
    for name, row in rows.items():
        for k in tot:
            tot[k] += row[k]
        print("%-16s %6d %7d %6d %7d %7d %6d %5d/%-5d %6d/%-6d %8g %9.3g %9.3g" % (
            name, row["images"], row["img_with_faces"], row["faces_mp"],
            row["count_mismatch"], row["failed_images"], row["exact_images"],
            row["exact_dets"], row["dets"], row["exact_fields"], row["fields"],
            row["box"], row["score"], row["kp"]))
    print("-" * len(hdr))
    print("%-16s %6d %7d %6d %7d %7d %6d %5d/%-5d %6d/%-6d %8g %9.3g %9.3g" % (
        "TOTAL", tot["images"], tot["img_with_faces"], tot["faces_mp"],
        tot["count_mismatch"], tot["failed_images"], tot["exact_images"],
        tot["exact_dets"], tot["dets"], tot["exact_fields"], tot["fields"],
        overall["box"], overall["score"], overall["kp"]))
    print("(images = image x config checks; exact = checks where every "
          "detection is bit-identical; tolerances: box %d px, score %g, "
          "keypoint %g)" % (BOX_TOL, SCORE_TOL, KEYPOINT_TOL))
    for k, label in (("box", "box px"), ("score", "score"), ("kp", "keypoint")):
        if worst[k]:
            print("max %-8s diff %g at %s" % (label, overall[k], worst[k]))

    print()
    print("%-16s %7s %7s %6s" % ("recipe", "checks", "failed", "dets"))
    for r, v in sorted(recipe_rows.items()):
        print("%-16s %7d %7d %6d" % (r, v["checks"], v["failed"], v["dets"]))
    sizes = [(r["width"], r["height"]) for r in images]
    odd = sum(1 for w, h in sizes if w % 2 or h % 2)
    prime = sum(1 for w, h in sizes if w in PRIMES or h in PRIMES)
    extreme = sum(1 for w, h in sizes if max(w, h) / min(w, h) >= 10)
    print("\nsizes: %d images, %d with an odd side, %d with a prime side, "
          "%d with aspect >= 10:1, min side %d, max side %d" % (
              len(sizes), odd, prime, extreme, min(min(s) for s in sizes),
              max(max(s) for s in sizes)))

    if ref_problems:
        print("\nREFERENCE CHECK FAILED (%d): the expanded FaceDetection graph "
              "disagrees with the unexpanded references:" % len(ref_problems))
        for rec, msg in ref_problems:
            print("  %s %s %dx%d: %s" % (os.path.basename(rec["path"]),
                                         rec["recipe"], rec["width"],
                                         rec["height"], msg))
    elif full:
        print("\nreference check: expanded FaceDetection graph == legacy "
              "solution (0.6/0.3) and == FaceDetection subgraph (0.3/0.3) on "
              "all %d images" % len(images))
    if failures:
        print("\nFAILURES (%d image x config checks; copies and JSON in %s):" % (
            len(failures), fail_dir))
        for rec, name, probs in failures:
            print("  %s [%s] %s %dx%d: %s" % (
                os.path.basename(rec["path"]), name, rec["recipe"],
                rec["width"], rec["height"], "; ".join(probs[:6]) +
                (" ..." if len(probs) > 6 else "")))
    else:
        print("\nALL AGREE (%s range): %d image x config checks, %d "
              "detections." % (args.model, tot["images"], tot["dets"]))

    with open(os.path.join(out, "results_full.json" if full else
                           "results.json"), "w") as f:
        json.dump({"seed": args.seed, "count": len(images), "cli": args.cli,
                   "model": args.model,
                   "configs": [[n, o, cli_base + fl] for n, o, fl in configs],
                   "reference_problems": [[r["path"], m]
                                          for r, m in ref_problems],
                   "tolerances": {"box_px": BOX_TOL, "score": SCORE_TOL,
                                  "keypoint": KEYPOINT_TOL},
                   "summary": rows, "max": overall, "worst": worst,
                   "images": images, "results": all_results,
                   "mediapipe": mp_out, "cli_out": cli_out}, f, indent=1,
                  default=lambda o: o.item() if hasattr(o, "item") else str(o))
    print("timing: generate %.1fs, mediapipe %.1fs, cli %.1fs, total %.1fs" % (
        t_gen, t_mp, t_cli, time.time() - t0))
    print("re-run: /root/mpenv/bin/python Tools/reference/check_agreement.py "
          "%s--cli %s --count %d --seed %d" % (
              "--model full " if full else "", args.cli, args.count, args.seed))
    return 1 if failures or ref_problems else 0


if __name__ == "__main__":
    sys.exit(main())
