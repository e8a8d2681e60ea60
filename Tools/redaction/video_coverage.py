#!/usr/bin/env python3
"""No face escapes in video: runs `blazeface redact --mode solid` on synthetic 1280x720 videos
(videos.py: faces 30 to 160 pixels wide moving over a panning photo, entering and leaving,
crossing, covered by a card for 1 to 4 frames) and measures, for every ground-truth face in
every frame where at least half of its box shows, the share of its visible pixels under the
mask (black), and the share of its whole box (the hidden part is often under the mask of the
face in front). A face-frame counts as masked when that share is at least 0.9; the bar is every
face masked in at least 99.5% of the frames where it is visible. Face-frames are also counted in
two bands: half to most of the box visible (another face or the frame's edge hides the rest),
and most or all of it.

    /tmp/redact-env/bin/python Tools/redaction/video_coverage.py [--videos 4] [--seed 1] [-- REDACT OPTIONS]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenes  # noqa: E402
import videos  # noqa: E402

MASKED_LUMA = 26   # a solid mask is luma 16; the videos' pixels are at least 36


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--videos", type=int, default=4)
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="a folder to keep the videos in")
    ap.add_argument("redact", nargs="*", help="more options for blazeface redact")
    args = ap.parse_args()
    folder = args.keep or tempfile.mkdtemp()
    os.makedirs(folder, exist_ok=True)

    # Two readings of "covered": the share of the face's visible pixels under the mask (strict:
    # a half-hidden face must be masked where it shows), and the share of its whole box (what a
    # mask over the face in front also covers).
    measures = ("visible pixels", "whole box")
    faces_total, ok = {m: [] for m in measures}, {m: True for m in measures}
    bands = {(m, b): [0, 0] for m in measures for b in ("0.5 to 0.8", "0.8 to 1")}
    for v in range(args.videos):
        seed = args.seed * 1000 + v
        src, dst = os.path.join(folder, f"scene{v}.y4m"), os.path.join(folder, f"scene{v}-redacted.y4m")
        writer = scenes.Y4MWriter(src, 1280, 720)
        truth = []
        for rgb, t in videos.scene(seed, frames=args.frames):
            writer.write(rgb)
            truth.append(t)
        writer.close()
        run = subprocess.run([scenes.BLAZEFACE, "redact", src, dst, "--mode", "solid", *args.redact],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stderr)
            return 2
        luma = scenes.read_y4m_luma(dst)
        assert len(luma) == len(truth), (len(luma), len(truth))
        per_face = {}
        for i, (y, faces) in enumerate(zip(luma, truth)):
            for t in faces:
                if t["visible"] < 0.5:
                    continue
                x0, y0, x1, y1 = t["region"]
                masked = y[y0:y1, x0:x1] < MASKED_LUMA
                shares = {"visible pixels": float(masked[t["seen"]].sum()) / max(1, t["seen"].sum()),
                          "whole box": float(masked.mean()) if masked.size else 0.0}
                band = "0.8 to 1" if t["visible"] >= 0.8 else "0.5 to 0.8"
                f = per_face.setdefault(t["id"], {"visible": 0, "width": t["box"][2], **{m: [] for m in measures}})
                f["visible"] += 1
                for m in measures:
                    bands[(m, band)][0] += 1
                    bands[(m, band)][1] += shares[m] >= 0.9
                    if shares[m] < 0.9:
                        f[m].append((i, round(shares[m], 2), round(min(t["visible"], 1), 2)))
        line = [f"video {v} (seed {seed}): {run.stderr.strip().splitlines()[-1]}"]
        for k, f in sorted(per_face.items()):
            for m in measures:
                rate = 1 - len(f[m]) / f["visible"]
                faces_total[m].append((f["visible"], f["visible"] - len(f[m])))
                ok[m] &= rate >= 0.995
            misses = f["visible pixels"]
            line.append(f"  face {k} ({f['width']:.0f} px): visible in {f['visible']} frames; "
                        f"under 90% covered: {len(misses)} by visible pixels, {len(f['whole box'])} by whole box"
                        + (f"; (frame, share, visible): {misses[:6]}" if misses else ""))
        print("\n".join(line), flush=True)
    print(f"\n{args.videos} videos, {len(faces_total[measures[0]])} faces, "
          f"{sum(n for n, _ in faces_total[measures[0]])} visible face-frames (at least half the box showing)")
    for m in measures:
        n, good = sum(a for a, _ in faces_total[m]), sum(b for _, b in faces_total[m])
        worst = min(b / a for a, b in faces_total[m])
        under = sum(1 for a, b in faces_total[m] if b / a < 0.995)
        print(f"covered by {m}: {good}/{n} face-frames at least 90% covered ({good / n:.4f}); worst face {worst:.4f}, "
              f"{under} face(s) under 99.5%; "
              f"visible 0.5 to 0.8: {bands[(m, '0.5 to 0.8')][1]}/{bands[(m, '0.5 to 0.8')][0]}, "
              f"0.8 to 1: {bands[(m, '0.8 to 1')][1]}/{bands[(m, '0.8 to 1')][0]}; "
              f"bar (every face in >= 99.5% of its frames): {'met' if ok[m] else 'NOT met'}")
    return 0 if all(ok.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
