#!/usr/bin/env python3
"""What each x264 setting makes of real clips (issue 41, "outputs people keep"): for every clip
and setting, the output's video stream size over the input's, the PSNR of the output against
the decoded input (all planes, FFmpeg's psnr filter: what redact's output has outside its
masks, which it does not touch), and the encoder's CPU seconds a frame. Transcodes with the
`ffmpeg` command and libx264, the encoder `blazeface redact` links, with the same options.

    python3 Tools/video/encoder_table.py CLIP... [--settings ultrafast:18,veryfast:23]

Prints a Markdown table (Docs/video-files.md, "Encoder defaults").
"""
import argparse, os, pathlib, re, resource, subprocess, sys, tempfile


def video_bytes(path):
    """Bytes of the first video stream's packets."""
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size", "-of", "csv=p=0", str(path)],
                       capture_output=True, text=True, check=True)
    return sum(int(x) for x in r.stdout.split() if x.strip().isdigit())


def frame_count(path):
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets",
                        "-of", "csv=p=0", str(path)], capture_output=True, text=True, check=True)
    return int(r.stdout.strip().strip(","))


def encode(src, dst, preset, crf, maxrate=None):
    args = ["ffmpeg", "-v", "error", "-y", "-i", str(src), "-map", "0:v:0", "-c:v", "libx264", "-preset", preset, "-crf", str(crf)]
    if maxrate:
        args += ["-maxrate", str(maxrate), "-bufsize", str(2 * maxrate)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args + ["-pix_fmt", "yuv420p", str(dst)], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def psnr(out, src):
    r = subprocess.run(["ffmpeg", "-v", "info", "-i", str(out), "-i", str(src), "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"],
                       capture_output=True, text=True)
    m = re.search(r"PSNR .* average:([0-9.inf]+)", r.stderr)
    return float(m.group(1)) if m else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("clips", nargs="+")
    p.add_argument("--settings", default="ultrafast:18,ultrafast:23,superfast:23,veryfast:23,veryfast:21",
                   help="preset:crf[:maxrate-factor] comma-separated; a maxrate factor caps the bitrate at that many times the input's")
    args = p.parse_args()
    settings = [s.split(":") for s in args.settings.split(",")]
    work = pathlib.Path(tempfile.mkdtemp(prefix="encoder-table-"))
    print("| clip | input | " + " | ".join(":".join(s) for s in settings) + " |")
    print("|---|---|" + "---|" * len(settings))
    for clip in args.clips:
        clip = pathlib.Path(clip)
        size_in, frames = video_bytes(clip), frame_count(clip)
        r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,codec_name,duration",
                            "-of", "csv=p=0", str(clip)], capture_output=True, text=True)
        codec, w, h = (r.stdout.strip().split(",") + ["", "", ""])[:3]
        duration = max(frames, 1) / 25.0
        try:
            duration = float(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(clip)],
                                            capture_output=True, text=True).stdout.strip())
        except ValueError:
            pass
        cells = []
        for s in settings:
            preset, crf = s[0], int(s[1])
            maxrate = int(float(s[2]) * size_in * 8 / duration) if len(s) > 2 else None
            out = work / f"{clip.stem}-{preset}-{crf}.mp4"
            cpu = encode(clip, out, preset, crf, maxrate)
            cells.append(f"{video_bytes(out) / size_in:.2f}x, {psnr(out, clip):.1f} dB, {1000 * cpu / frames:.1f} ms")
            out.unlink()
        print(f"| {clip.name} | {w}x{h} {codec.split(',')[0] if codec else ''}, {size_in * 8 / duration / 1e6:.1f} Mb/s | " + " | ".join(cells) + " |", flush=True)
    work.rmdir()


if __name__ == "__main__":
    main()
