#!/usr/bin/env python3
"""Faces cut by a photo's edge: how many a build still masks.

    cut_faces.py BLAZEFACE OUT PHOTO_OR_FOLDER... [--faces 60] [--seed 7] [--shows 0.3 0.45]
    cut_faces.py BLAZEFACE OUT --faces-from OTHER_OUT/faces.json
    cut_faces.py BLAZEFACE OUT ... --video 2
    cut_faces.py BLAZEFACE OUT ... --face-side 24

Finds the faces of the photos (`blazeface detect --search redact`: what redact masks), keeps
those of 40 pixels or more scoring 0.7 or more, picks --faces of them at random (--seed), and
for each cuts its photo four ways: by the left, right, top and bottom edge, so that --shows of
the face's width (or height) stays in the picture. Every cut photo (OUT/cuts, PNG) is searched
by the same build, and a face counts as masked when 80% of what shows of it lies under a mask
(the ellipse 1.3 times its box, as `redact` draws it). Prints, per edge and share, the faces
masked of those cut; OUT/cuts.json holds each cut and its coverage. Run it with two builds and
the same seed to compare them (the faces are picked from the first build's search of the whole
photos, saved as OUT/faces.json; pass --faces-from to reuse another run's).

With --video SECONDS each cut becomes a still clip of that length (25 frames/s, H.264, made by
ffmpeg: a person standing at the edge of a fixed camera's view; frames of at most 1280x720, cut
from the photo at its cut edge about the face), redacted by the build with
--masks, and a face counts per frame: the face-frames masked, and the clips masked on every frame.

With --face-side PIXELS each photo is first scaled down (Lanczos) so that the face's larger side
is that long: the same faces, smaller.
"""
import argparse
import json
import pathlib
import random
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageOps


def detect(binary, paths):
    out = subprocess.run([binary, "detect", "--search", "redact", "--threads", "2", *map(str, paths)],
                         capture_output=True, text=True)
    return {pathlib.Path(r["image"]).name: r.get("detections", []) for r in map(json.loads, out.stdout.splitlines())}


def coverage(shown, boxes):
    """The share of the pixel rectangle `shown` (x0, y0, x1, y1) under the masks' ellipses."""
    x0, y0, x1, y1 = shown
    xs, ys = np.meshgrid(np.arange(x0, x1) + 0.5, np.arange(y0, y1) + 0.5)
    under = np.zeros(xs.shape, bool)
    for b in boxes:
        cx, cy = b["originX"] + b["width"] / 2, b["originY"] + b["height"] / 2
        ax, ay = b["width"] * 1.3 / 2, b["height"] * 1.3 / 2
        under |= ((xs - cx) / ax) ** 2 + ((ys - cy) / ay) ** 2 <= 1
    return float(under.mean()) if under.size else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("out")
    ap.add_argument("photos", nargs="*")
    ap.add_argument("--faces", type=int, default=60)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--shows", type=float, nargs="+", default=[0.3, 0.45])
    ap.add_argument("--faces-from", help="another run's faces.json: the same faces, cut the same way")
    ap.add_argument("--video", type=float, help="seconds: redact each cut as a still clip of this length instead")
    ap.add_argument("--face-side", type=int, help="pixels: first scale each photo down so that the face's larger side is this long")
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    (out / "cuts").mkdir(parents=True, exist_ok=True)
    if a.faces_from:
        faces = json.load(open(a.faces_from))
    elif not a.photos:
        ap.error("give photos or folders, or --faces-from")
    else:
        photos = []
        for p in map(pathlib.Path, a.photos):
            photos += sorted(q for q in p.iterdir() if q.is_file()) if p.is_dir() else [p]
        found = detect(a.binary, photos)
        faces = []
        for p in photos:
            for d in found.get(p.name, []):
                b = d["boundingBox"]
                if b["width"] >= 40 and d["categories"][0]["score"] >= 0.7:
                    faces.append({"photo": str(p), "box": [b["originX"], b["originY"], b["width"], b["height"]]})
        random.Random(a.seed).shuffle(faces)
        faces = faces[: a.faces]
    json.dump(faces, open(out / "faces.json", "w"))
    cuts = {}
    for i, face in enumerate(faces):
        try:
            im = ImageOps.exif_transpose(Image.open(face["photo"])).convert("RGB")
        except Exception as e:
            print(f"skipped {face['photo']}: {e}", file=sys.stderr)
            continue
        x, y, w, h = face["box"]
        if a.face_side and a.face_side < max(w, h):
            f = a.face_side / max(w, h)
            im = im.resize((max(1, round(im.width * f)), max(1, round(im.height * f))), Image.LANCZOS)
            x, y, w, h = round(x * f), round(y * f), round(w * f), round(h * f)
        W, H = im.size
        for share in a.shows:
            for edge, crop in (("left", (int(x + w * (1 - share)), 0, W, H)), ("right", (0, 0, int(x + w * share), H)),
                               ("top", (0, int(y + h * (1 - share)), W, H)), ("bottom", (0, 0, W, int(y + h * share)))):
                if crop[2] - crop[0] < 64 or crop[3] - crop[1] < 64:
                    continue
                name = f"{i:03d}-{edge}-{int(share * 100)}.png"
                im.crop(crop).save(out / "cuts" / name)
                cx0, cy0, cx1, cy1 = crop
                shown = (max(x, cx0) - cx0, max(y, cy0) - cy0, min(x + w, cx1) - cx0, min(y + h, cy1) - cy0)
                cuts[name] = {"edge": edge, "shows": share, "shown": shown}
    if a.video:
        return videos(a, out, cuts)
    found = detect(a.binary, [out / "cuts" / n for n in cuts])
    table = {}
    for name, cut in cuts.items():
        cut["coverage"] = coverage(cut["shown"], [d["boundingBox"] for d in found.get(name, [])])
        row = table.setdefault((cut["shows"], cut["edge"]), [0, 0])
        row[0] += 1
        row[1] += cut["coverage"] >= 0.8
    json.dump(cuts, open(out / "cuts.json", "w"), indent=1)
    for (share, edge), (n, masked) in sorted(table.items()):
        print(f"{int(share * 100)}% showing, cut by the {edge} edge: {masked} of {n} masked")
    print(f"total: {sum(m for _, m in table.values())} of {sum(n for n, _ in table.values())} masked")


