#!/usr/bin/env python3
"""Writes a synthetic test video (YUV4MPEG2, C420jpeg, BT.601 limited range) made only of the
fixture photos in Tests/Fixtures/images: three face crops moving over the coffee photo: one
walks across, two cross each other, one is covered by a card for a few frames, one leaves
and comes back. Deterministic (no randomness), so the README's figures can be reproduced.

    /root/mpenv/bin/python Tools/video/make_demo_video.py /tmp/demo.y4m [--frames 90] [--size 320x240]
"""
import argparse
import os

import numpy as np
from PIL import Image

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
IMAGES = os.path.join(ROOT, "Tests", "Fixtures", "images")

# (file, centre x, centre y, side): 1.5x the box MediaPipe finds around each face.
FACES = {
    "astronaut": ("astronaut.png", 224.5, 129.5, 142),
    "left": ("two_faces_1280x853.png", 334, 529, 537),
    "right": ("two_faces_1280x853.png", 1050, 304, 312),
}


def sprite(name, size):
    file, cx, cy, side = FACES[name]
    img = Image.open(os.path.join(IMAGES, file)).convert("RGB")
    box = (int(cx - side / 2), int(cy - side / 2), int(cx + side / 2), int(cy + side / 2))
    return img.crop(box).resize((size, size), Image.BILINEAR)


def lerp(a, b, t):
    return a + (b - a) * min(max(t, 0.0), 1.0)


def placements(i, n, w, h, s):
    """Where each face's sprite goes in frame i of n: (name, x, y, covered), None when away."""
    t = i / (n - 1)
    out = []
    # The astronaut crosses the right face mid-way (the hard case).
    out.append(("astronaut", lerp(-0.1 * s, w - 0.9 * s, t), 0.08 * h, False))
    out.append(("right", lerp(w - 0.9 * s, -0.1 * s, t), 0.30 * h, False))
    # The left face: covered by a card for 3 frames (the gap allowed) around a third of the way, away from
    # 55% to 70% of the video (longer than the 3-frame gap), then back.
    if not (0.55 <= t < 0.70):
        covered = int(0.30 * n) <= i < int(0.30 * n) + 3
        out.append(("left", lerp(0.05 * w, 0.25 * w, t), h - 1.05 * s, covered))
    return out


def rgb_to_yuv420(rgb):
    f = rgb.astype(np.float64) / 255.0
    r, g, b = f[..., 0], f[..., 1], f[..., 2]
    y = 16 + 65.481 * r + 128.553 * g + 24.966 * b
    u = 128 - 37.797 * r - 74.203 * g + 112.0 * b
    v = 128 + 112.0 * r - 93.786 * g - 18.214 * b
    hh, ww = y.shape
    def sub(c):
        c = np.pad(c, ((0, hh % 2), (0, ww % 2)), mode="edge")
        return (c[0::2, 0::2] + c[1::2, 0::2] + c[0::2, 1::2] + c[1::2, 1::2]) / 4
    q = lambda c: np.clip(np.rint(c), 0, 255).astype(np.uint8)
    return q(y), q(sub(u)), q(sub(v))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--frames", type=int, default=90)
    ap.add_argument("--size", default="320x240")
    ap.add_argument("--png-folder", help="also write the frames as numbered PNGs here")
    args = ap.parse_args()
    w, h = map(int, args.size.split("x"))
    s = int(0.42 * h)
    background = Image.open(os.path.join(IMAGES, "no_face_coffee.png")).convert("RGB").resize((w, h), Image.BILINEAR)
    sprites = {name: sprite(name, s) for name in FACES}
    if args.png_folder:
        os.makedirs(args.png_folder, exist_ok=True)
    with open(args.out, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F30:1 Ip A1:1 C420jpeg\n".encode())
        for i in range(args.frames):
            frame = background.copy()
            for name, x, y, covered in placements(i, args.frames, w, h, s):
                frame.paste(sprites[name], (int(round(x)), int(round(y))))
                if covered:
                    frame.paste((40, 40, 40), (int(round(x)) - 2, int(round(y)) - 2, int(round(x)) + s + 2, int(round(y)) + s + 2))
            if args.png_folder:
                frame.save(os.path.join(args.png_folder, f"frame_{i:04d}.png"))
            y, u, v = rgb_to_yuv420(np.asarray(frame))
            f.write(b"FRAME\n")
            f.write(y.tobytes()); f.write(u.tobytes()); f.write(v.tobytes())


if __name__ == "__main__":
    main()
