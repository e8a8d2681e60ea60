#!/usr/bin/env python3
"""Small photos: every face masked, and nothing masked on photos without a face. Runs
`blazeface redact --mode solid` on small pictures (257 to 400 pixels) with ground truth:

- the fixtures multi_face.png (five faces, 60 to 170 px at 640x480) and two_faces_1280x853.png,
  downscaled to a few small sizes;
- composites of 2 to 5 astronaut heads (faces 24 to 90 px) on scikit-image's photos and
  gradients (scenes.py), at 257x257, 370x334 and 320x240;

and on pictures without a face: scikit-image's chelsea (a cat), coffee, immunohistochemistry,
rocket, brick, grass, gravel, hubble_deep_field, camera-free textures, and the fixture
no_face_coffee.png, each at its own size and downscaled to 257 and 370 pixels wide.

A face counts as masked when at least 90% of its box is black (the pictures' pixels are
brought above RGB 24 first, so a solid mask can be told from the picture). A no-face picture
counts as a false positive when any of it is masked.

    /tmp/venv-redaction/bin/python Tools/redaction/small_photos.py [--composites 12] [--seed 1] [-- REDACT OPTIONS]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenes  # noqa: E402

FACE_IN_HEAD = scenes.FACE_IN_HEAD


def lifted(img):
    a = np.asarray(img.convert("RGB")).astype(np.uint16)
    return Image.fromarray((24 + a * (255 - 24) // 255).astype(np.uint8))


def fixture_pictures():
    """(name, PIL image, face boxes) for the fixtures downscaled to small sizes."""
    out = []
    mf = Image.open(os.path.join(scenes.IMAGES, "multi_face.png")).convert("RGB")
    heads = [(170, 8, 150), (120, 330, 10), (95, 500, 250), (75, 235, 330), (60, 40, 15)]
    mf_faces = [(x + FACE_IN_HEAD[0] * w / 95, y + FACE_IN_HEAD[1] * w / 95, w, w) for w, x, y in heads]
    tf = Image.open(os.path.join(scenes.IMAGES, "two_faces_1280x853.png")).convert("RGB")
    tf_faces = [(x + FACE_IN_HEAD[0] * w / 95, y + FACE_IN_HEAD[1] * w / 95, w, w) for w, x, y in ((330, 60, 228), (190, 880, 130))]
    for img, faces, name in ((mf, mf_faces, "multi_face"), (tf, tf_faces, "two_faces")):
        for width in (400, 300, 257):
            s = width / img.width
            small = img.resize((width, round(img.height * s)), Image.LANCZOS)
            out.append((f"{name}@{width}", small, [tuple(v * s for v in f) for f in faces]))
    return out


def composites(rng, n):
    photos = scenes.backgrounds()
    out = []
    sizes = ((257, 257), (370, 334), (320, 240))
    for i in range(n):
        w, h = sizes[i % len(sizes)]
        img = scenes.background(w, h, rng, photos).convert("RGBA")
        want, placed, faces, tries = int(rng.integers(2, 6)), [], [], 0
        while len(faces) < want and tries < 2000:
            tries += 1
            fw = float(np.exp(rng.uniform(np.log(24), np.log(90))))
            sprite, (fx, fy, fww, fh) = scenes.head_sprite(fw, rng)
            if sprite.width >= w or sprite.height >= h:
                continue
            x, y = int(rng.integers(0, w - sprite.width)), int(rng.integers(0, h - sprite.height))
            rect = (x, y, sprite.width, sprite.height)
            if any(rect[0] < p[0] + p[2] and p[0] < rect[0] + rect[2] and rect[1] < p[1] + p[3] and p[1] < rect[1] + rect[3]
                   for p in placed):
                continue
            img.alpha_composite(sprite, (x, y))
            placed.append(rect)
            faces.append((x + fx, y + fy, fww, fh))
        out.append((f"composite{i}@{w}x{h}", img.convert("RGB"), faces))
    return out


def no_face_pictures():
    from skimage import data
    out = []
    names = ("chelsea", "coffee", "immunohistochemistry", "rocket", "brick", "grass", "gravel", "hubble_deep_field",
             "colorwheel", "retina", "moon", "page", "text", "horse", "cell", "coins", "logo", "motorcycle_left")
    pics = []
    for name in names:
        try:
            a = getattr(data, name)()
        except Exception:   # a picture this scikit-image lacks
            continue
        if a.dtype == bool:
            a = a.astype(np.uint8) * 255
        if a.ndim == 2:
            a = np.stack([a] * 3, axis=-1)
        pics.append((name, Image.fromarray(a[..., :3].astype(np.uint8))))
    pics.append(("no_face_coffee", Image.open(os.path.join(scenes.IMAGES, "no_face_coffee.png")).convert("RGB")))
    for name, img in pics:
        out.append((f"{name}@{img.width}", img))
        for width in (370, 257):
            if img.width > width:
                out.append((f"{name}@{width}", img.resize((width, max(16, round(img.height * width / img.width))), Image.LANCZOS)))
    return out


def redact(path, out, extra):
    run = subprocess.run([scenes.BLAZEFACE, "redact", path, out, "--mode", "solid", *extra], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(run.stderr)
    return np.asarray(Image.open(out).convert("RGB")).max(axis=2) < 16


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--composites", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="a folder to keep the pictures in")
    ap.add_argument("redact", nargs="*", help="more options for blazeface redact")
    args = ap.parse_args()
    folder = args.keep or tempfile.mkdtemp()
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    faces_total, masked_total, missed = 0, 0, []
    for name, img, faces in fixture_pictures() + composites(rng, args.composites):
        path, out = os.path.join(folder, f"{name}.png"), os.path.join(folder, f"{name}-redacted.png")
        lifted(img).save(path)
        mask = redact(path, out, args.redact)
        for x, y, w, h in faces:
            x0, y0 = max(0, int(x)), max(0, int(y))
            x1, y1 = min(mask.shape[1], int(np.ceil(x + w))), min(mask.shape[0], int(np.ceil(y + h)))
            share = float(mask[y0:y1, x0:x1].mean())
            faces_total += 1
            masked_total += share >= 0.9
            if share < 0.9:
                missed.append(f"{name} face {w:.0f} px at ({x:.0f}, {y:.0f}): {share:.2f} masked")
    print(f"faces masked (>= 90% of the box): {masked_total}/{faces_total}")
    for m in missed:
        print("  missed:", m)
    fp, area = [], []
    pics = no_face_pictures()
    for name, img in pics:
        path, out = os.path.join(folder, f"noface-{name}.png"), os.path.join(folder, f"noface-{name}-redacted.png")
        lifted(img).save(path)
        mask = redact(path, out, args.redact)
        area.append(float(mask.mean()))
        if mask.any():
            fp.append(f"{name} ({img.width}x{img.height}): {mask.mean():.3f} masked")
    print(f"no-face pictures with a mask: {len(fp)}/{len(pics)}; masked area on average {np.mean(area):.4f}")
    for f in fp:
        print("  false positive:", f)
    return 0 if masked_total == faces_total and not fp else 1


if __name__ == "__main__":
    sys.exit(main())
