"""Shared by the redaction scripts: face sprites cut from the fixture photos, backgrounds,
YUV4MPEG2 reading and writing, and box matching. Everything is made from public-domain or CC0
pictures: the astronaut fixture (the faces) and scikit-image's coffee, rocket, brick, grass,
gravel and Hubble deep field photos (the backgrounds), so nothing here needs to be committed.
"""
import json
import os
import subprocess
import sys

import numpy as np
from PIL import Image, ImageEnhance, ImageFilter

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tools", "video"))
from make_demo_video import rgb_to_yuv420  # noqa: E402  (BT.601 limited range, 4:2:0, as the demo video)
IMAGES = os.path.join(ROOT, "Tests", "Fixtures", "images")
# The command under test: this checkout's release build, or $BLAZEFACE.
BLAZEFACE = os.environ.get("BLAZEFACE", os.path.join(ROOT, ".build", "release", "blazeface"))

# The astronaut's head-and-shoulders crop (HEAD_BOX of Tests/Fixtures/README.md) and, inside it,
# the face box MediaPipe 0.10.14 reports on astronaut.png (177, 82, 95, 95): the ground truth's
# convention is MediaPipe's box.
HEAD_BOX = (147, 40, 303, 220)
FACE_IN_HEAD = (177 - 147, 82 - 40, 95, 95)


def head_sprite(face_width, rng):
    """The head crop scaled so that its face is `face_width` pixels wide, with a random flip,
    brightness, contrast and colour; returns (RGBA sprite, face box (x, y, w, h) in it). Half
    the sprites are feathered ellipses (the head on the background), half hard rectangles."""
    head = Image.open(os.path.join(IMAGES, "astronaut.png")).convert("RGB").crop(HEAD_BOX)
    s = face_width / FACE_IN_HEAD[2]
    size = (max(1, round(head.width * s)), max(1, round(head.height * s)))
    img = head.resize(size, Image.LANCZOS)
    fx, fy, fw, fh = (v * s for v in FACE_IN_HEAD)
    if rng.random() < 0.5:
        img = img.transpose(Image.FLIP_LEFT_RIGHT)
        fx = size[0] - fx - fw
    img = ImageEnhance.Brightness(img).enhance(rng.uniform(0.7, 1.25))
    img = ImageEnhance.Contrast(img).enhance(rng.uniform(0.75, 1.2))
    img = ImageEnhance.Color(img).enhance(rng.uniform(0.5, 1.3))
    alpha = Image.new("L", size, 255)
    if rng.random() < 0.5:
        alpha = Image.new("L", size, 0)
        from PIL import ImageDraw
        ImageDraw.Draw(alpha).ellipse((size[0] * 0.04, size[1] * 0.02, size[0] * 0.96, size[1] * 1.1), fill=255)
        alpha = alpha.filter(ImageFilter.GaussianBlur(max(1, size[0] / 30)))
    img.putalpha(alpha)
    return img, (fx, fy, fw, fh)


def backgrounds():
    """The background photos (scikit-image's public-domain and CC0 data), as RGB PIL images."""
    from skimage import data
    out = []
    for name in ("coffee", "rocket", "brick", "grass", "gravel", "hubble_deep_field"):
        a = getattr(data, name)()
        if a.ndim == 2:
            a = np.stack([a] * 3, axis=-1)
        out.append(Image.fromarray(a[..., :3].astype(np.uint8)))
    return out


def background(width, height, rng, photos):
    """A `width` x `height` background: a photo scaled to cover it (random crop, flip and tint),
    or a smooth two-colour gradient with noise."""
    if rng.random() < 0.8:
        photo = photos[rng.integers(len(photos))]
        scale = max(width / photo.width, height / photo.height) * rng.uniform(1.0, 1.5)
        big = photo.resize((int(photo.width * scale) + 1, int(photo.height * scale) + 1), Image.BICUBIC)
        x, y = rng.integers(0, big.width - width + 1), rng.integers(0, big.height - height + 1)
        img = big.crop((x, y, x + width, y + height))
        if rng.random() < 0.5:
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
        return ImageEnhance.Color(img).enhance(rng.uniform(0.6, 1.3))
    a, b = rng.uniform(30, 230, 3), rng.uniform(30, 230, 3)
    t = np.linspace(0, 1, width)[None, :, None] * 0.6 + np.linspace(0, 1, height)[:, None, None] * 0.4
    g = a * (1 - t) + b * t + rng.normal(0, 6, (height, width, 3))
    return Image.fromarray(np.clip(g, 0, 255).astype(np.uint8))


def iou(a, b):
    """Intersection over union of two (x, y, w, h) boxes."""
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def match(truth, found, threshold):
    """Greedy one-to-one matching, best IoU first; returns the number of matched pairs."""
    return len(matched(truth, found, threshold))


def matched(truth, found, threshold):
    """Greedy one-to-one matching, best IoU first; returns {truth index: found index}."""
    pairs = sorted(((iou(t, f), i, j) for i, t in enumerate(truth) for j, f in enumerate(found)), reverse=True)
    used_f, out = set(), {}
    for v, i, j in pairs:
        if v < threshold:
            break
        if i not in out and j not in used_f:
            used_f.add(j)
            out[i] = j
    return out


def blazeface_boxes(path, *args):
    """Faces `blazeface detect` finds in the picture at `path`, as (x, y, w, h) pixel boxes."""
    out = subprocess.run([BLAZEFACE, "detect", path, *args], check=True, capture_output=True, text=True).stdout
    return [tuple(d["boundingBox"][k] for k in ("originX", "originY", "width", "height"))
            for d in json.loads(out)["detections"]]


class Y4MWriter:
    def __init__(self, path, width, height, fps=30):
        self.f = open(path, "wb")
        self.f.write(f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C420jpeg\n".encode())

    def write(self, rgb):
        self.f.write(b"FRAME\n")
        for plane in rgb_to_yuv420(rgb):
            self.f.write(plane.tobytes())

    def close(self):
        self.f.close()


def read_y4m_luma(path):
    """The luma planes of a 4:2:0 YUV4MPEG2 file, one (height, width) uint8 array per frame."""
    with open(path, "rb") as f:
        header = f.readline().split()
        w = int(next(t[1:] for t in header if t.startswith(b"W")))
        h = int(next(t[1:] for t in header if t.startswith(b"H")))
        chroma = 2 * ((w + 1) // 2) * ((h + 1) // 2)
        frames = []
        while f.readline().startswith(b"FRAME"):
            frames.append(np.frombuffer(f.read(w * h), np.uint8).reshape(h, w))
            f.read(chroma)
        return frames
