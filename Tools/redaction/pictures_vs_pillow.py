#!/usr/bin/env python3
"""Every TIFF, BMP and JPEG of a folder (Pillow's own test images: python-pillow/Pillow's
Tests/images, fetched into MIRROR) read by `blazeface redact` with detection off, the pixels
compared with Pillow's (its orientation applied, as RGB), so that a picture FFmpeg's decoder
reads wrong shows up as a low PSNR instead of a face left unmasked in a wrong picture.

    python3 Tools/redaction/pictures_vs_pillow.py BLAZEFACE FOLDER [OUT.json] [--ext .jpg,.jpeg]

`--ext` picks the file types (default .tif,.tiff,.bmp,.dib).

Each file: refused (the tool's reason), read (PSNR against Pillow in dB; "Pillow refuses" when
Pillow cannot read it either), or broke (a crash, a hang, or exit 0 with no picture). A read
file under 30 dB is WRONG. Needs Pillow and numpy.
"""
import json, math, pathlib, subprocess, sys, tempfile

import numpy as np
from PIL import Image, ImageOps


def psnr(a, b):
    if a.shape != b.shape:
        return None
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)


def pillow_rgb(path):
    try:
        with Image.open(path) as im:
            im.load()
            im = ImageOps.exif_transpose(im)
            if im.mode.startswith("I;16"):   # Pillow's convert("RGB") clips 16-bit gray at 255; scale it
                gray = np.rint(np.asarray(im).astype(np.float64) / 257).astype(np.uint8)
                return np.repeat(gray[:, :, None], 3, axis=2)
            return np.asarray(im.convert("RGB"))
    except Exception as error:   # Pillow's own test images include files it refuses
        return f"Pillow refuses: {type(error).__name__}"


def main():
    args = sys.argv[1:]
    exts = (".tif", ".tiff", ".bmp", ".dib")
    if "--ext" in args:
        i = args.index("--ext")
        exts, args = tuple(args[i + 1].lower().split(",")), args[:i] + args[i + 2:]
    tool, folder = args[0], pathlib.Path(args[1])
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in exts)
    rows, work = [], pathlib.Path(tempfile.mkdtemp(prefix="pictures-vs-pillow-"))
    for n, path in enumerate(files):
        out = work / f"{n}.png"
        try:
            r = subprocess.run([tool, "redact", str(path), str(out), "--no-centerface", "--min-detection-confidence", "1", "--upright-only", "--no-tiles",
                                "--no-progress"],
                               capture_output=True, text=True, timeout=120)
            status, stderr = r.returncode, r.stderr.strip()
        except subprocess.TimeoutExpired:
            status, stderr = "hang", ""
        row = {"file": str(path.relative_to(folder)), "status": status}
        reference = pillow_rgb(path)
        if status == 0 and out.exists():
            ours = np.asarray(Image.open(out).convert("RGB"))
            row["psnr"] = psnr(ours, reference) if isinstance(reference, np.ndarray) else reference
            if isinstance(reference, np.ndarray) and ours.shape != reference.shape:
                row["psnr"] = f"size {ours.shape[1]}x{ours.shape[0]}, Pillow's {reference.shape[1]}x{reference.shape[0]}"
            out.unlink()
        elif status == 0 or status == "hang" or (isinstance(status, int) and (status < 0 or status > 128)):
            row["broke"] = True
        else:
            row["reason"] = stderr.splitlines()[-1][:200] if stderr else ""
            row["pillow"] = "reads it" if isinstance(reference, np.ndarray) else reference
        rows.append(row)
    read = [r for r in rows if "psnr" in r]
    wrong = [r for r in read if isinstance(r["psnr"], str) and r["psnr"].startswith("size") or isinstance(r["psnr"], float) and r["psnr"] < 30]
    for r in rows:
        print(json.dumps(r))
    print(f"{len(rows)} files: {len(read)} read ({len(wrong)} WRONG, under 30 dB or another size), "
          f"{sum('reason' in r for r in rows)} refused, {sum(bool(r.get('broke')) for r in rows)} broke")
    if len(args) > 2:
        pathlib.Path(args[2]).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