def videos(a, out, cuts):
    """Each cut as a still clip of `a.video` seconds, redacted with --masks; the face per frame."""
    (out / "clips").mkdir(exist_ok=True)
    table = {}
    for name, cut in cuts.items():
        clip = out / "clips" / name.replace(".png", ".mp4")
        masks = clip.with_suffix(".jsonl")
        # A 1280x720 window (or the whole cut, if smaller) at the cut edge, about the face: a video frame.
        im = Image.open(out / "cuts" / name)
        W, H = im.size
        w, h = min(W, 1280) // 2 * 2, min(H, 720) // 2 * 2
        x0, y0, x1, y1 = cut["shown"]
        left = {"left": 0, "right": W - w}.get(cut["edge"], min(max(0, (x0 + x1) // 2 - w // 2), W - w))
        top = {"top": 0, "bottom": H - h}.get(cut["edge"], min(max(0, (y0 + y1) // 2 - h // 2), H - h))
        cut["shown"] = (x0 - left, y0 - top, x1 - left, y1 - top)
        if not clip.exists():
            frame = out / "clips" / name
            im.crop((left, top, left + w, top + h)).save(frame)
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-loop", "1", "-i", str(frame), "-t", str(a.video), "-r", "25",
                            "-c:v", "libx264", "-pix_fmt", "yuv420p", str(clip)], check=True)
            frame.unlink()
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([a.binary, "redact", str(clip), f"{tmp}/out.mp4", "--threads", "2", "--masks", str(masks), "--no-progress"],
                           check=True, capture_output=True)
        frames = [r for r in map(json.loads, open(masks)) if "frame" in r]
        masked = [coverage(cut["shown"], [dict(zip(("originX", "originY", "width", "height"), m["box"])) for m in f["masks"]]) >= 0.8
                  for f in frames]
        cut["frames"], cut["framesMasked"] = len(frames), sum(masked)
        row = table.setdefault((cut["shows"], cut["edge"]), [0, 0, 0, 0])
        row[0] += 1
        row[1] += all(masked)
        row[2] += len(frames)
        row[3] += sum(masked)
    json.dump(cuts, open(out / "clips.json", "w"), indent=1)
    for (share, edge), (n, every, frames, masked) in sorted(table.items()):
        print(f"{int(share * 100)}% showing, cut by the {edge} edge: {every} of {n} clips masked on every frame, {masked} of {frames} face-frames")
    print(f"total: {sum(r[1] for r in table.values())} of {sum(r[0] for r in table.values())} clips masked on every frame, "
          f"{sum(r[3] for r in table.values())} of {sum(r[2] for r in table.values())} face-frames")


if __name__ == "__main__":
    main()
