#!/usr/bin/env python3
"""Speed of `blazeface redact` against deface 1.5.0, end to end on the same file: both read the
same 1280x720 H.264 MP4 (a synthetic clip with moving faces, videos.py, with an AAC track),
decode it, find and mask the faces, and write an H.264 MP4 (deface with its defaults: CenterFace
at full resolution on ONNX Runtime's CPU provider, imageio's ffmpeg to read and write). Rounds
are interleaved; the medians of frames per second and of the per-round ratio are printed.

It also prints the CPU time (user + system) a frame of `blazeface redact` beside that of a plain
`ffmpeg` decode and encode of the same file with redact's default encoder settings (x264
superfast, CRF 23, audio copied): what the search and the masks cost over the codec.

It also prints how close each output is to the input outside the masks: the luma PSNR over the
pixels that neither tool masked (our masks are where a lossless Y4M redaction of the same file
differs from the input; deface's where its output differs from the input by more than 24).

    /tmp/venv-redaction/bin/python Tools/redaction/speed_vs_deface.py [--frames 150] [--rounds 3] [--seed 7] [--input CLIP.mp4] [-- REDACT-OPTIONS]

`--y4m` times our redaction of the clip as Y4M in and out instead (no decoding or encoding).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenes  # noqa: E402
import videos  # noqa: E402


def timed(cmd):
    """Wall-clock seconds of `cmd`."""
    return timed_cpu(cmd)[0]


def timed_cpu(cmd):
    """Wall-clock and CPU (user + system) seconds of `cmd` and its children."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise subprocess.CalledProcessError(os.waitstatus_to_exitcode(status), cmd)
    return wall, usage.ru_utime + usage.ru_stime


def luma_frames(ffmpeg, path, folder):
    """The luma planes of every frame of `path`, decoded by ffmpeg."""
    y4m = os.path.join(folder, os.path.basename(path) + ".decoded.y4m")
    subprocess.run([ffmpeg, "-loglevel", "error", "-y", "-i", path, "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", y4m], check=True)
    frames = scenes.read_y4m_luma(y4m)
    os.remove(y4m)
    return frames


