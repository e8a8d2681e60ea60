#!/usr/bin/env python3
"""Builds the JPEG fixtures and their goldens (issue 5).

Writes Tests/Fixtures/images/jpeg/*.jpg, all encoded by Pillow from the
public-domain fixture PNGs in Tests/Fixtures/images/ (see
Tests/Fixtures/README.md for their sources):

  astronaut_baseline.jpg     astronaut.png, baseline, quality 90, 4:2:0
  astronaut_progressive.jpg  astronaut.png, progressive, quality 85, 4:2:0
  astronaut_422.jpg          astronaut.png, baseline, quality 90, 4:2:2
  astronaut_gray.jpg         astronaut_gray.png as one-channel (L) JPEG
  two_faces_1280x853.jpg     two_faces_1280x853.png, quality 85 (odd height)
  astronaut_exif6.jpg        astronaut.png stored turned 90 degrees
                             counter-clockwise, with EXIF Orientation 6, so
                             that a viewer (and exif_transpose) shows it upright
  orientation_<n>.jpg        a 40x24 crop with EXIF Orientation n, n = 1...8
  astronaut_cmyk.jpg         astronaut.png converted by Pillow to CMYK, quality 90
                             (Adobe's inverted polarity, as Photoshop writes it),
                             with a minimal CMYK ICC profile (header only): the
                             profile a printer's workflow leaves, which must not
                             follow the pixels into an RGB copy

and Tests/Fixtures/goldens/jpeg/:

  pixels.json   for every JPEG: width, height and the FNV-1a 64-bit hash of
                the RGB bytes Pillow decodes (Image.open(f).convert("RGB")),
                and the same after ImageOps.exif_transpose ("upright_*").
  detections.json  MediaPipe 0.10.14's Tasks FaceDetector (short range,
                min_detection_confidence 0.5, suppression 0.3) on those
                Pillow pixels (upright ones for the EXIF file), per JPEG.

Usage: /root/mpenv/bin/python Tools/reference/make_jpeg_fixtures.py [--only NAME...]

`--only` writes just the named files and merges their entries into pixels.json (none of
them may need MediaPipe's detections): a fixture added later, without re-encoding the
others with another Pillow.
"""

import json
import os
import sys

import numpy as np
from PIL import Image, ImageOps

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
IMAGES = os.path.join(REPO, "Tests", "Fixtures", "images")
OUT_IMAGES = os.path.join(IMAGES, "jpeg")
OUT_GOLDENS = os.path.join(REPO, "Tests", "Fixtures", "goldens", "jpeg")

# Pillow's subsampling codes: 0 = 4:4:4, 1 = 4:2:2, 2 = 4:2:0.
SAVES = [
    ("astronaut_baseline.jpg", "astronaut.png", dict(quality=90, subsampling=2)),
    ("astronaut_progressive.jpg", "astronaut.png", dict(quality=85, subsampling=2, progressive=True)),
    ("astronaut_422.jpg", "astronaut.png", dict(quality=90, subsampling=1)),
    ("astronaut_gray.jpg", "astronaut_gray.png", dict(quality=90)),
    ("two_faces_1280x853.jpg", "two_faces_1280x853.png", dict(quality=85, subsampling=2)),
    ("astronaut_cmyk.jpg", "astronaut.png", dict(quality=90)),
]
DETECT = ["astronaut_baseline.jpg", "astronaut_progressive.jpg", "astronaut_422.jpg",
          "astronaut_gray.jpg", "two_faces_1280x853.jpg", "astronaut_exif6.jpg"]


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def exif_with_orientation(n):
    exif = Image.Exif()
    exif[0x0112] = n
    return exif.tobytes()


def cmyk_icc_profile():
    """A 132-byte ICC profile of a CMYK output device: the header and no tags."""
    header = bytearray(128)
    header[0:4] = (132).to_bytes(4, "big")
    header[8:12] = bytes([4, 0x20, 0, 0])          # version 4.2
    header[12:16], header[16:20], header[20:24] = b"prtr", b"CMYK", b"Lab "
    header[36:40] = b"acsp"
    return bytes(header) + (0).to_bytes(4, "big")


