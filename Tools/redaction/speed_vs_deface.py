#!/usr/bin/env python3
"""Speed of `blazeface redact` (its defaults) against deface 1.5.0 (its defaults: CenterFace at
full resolution on ONNX Runtime's CPU provider, the video read and written by imageio's ffmpeg)
on the same synthetic 1280x720 clip with moving faces (videos.py), as Y4M for blazeface and as
an H.264 mp4 (crf 16) for deface. Interleaved rounds; medians of frames per second and of the
per-round ratio.

    /tmp/redact-env/bin/python Tools/redaction/speed_vs_deface.py [--frames 150] [--rounds 3] [--seed 7]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenes  # noqa: E402
import videos  # noqa: E402


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--folder", help="where to write the clips (default: a temporary folder)")
    args = ap.parse_args()
    folder = args.folder or tempfile.mkdtemp()
    os.makedirs(folder, exist_ok=True)
    y4m, mp4 = os.path.join(folder, "clip.y4m"), os.path.join(folder, "clip.mp4")
    writer = scenes.Y4MWriter(y4m, 1280, 720)
    for rgb, _ in videos.scene(args.seed, frames=args.frames):
        writer.write(rgb)
    writer.close()
    import imageio_ffmpeg
    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    subprocess.run([ffmpeg, "-loglevel", "error", "-y", "-i", y4m, "-c:v", "libx264", "-crf", "16", "-pix_fmt", "yuv420p", mp4], check=True)
    deface = os.path.join(os.path.dirname(sys.executable), "deface")
    ours, theirs = [], []
    for r in range(args.rounds):
        a = timed([scenes.BLAZEFACE, "redact", y4m, os.path.join(folder, "out.y4m")])
        b = timed([deface, mp4, "-o", os.path.join(folder, "out.mp4"), "--ep", "CPUExecutionProvider"])
        ours.append(args.frames / a)
        theirs.append(args.frames / b)
        print(f"round {r + 1}: blazeface redact {ours[-1]:.1f} frames/s, deface {theirs[-1]:.2f} frames/s, "
              f"ratio {ours[-1] / theirs[-1]:.1f}", flush=True)
    ratios = [o / t for o, t in zip(ours, theirs)]
    print(f"\n1280x720, {args.frames} frames, {args.rounds} interleaved rounds: blazeface redact "
          f"{statistics.median(ours):.1f} frames/s, deface 1.5.0 {statistics.median(theirs):.2f} frames/s; "
          f"median ratio {statistics.median(ratios):.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
