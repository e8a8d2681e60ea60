#!/usr/bin/env python3
"""No face escapes in video: runs `blazeface redact --mode solid` on synthetic 1280x720 videos
(videos.py: faces 30 to 160 pixels wide moving over a panning photo, entering and leaving,
crossing, covered by a card for 1 to 4 frames) and measures, for every ground-truth face in
every frame where at least half of its box shows, the share of its visible pixels under the
mask (black). A face-frame counts as masked when that share is at least 0.9; the bar is every
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

    worst, all_ok = [], True
    totals = {"visible": 0, "masked": 0}
    bands = {"half to most (0.5 to 0.8)": [0, 0], "most or all (0.8 to 1)": [0, 0]}
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
                seen = t["seen"]
                share = float((y[y0:y1, x0:x1][seen] < MASKED_LUMA).sum()) / max(1, seen.sum())
                band = bands["most or all (0.8 to 1)" if t["visible"] >= 0.8 else "half to most (0.5 to 0.8)"]
                band[0] += 1
                band[1] += share >= 0.9
                f = per_face.setdefault(t["id"], {"visible": 0, "masked": 0, "misses": [], "width": t["box"][2]})
                f["visible"] += 1
                if share >= 0.9:
                    f["masked"] += 1
                else:
                    f["misses"].append((i, round(share, 2), round(min(t["visible"], 1), 2), [round(v) for v in t["box"]]))
        line = [f"video {v} (seed {seed}): {run.stderr.strip().splitlines()[-1]}"]
        for k, f in sorted(per_face.items()):
            rate = f["masked"] / f["visible"]
            totals["visible"] += f["visible"]
            totals["masked"] += f["masked"]
            all_ok &= rate >= 0.995
            worst.append(rate)
            line.append(f"  face {k} ({f['width']:.0f} px): {f['masked']}/{f['visible']} frames masked"
                        + (f", missed (frame, share): {f['misses'][:8]}" if f["misses"] else ""))
        print("\n".join(line), flush=True)
    print(f"\n{args.videos} videos, {len(worst)} faces, {totals['visible']} visible face-frames: "
          f"{totals['masked'] / totals['visible']:.4f} masked (>= 90% covered); worst face {min(worst):.4f}")
    for name, (n, ok) in bands.items():
        print(f"  faces with {name} of the box visible: {ok}/{n} face-frames masked ({ok / max(1, n):.4f})")
    print("bar (every face >= 90% covered in >= 99.5% of its visible frames):", "met" if all_ok else "NOT met")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