def save(name, source, options):
    with Image.open(os.path.join(IMAGES, source)) as im:
        if "cmyk" in name:
            im.convert("RGB").convert("CMYK").save(os.path.join(OUT_IMAGES, name), "JPEG", icc_profile=cmyk_icc_profile(), **options)
        else:
            im.convert("L" if "gray" in name else "RGB").save(os.path.join(OUT_IMAGES, name), "JPEG", **options)


def main():
    only = sys.argv[sys.argv.index("--only") + 1:] if "--only" in sys.argv else None
    if only is not None:
        if any(name in DETECT for name in only):
            sys.exit("--only: these need MediaPipe's detections; run without --only")
        pixels = json.load(open(os.path.join(OUT_GOLDENS, "pixels.json")))
        for name, source, options in SAVES:
            if name in only:
                save(name, source, options)
                pixels[name] = pillow_pixels(name)
        with open(os.path.join(OUT_GOLDENS, "pixels.json"), "w") as f:
            json.dump(pixels, f, indent=1, sort_keys=True)
        return
    import make_goldens  # tasks_detect, the pinned model and its hash (MediaPipe)
    with open(make_goldens.MODEL, "rb") as f:
        import hashlib
        if hashlib.sha256(f.read()).hexdigest() != make_goldens.MODEL_SHA256:
            sys.exit("unexpected model file")
    os.makedirs(OUT_IMAGES, exist_ok=True)
    os.makedirs(OUT_GOLDENS, exist_ok=True)
    written = []
    for name, source, options in SAVES:
        save(name, source, options)
        written.append(name)
    with Image.open(os.path.join(IMAGES, "astronaut.png")) as im:
        lying = im.convert("RGB").transpose(Image.Transpose.ROTATE_90)  # counter-clockwise
        lying.save(os.path.join(OUT_IMAGES, "astronaut_exif6.jpg"), "JPEG", quality=90,
                   exif=exif_with_orientation(6))
        written.append("astronaut_exif6.jpg")
        crop = im.convert("RGB").crop((190, 100, 230, 124))   # 40x24, around the eyes
        for n in range(1, 9):
            name = "orientation_%d.jpg" % n
            crop.save(os.path.join(OUT_IMAGES, name), "JPEG", quality=95, subsampling=0,
                      exif=exif_with_orientation(n))
            written.append(name)

    pixels, detections = {}, {}
    for name in sorted(written):
        pixels[name] = pillow_pixels(name)
        if name in DETECT:
            with Image.open(os.path.join(OUT_IMAGES, name)) as im:
                upright = np.ascontiguousarray(np.asarray(ImageOps.exif_transpose(im).convert("RGB"), np.uint8))
            detections[name] = {"width": upright.shape[1], "height": upright.shape[0],
                                "tasks": make_goldens.tasks_detect(upright, 0.5)}
        print(name, pixels[name]["width"], pixels[name]["height"], len(detections.get(name, {}).get("tasks", [])))
    with open(os.path.join(OUT_GOLDENS, "pixels.json"), "w") as f:
        json.dump(pixels, f, indent=1, sort_keys=True)
    with open(os.path.join(OUT_GOLDENS, "detections.json"), "w") as f:
        json.dump({"model": "face_detection_short_range.tflite", "mediapipe": "0.10.14",
                   "min_detection_confidence": 0.5, "min_suppression_threshold": 0.3,
                   "pixels": "Pillow Image.open(f).convert('RGB'), after ImageOps.exif_transpose",
                   "images": detections}, f, indent=1, sort_keys=True)


def pillow_pixels(name):
    """Pillow's size and FNV-1a hash of one file's RGB pixels, as stored and upright."""
    with Image.open(os.path.join(OUT_IMAGES, name)) as im:
        im.load()
        rgb = np.ascontiguousarray(np.asarray(im.convert("RGB"), np.uint8))
        upright = np.ascontiguousarray(np.asarray(ImageOps.exif_transpose(im).convert("RGB"), np.uint8))
    return {"mode": im.mode, "width": rgb.shape[1], "height": rgb.shape[0], "fnv1a64": fnv1a64(rgb.tobytes()),
            "upright_width": upright.shape[1], "upright_height": upright.shape[0],
            "upright_fnv1a64": fnv1a64(upright.tobytes())}


if __name__ == "__main__":
    main()
