#!/usr/bin/env python3
"""Builds the face-detection fixture PNGs in Tests/Fixtures/images/.

Every fixture is derived deterministically from images bundled with
scikit-image (see Tests/Fixtures/README.md for sources and licences):

  * astronaut.png  - NASA portrait of Eileen Collins, public domain.
  * coffee.png     - coffee cup by Rachel Michetti, CC0.
  * rocket.jpg     - DSCOVR / Falcon 9 launch by SpaceX, public domain.

Only Pillow and numpy are used for pixel work; all resampling is done with
Pillow's LANCZOS filter, so the output is byte-identical for the pinned
versions in requirements.txt.  Re-running the script overwrites the PNGs.

Usage:  .venv-reference/bin/python Tools/reference/make_fixtures.py
"""

import os
import sys

import numpy as np
from PIL import Image

import skimage

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_DIR = os.path.join(REPO, "Tests", "Fixtures", "images")
SKDATA = os.path.join(os.path.dirname(skimage.__file__), "data")

# Head-and-shoulders box of the astronaut (left, top, right, bottom) in the
# 512x512 original.  MediaPipe's face box there is about x 177..272,
# y 82..177, i.e. the face is ~95 px wide, ~0.6 of this crop's width.
HEAD_BOX = (147, 40, 303, 220)
FACE_FRACTION = 95.0 / (HEAD_BOX[2] - HEAD_BOX[0])


def load(name, mode="RGB"):
    im = Image.open(os.path.join(SKDATA, name))
    im.load()
    return im.convert(mode)


def gradient(width, height, top, bottom, wobble=0):
    """Vertical RGB gradient from colour `top` to `bottom`, with an optional
    gentle deterministic horizontal sine modulation (amplitude `wobble`)."""
    t = np.linspace(0.0, 1.0, height, dtype=np.float64)[:, None, None]
    top = np.asarray(top, np.float64)[None, None, :]
    bottom = np.asarray(bottom, np.float64)[None, None, :]
    img = top * (1.0 - t) + bottom * t
    img = np.broadcast_to(img, (height, width, 3)).copy()
    if wobble:
        x = np.arange(width, dtype=np.float64)[None, :, None]
        y = np.arange(height, dtype=np.float64)[:, None, None]
        img += wobble * np.sin(x / 37.0 + y / 53.0)
    return Image.fromarray(np.clip(np.rint(img), 0, 255).astype(np.uint8), "RGB")


def head(face_px):
    """The astronaut's head-and-shoulders crop, resized so that the face is
    roughly `face_px` pixels wide."""
    crop = load("astronaut.png").crop(HEAD_BOX)
    scale = face_px / 95.0
    w = int(round(crop.width * scale))
    h = int(round(crop.height * scale))
    return crop.resize((w, h), Image.LANCZOS)


def paste(canvas, im, x, y):
    canvas.paste(im, (x, y))


def save(im, name):
    path = os.path.join(OUT_DIR, name)
    im.save(path, format="PNG", optimize=True, compress_level=9)
    print("wrote %-28s %-5s %4dx%-4d %7d bytes"
          % (os.path.relpath(path, REPO), im.mode, im.width, im.height,
             os.path.getsize(path)))


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    astro = load("astronaut.png")

    # 1. The original astronaut, unchanged (512x512 RGB).
    save(astro, "astronaut.png")

    # 2. Multi-face composite on a 640x480 light gradient background.
    canvas = gradient(640, 480, (205, 215, 230), (150, 160, 120), wobble=6)
    for face_px, x, y in [
        (170, 8, 150),    # big, lower left
        (120, 330, 10),   # upper middle-right
        (95, 500, 250),   # right
        (75, 235, 330),   # small, bottom middle
        (60, 40, 15),     # smallest, top left
    ]:
        paste(canvas, head(face_px), x, y)
    save(canvas, "multi_face.png")

    # 3. Face-free: a 320x240 crop of the coffee photo (CC0).
    save(load("coffee.png").crop((150, 80, 470, 320)), "no_face_coffee.png")

    # 4. Grayscale astronaut: 8-bit gray PNG (colour type 0), Pillow "L"
    #    conversion (ITU-R 601-2 luma: L = R*299/1000 + G*587/1000 + B*114/1000).
    save(astro.convert("L"), "astronaut_gray.png")

    # 5. Tiny: astronaut resized to 48x48.
    save(astro.resize((48, 48), Image.LANCZOS), "astronaut_tiny48.png")

    # 6. Very wide 1200x300: head crop filling the height, left of centre.
    wide = gradient(1200, 300, (180, 200, 225), (230, 220, 200), wobble=5)
    h = head(300 * FACE_FRACTION * (HEAD_BOX[2] - HEAD_BOX[0])
             / (HEAD_BOX[3] - HEAD_BOX[1]))
    paste(wide, h, 330, 0)
    save(wide, "wide_1200x300.png")

    # 7. Very tall 300x1000: head crop filling the width, in the upper part.
    tall = gradient(300, 1000, (225, 215, 190), (120, 140, 170), wobble=5)
    h = head(300 * FACE_FRACTION)
    paste(tall, h, 0, 260)
    save(tall, "tall_300x1000.png")

    # 8. RGBA astronaut: original RGB plus an alpha channel that varies
    #    diagonally from 16 (top-left) to 255 (bottom-right).  RGB values are
    #    untouched (not premultiplied), so dropping alpha gives back exactly
    #    astronaut.png.
    yy, xx = np.mgrid[0:512, 0:512]
    alpha = np.rint(16 + (255 - 16) * (xx + yy) / (2 * 511.0)).astype(np.uint8)
    rgba = np.dstack([np.asarray(astro), alpha])
    save(Image.fromarray(rgba, "RGBA"), "astronaut_rgba.png")

    # 9. Face cut by the top-left corner (320x240): the detection box starts
    #    outside the image (negative relative xmin/ymin), which exercises the
    #    clamping of pixel boxes.
    corner = gradient(320, 240, (170, 190, 170), (220, 200, 210), wobble=4)
    paste(corner, head(130), -60, -60)
    save(corner, "face_off_edge_320x240.png")

    # 10. 1280x853 photo-like composite: rocket launch photo (public domain)
    #    upscaled 2x and cropped to 1280x853, with two astronaut heads of
    #    different size.
    rocket = load("rocket.jpg").resize((1280, 854), Image.LANCZOS)
    photo = rocket.crop((0, 0, 1280, 853))
    paste(photo, head(330), 60, 228)
    paste(photo, head(190), 880, 130)
    save(photo, "two_faces_1280x853.png")

    # 11-12. Odd sizes whose letterbox matrix depends on the last bit of
    #    OpenCV's LU solve (getPerspectiveTransform): with these sizes a solver
    #    that multiplies by the pivot's reciprocal instead of dividing gives a
    #    different input tensor.  Found by check_agreement.py.
    save(astro.resize((223, 231), Image.LANCZOS), "astronaut_223x231.png")
    save(head(60).resize((71, 139), Image.LANCZOS), "head_71x139.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
