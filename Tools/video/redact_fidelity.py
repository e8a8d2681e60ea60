#!/usr/bin/env python3
"""What `blazeface redact` makes of real clips with its default encoder (issue 41, "outputs
people keep"): for each clip, the output's video stream size over the input's, and the PSNR of
the output against the decoded input outside the masks (luma, and all planes), frame by frame
by index (no frame dropped or repeated: decoded with -fps_mode passthrough).

The masks are found exactly by redacting the clip a second time to Y4M, where every pixel the
redaction did not touch equals the decoded input's.

    python3 Tools/video/redact_fidelity.py BLAZEFACE CLIP... [-- REDACT OPTIONS]

Prints a Markdown table (Docs/video-files.md). Needs numpy and the ffmpeg command.
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def video_bytes(path):
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size", "-of", "csv=p=0", path],
                       capture_output=True, text=True, check=True)
    return sum(int(x) for x in r.stdout.split() if x.strip().isdigit())


def planes(path, folder):
    """Every frame's Y, U and V planes (4:2:0), decoded in order, none dropped or repeated."""
    y4m = path
    if not path.endswith(".y4m"):
        y4m = os.path.join(folder, os.path.basename(path) + ".decoded.y4m")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-pix_fmt", "yuv420p",
                        "-f", "yuv4mpegpipe", y4m], check=True)
    data = open(y4m, "rb").read()
    header, rest = data.split(b"\n", 1)
    fields = {f[:1]: f[1:] for f in header.split(b" ")[1:]}
    w, h = int(fields[b"W"]), int(fields[b"H"])
    cw, ch = (w + 1) // 2, (h + 1) // 2
    frames, i = [], 0
    while i < len(rest):
        i = rest.index(b"\n", i) + 1
        y = np.frombuffer(rest, np.uint8, w * h, i).reshape(h, w)
        u = np.frombuffer(rest, np.uint8, cw * ch, i + w * h).reshape(ch, cw)
        v = np.frombuffer(rest, np.uint8, cw * ch, i + w * h + cw * ch).reshape(ch, cw)
        frames.append((y, u, v))
        i += w * h + 2 * cw * ch
    if y4m != path:
        os.remove(y4m)
    return w, h, frames


def main():
    args = sys.argv[1:]
    options = args[args.index("--") + 1:] if "--" in args else []
    args = args[:args.index("--")] if "--" in args else args
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool, clips = os.path.abspath(args[0]), args[1:]
    print("| clip | input | output / input | luma PSNR outside the masks (all frames; worst frame) | all planes | masked | redact time |")
    print("|---|---|---:|---|---:|---:|---:|")
    for clip in clips:
        with tempfile.TemporaryDirectory() as folder:
            out, ref = os.path.join(folder, "out.mp4"), os.path.join(folder, "ref.y4m")
            start = time.perf_counter()
            subprocess.run([tool, "redact", clip, out, "--no-progress", *options], check=True, stderr=subprocess.DEVNULL)
            seconds = time.perf_counter() - start
            subprocess.run([tool, "redact", clip, ref, "--no-progress", *options], check=True, stderr=subprocess.DEVNULL)
            w, h, src = planes(clip, folder)
            _, _, masked = planes(ref, folder)
            _, _, got = planes(out, folder)
            if not (len(src) == len(masked) == len(got)):
                print(f"| {os.path.basename(clip)} | frames: input {len(src)}, reference {len(masked)}, output {len(got)} | | | | | |")
                continue
            luma_se = luma_n = all_se = all_n = 0.0
            worst, area = 99.0, []
            for s, m, o in zip(src, masked, got):
                keep = m[0] == s[0]
                area.append(1 - float(keep.mean()))
                d = (o[0].astype(np.float64) - s[0])[keep]
                se = float((d * d).sum())
                luma_se, luma_n = luma_se + se, luma_n + d.size
                frame_mse = se / max(1, d.size)
                worst = min(worst, 99.0 if frame_mse == 0 else 10 * np.log10(255 * 255 / frame_mse))
                all_se, all_n = all_se + se, all_n + d.size
                for k in (1, 2):
                    keep_c = m[k] == s[k]
                    dc = (o[k].astype(np.float64) - s[k])[keep_c]
                    all_se, all_n = all_se + float((dc * dc).sum()), all_n + dc.size
            db = lambda se, n: 99.0 if se == 0 else 10 * np.log10(255 * 255 / (se / n))
            rate = video_bytes(clip) * 8 / 1e6
            r = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", clip], capture_output=True, text=True)
            duration = float(r.stdout.strip() or 1)
            print(f"| {os.path.basename(clip)} | {w}x{h}, {rate / duration:.1f} Mb/s, {len(src)} frames | "
                  f"{video_bytes(out) / video_bytes(clip):.2f}x | {db(luma_se, luma_n):.1f} dB; {worst:.1f} dB | {db(all_se, all_n):.1f} dB | "
                  f"{100 * np.mean(area):.1f}% | {seconds:.1f} s |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