def psnr(a, b, keep):
    err = (a.astype(np.float64) - b.astype(np.float64))[keep]
    mse = float(np.mean(err * err)) if err.size else 0.0
    return 99.0 if mse == 0 else 10 * np.log10(255 * 255 / mse)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--y4m", action="store_true", help="time our Y4M-to-Y4M redaction instead of MP4 to MP4")
    ap.add_argument("--folder", help="where to write the clips (default: a temporary folder)")
    ap.add_argument("--input", help="an MP4 of your own (a camera clip) instead of the synthetic one; --frames is then read from it")
    ap.add_argument("redact_options", nargs="*", help="after --: options for blazeface redact")
    args = ap.parse_args()
    folder = args.folder or tempfile.mkdtemp()
    os.makedirs(folder, exist_ok=True)
    y4m, mp4 = os.path.join(folder, "clip.y4m"), os.path.join(folder, "clip.mp4")
    import imageio_ffmpeg
    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    if args.input:
        mp4 = os.path.abspath(args.input)
        subprocess.run([ffmpeg, "-loglevel", "error", "-y", "-i", mp4, "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", y4m], check=True)
        args.frames = len(scenes.read_y4m_luma(y4m))
    else:
        writer = scenes.Y4MWriter(y4m, 1280, 720, fps=25)
        for rgb, _ in videos.scene(args.seed, frames=args.frames):
            writer.write(rgb)
        writer.close()
        subprocess.run([ffmpeg, "-loglevel", "error", "-y", "-i", y4m, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                        "-map", "0:v", "-map", "1:a", "-shortest", "-c:v", "libx264", "-crf", "16", "-pix_fmt", "yuv420p",
                        "-c:a", "aac", mp4], check=True)
    deface = os.path.join(os.path.dirname(sys.executable), "deface")
    ours_in, ours_out = (y4m, os.path.join(folder, "ours.y4m")) if args.y4m else (mp4, os.path.join(folder, "ours.mp4"))
    theirs_out = os.path.join(folder, "deface.mp4")
    ours, theirs, ours_cpu, plain_cpu = [], [], [], []
    # A plain decode and encode of the same file, with redact's default encoder settings (x264
    # superfast, CRF 23, audio copied): the floor under redact's CPU time.
    plain_out = os.path.join(folder, "plain.mp4")
    plain = [ffmpeg, "-loglevel", "error", "-y", "-i", mp4, "-map", "0:v:0", "-map", "0:a?", "-c:v", "libx264", "-preset", "superfast",
             "-crf", "23", "-pix_fmt", "yuv420p", "-c:a", "copy", plain_out]
    for r in range(args.rounds):
        a, a_cpu = timed_cpu([scenes.BLAZEFACE, "redact", ours_in, ours_out, "--no-progress", *args.redact_options])
        b = timed([deface, mp4, "-o", theirs_out, "--ep", "CPUExecutionProvider"])
        if not args.y4m:
            plain_cpu.append(timed_cpu(plain)[1] / args.frames)
        ours.append(args.frames / a)
        theirs.append(args.frames / b)
        ours_cpu.append(a_cpu / args.frames)
        print(f"round {r + 1}: blazeface redact {ours[-1]:.1f} frames/s ({1000 * ours_cpu[-1]:.1f} ms CPU a frame), "
              f"deface {theirs[-1]:.2f} frames/s, ratio {ours[-1] / theirs[-1]:.1f}"
              + (f"; ffmpeg decode + encode {1000 * plain_cpu[-1]:.1f} ms CPU a frame" if plain_cpu else ""), flush=True)
    ratios = [o / t for o, t in zip(ours, theirs)]
    kind = "Y4M to Y4M" if args.y4m else "MP4 to MP4 (decode, detect, mask, encode)"
    print(f"\n1280x720, {args.frames} frames, {kind}, {args.rounds} interleaved rounds: blazeface redact "
          f"{statistics.median(ours):.1f} frames/s, deface 1.5.0 {statistics.median(theirs):.2f} frames/s; "
          f"median ratio {statistics.median(ratios):.1f}x; CPU a frame: blazeface redact {1000 * statistics.median(ours_cpu):.1f} ms"
          + (f", plain ffmpeg decode + encode {1000 * statistics.median(plain_cpu):.1f} ms" if plain_cpu else ""))
    if args.y4m:
        return 0
    # Fidelity outside the masks.
    reference = os.path.join(folder, "mask-reference.y4m")
    subprocess.run([scenes.BLAZEFACE, "redact", mp4, reference, "--no-progress", *args.redact_options], check=True,
                   stderr=subprocess.DEVNULL)
    source, masked = luma_frames(ffmpeg, mp4, folder), scenes.read_y4m_luma(reference)
    out_ours, out_theirs = luma_frames(ffmpeg, ours_out, folder), luma_frames(ffmpeg, theirs_out, folder)
    counts = (len(source), len(out_ours), len(out_theirs))
    print(f"frames: input {counts[0]}, blazeface {counts[1]}, deface {counts[2]}")
    ours_db, theirs_db, area = [], [], []
    for s, m, o, t in zip(source, masked, out_ours, out_theirs):
        keep = (m == s) & (np.abs(t.astype(np.int16) - s.astype(np.int16)) <= 24)
        area.append(1 - float(np.mean(m == s)))
        ours_db.append(psnr(o, s, keep))
        theirs_db.append(psnr(t, s, keep))
    print(f"luma PSNR outside the masks (median over frames): blazeface {statistics.median(ours_db):.1f} dB, "
          f"deface {statistics.median(theirs_db):.1f} dB; our masks cover {100 * statistics.mean(area):.1f}% of the picture")
    sizes = [os.path.getsize(p) for p in (mp4, ours_out, theirs_out)]
    print(f"bytes: input {sizes[0]}, blazeface {sizes[1]}, deface {sizes[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
