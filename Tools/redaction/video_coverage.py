#!/usr/bin/env python3
"""No face escapes in video: runs `blazeface redact --mode solid` on synthetic 1280x720 videos
(videos.py: faces 30 to 160 pixels wide moving over a panning photo, entering and leaving,
crossing, covered by a card for 1 to 4 frames) and measures, for every ground-truth face in
every frame where at least half of its box shows, the share of its visible pixels under the
mask (black), and the share of its whole box (the hidden part is often under the mask of the
face in front). A face-frame counts as masked when that share is at least 0.9; the bar is every
face masked in at least 99.5% of the frames where it is visible. Face-frames are also counted in
two bands: half to most of the box visible (another face or the frame's edge hides the rest),
and most or all of it. A third reading ignores what hides a face: in every frame where at least
half of its box is inside the picture, the share of that part under the mask; a fourth takes the
frames where a face comes in or goes out (10 to 50% of its box inside the picture, nothing else
hiding it), and the share of the part inside under the mask.

    /tmp/redact-env/bin/python Tools/redaction/video_coverage.py [--videos 4] [--seed 1] [--order random]
        [--frames 60] [--through] [--keep FOLDER] [-- REDACT OPTIONS]
"""
import argparse
import os
import pickle
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
    ap.add_argument("--order", choices=("size", "random"), default="size",
                    help="which face is drawn over which: nearer faces larger (default), or random")
    ap.add_argument("--through", action="store_true", help="every face comes in through one edge and goes out through the opposite one")
    ap.add_argument("--keep", help="a folder to keep the videos (and their ground truth) in, and to take them from when run again")
    ap.add_argument("--label", default="redacted", help="the redacted videos' names end in this (runs side by side)")
    ap.add_argument("--face-free", type=int, default=4,
                    help="face-free clips (videos.face_free_scene: pans and zooms over photos without a face, a hand "
                         "in every other one) whose masked area is reported beside the coverage (0: none)")
    ap.add_argument("redact", nargs="*", help="more options for blazeface redact")
    args = ap.parse_args()
    folder = args.keep or tempfile.mkdtemp()
    os.makedirs(folder, exist_ok=True)

    # Three readings of "covered": the share of the face's visible pixels under the mask (strict:
    # a half-hidden face must be masked where it shows) and the share of its whole box (what a
    # mask over the face in front also covers), in the frames where at least half of the box
    # shows; and the share of its box inside the picture in every frame where at least half of
    # the box is inside the picture, whatever hides it (a face behind another or under the card
    # counts: ground truth that knows only where faces are); and, for a face coming in or going
    # out (10 to 50% of its box inside the picture, nothing else hiding it), the share of the
    # part inside under the mask.
    measures = ("visible pixels", "whole box", "box in picture", "partly out")
    faces_total, ok = {m: [] for m in measures}, {m: True for m in measures}
    bands = {(m, b): [0, 0] for m in measures for b in ("0.5 to 0.8", "0.8 to 1")}
    area = [0.0, 0.0, 0]   # masked share of the picture, faces' boxes' share, frames
    last_frames = [0, 0]   # faces visible on a video's last frame, and those of them masked (>= 90% of visible pixels)
    for v in range(args.videos):
        seed = args.seed * 1000 + v
        name = f"scene{seed}-{args.order}-{args.frames}" + ("-through" if args.through else "")
        src, dst = os.path.join(folder, f"{name}.y4m"), os.path.join(folder, f"{name}-{args.label}.y4m")
        cached = os.path.join(folder, f"{name}.truth.pickle")
        if os.path.exists(cached) and os.path.exists(src):   # a kept folder's video and truth, made before
            with open(cached, "rb") as f:
                truth = pickle.load(f)
        else:
            writer = scenes.Y4MWriter(src, 1280, 720)
            truth = []
            for rgb, t in videos.scene(seed, frames=args.frames, order=args.order, through=args.through):
                writer.write(rgb)
                truth.append(t)
            writer.close()
            with open(cached, "wb") as f:
                pickle.dump(truth, f)
        run = subprocess.run([scenes.BLAZEFACE, "redact", src, dst, "--mode", "solid", *args.redact],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stderr)
            return 2
        luma = scenes.read_y4m_luma(dst)
        assert len(luma) == len(truth), (len(luma), len(truth))
        for y, faces in zip(luma, truth):   # how much of the picture is masked: the price of fail-secure
            area[0] += float((y < MASKED_LUMA).mean())
            boxes = np.zeros(y.shape, bool)
            for t in faces:
                x0, y0, x1, y1 = t["region"]
                boxes[y0:y1, x0:x1] = True
            area[1] += float(boxes.mean())
            area[2] += 1
        per_face = {}   # id: {"width", and per measure: [frames counted, [(frame, share, visible) under 0.9]]}
        for i, (y, faces) in enumerate(zip(luma, truth)):
            for t in faces:
                x0, y0, x1, y1 = t["region"]
                masked = y[y0:y1, x0:x1] < MASKED_LUMA
                box_share = float(masked.mean()) if masked.size else 0.0
                in_picture = (x1 - x0) * (y1 - y0) / (t["box"][2] * t["box"][3])
                shares = {"box in picture": box_share if in_picture >= 0.5 else None}
                if 0.1 <= in_picture < 0.5 and t["seen"].sum() >= 0.9 * masked.size:
                    shares["partly out"] = float(masked[t["seen"]].mean())
                if t["visible"] >= 0.5:
                    shares["visible pixels"] = float(masked[t["seen"]].sum()) / max(1, t["seen"].sum())
                    shares["whole box"] = box_share
                band = "0.8 to 1" if t["visible"] >= 0.8 else "0.5 to 0.8"
                f = per_face.setdefault(t["id"], {"width": t["box"][2], **{m: [0, []] for m in measures}})
                for m, share in shares.items():
                    if share is None:
                        continue
                    f[m][0] += 1
                    if m in ("visible pixels", "whole box"):
                        bands[(m, band)][0] += 1
                        bands[(m, band)][1] += share >= 0.9
                    if share < 0.9:
                        f[m][1].append((i, round(share, 2), round(min(t["visible"], 1), 2)))
        line = [f"video {v} (seed {seed}): {run.stderr.strip().splitlines()[-1]}"]
        # The last frame, on its own: a face masked up to the end must be masked on it too.
        last = []
        for t in truth[-1]:
            if t["visible"] >= 0.5:
                x0, y0, x1, y1 = t["region"]
                share = float((luma[-1][y0:y1, x0:x1] < MASKED_LUMA)[t["seen"]].mean())
                last_frames[0] += 1
                last_frames[1] += share >= 0.9
                last.append(f"face {t['id']} {share:.2f}")
        line.append(f"  last frame ({len(luma) - 1}): " + (", ".join(last) if last else "no face visible"))
        for k, f in sorted(per_face.items()):
            for m in measures:
                n, misses = f[m]
                if n:
                    faces_total[m].append((n, n - len(misses)))
                    ok[m] &= 1 - len(misses) / n >= 0.995
            misses = f["visible pixels"][1]
            line.append(f"  face {k} ({f['width']:.0f} px): visible in {f['visible pixels'][0]} frames, "
                        f"in the picture in {f['box in picture'][0]}; under 90% covered: "
                        + ", ".join(f"{len(f[m][1])} by {m}" for m in measures)
                        + (f"; by visible pixels (frame, share, visible): {misses[:6]}" if misses else "")
                        + (f"; by box in picture: {f['box in picture'][1][:6]}" if f["box in picture"][1] else ""))
        print("\n".join(line), flush=True)
    print(f"\n{args.videos} videos, {len(faces_total[measures[2]])} faces, "
          f"{sum(n for n, _ in faces_total[measures[0]])} visible face-frames (at least half the box showing), "
          f"{sum(n for n, _ in faces_total[measures[2]])} in the picture (at least half the box inside it)")
    print(f"masked: {area[0] / area[2]:.3f} of the picture on average (the faces' boxes: {area[1] / area[2]:.3f})")
    print(f"last frames: {last_frames[1]}/{last_frames[0]} visible faces masked (>= 90% of visible pixels)")
    if args.face_free:
        free = face_free_area(args, folder)
        print(f"face-free clips: masked {np.mean(free):.4f} of the picture on average over {len(free)} clips "
              f"(per clip: {', '.join(f'{a:.4f}' for a in free)}; bar <= 0.05: {'met' if np.mean(free) <= 0.05 else 'NOT met'})")
        ok["face-free"] = bool(np.mean(free) <= 0.05)
    for m in measures:
        if not faces_total[m]:
            print(f"covered by {m}: no face-frames")
            continue
        n, good = sum(a for a, _ in faces_total[m]), sum(b for _, b in faces_total[m])
        worst = min(b / a for a, b in faces_total[m])
        under = sum(1 for a, b in faces_total[m] if b / a < 0.995)
        print(f"covered by {m}: {good}/{n} face-frames at least 90% covered ({good / n:.4f}); worst face {worst:.4f}, "
              f"{under} face(s) under 99.5%; "
              + (f"visible 0.5 to 0.8: {bands[(m, '0.5 to 0.8')][1]}/{bands[(m, '0.5 to 0.8')][0]}, "
                 f"0.8 to 1: {bands[(m, '0.8 to 1')][1]}/{bands[(m, '0.8 to 1')][0]}; " if m in ("visible pixels", "whole box") else "")
              + f"bar (every face in >= 99.5% of its frames): {'met' if ok[m] else 'NOT met'}")
    return 0 if all(ok.values()) else 1


def face_free_area(args, folder):
    """The masked share of the picture, averaged over the frames, of each face-free clip."""
    out = []
    for v in range(args.face_free):
        seed = args.seed * 1000 + v
        name = f"free{seed}-{args.frames}"
        src, dst = os.path.join(folder, f"{name}.y4m"), os.path.join(folder, f"{name}-{args.label}.y4m")
        if not os.path.exists(src):
            writer = scenes.Y4MWriter(src + ".part", 1280, 720)
            for rgb in videos.face_free_scene(seed, frames=args.frames):
                writer.write(rgb)
            writer.close()
            os.replace(src + ".part", src)
        run = subprocess.run([scenes.BLAZEFACE, "redact", src, dst, "--mode", "solid", *args.redact], capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(run.stderr)
        luma = scenes.read_y4m_luma(dst)
        out.append(float(np.mean([(y < MASKED_LUMA).mean() for y in luma])))
        print(f"face-free clip {v} (seed {seed}, {videos.FACE_FREE_PHOTOS[seed % len(videos.FACE_FREE_PHOTOS)]}"
              f"{', a hand' if seed % 2 else ''}): masked {out[-1]:.4f}; {run.stderr.strip().splitlines()[-1]}", flush=True)
    return out


if __name__ == "__main__":
    sys.exit(main())
