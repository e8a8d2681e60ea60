#!/usr/bin/env python3
"""A seeded mutation run of `blazeface redact` over every input format it takes (issue 40):
seeds made here from the fixtures (PNG, JPEG, HEIC, AVIF, WebP, TIFF (LZW), BMP, and a 16-frame clip with audio in MP4,
MKV and WebM, and as Y4M), each mutated COUNT times from a fixed seed (bytes flipped,
overwritten, cut out, repeated or inserted, the file cut short), each mutant redacted by the
built tool under a time limit, and the outcome checked from the outside:

- no crash (a signal) and no hang (the time limit);
- exit 0 only with an output that decodes: a photo to the input's size, a video to as many
  frames as FFmpeg decodes from the mutant (and at least one);
- any other exit leaves nothing at the output path and no temporary file beside it.

    python3 Tools/fuzz/mutants.py .build/release/blazeface [--count 200] [--seed 1] [--formats png,mp4]

Prints a line per format and a total; exits 1 if any mutant broke a rule (each one named, its
file kept in the work folder, --keep). Needs ffmpeg, ffprobe and heif-enc (Tools/install-deps.sh).
Figures: Docs/hostile-input.md ("Mutation run"). CI runs `--count 5`.
"""
import argparse, collections, pathlib, random, shutil, subprocess, sys, tempfile, time

ROOT = pathlib.Path(__file__).resolve().parents[2]
PHOTO = ROOT / "Tests" / "Fixtures" / "images" / "two_faces_1280x853.png"
FORMATS = ["png", "jpeg", "heic", "avif", "webp", "tiff", "bmp", "mp4", "mkv", "webm", "y4m"]
EXT = {"png": "png", "jpeg": "jpg", "heic": "heic", "avif": "avif", "webp": "webp", "tiff": "tif", "bmp": "bmp", "mp4": "mp4", "mkv": "mkv", "webm": "webm", "y4m": "y4m"}
OUT_EXT = {"png": "png", "jpeg": "jpg", "heic": "jpg", "avif": "jpg", "webp": "jpg", "tiff": "jpg", "bmp": "jpg", "mp4": "mp4", "mkv": "mkv", "webm": "webm", "y4m": "y4m"}


def run(args, timeout=None):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)


def make_seeds(folder):
    """The unmutated inputs: small, so that a run of hundreds takes minutes."""
    seeds = {}
    small = folder / "small.png"
    run(["ffmpeg", "-v", "error", "-y", "-i", str(PHOTO), "-vf", "scale=320:-2", str(small)]).check_returncode()
    seeds["png"] = small
    seeds["jpeg"] = folder / "seed.jpg"
    run(["ffmpeg", "-v", "error", "-y", "-i", str(small), "-q:v", "3", str(seeds["jpeg"])]).check_returncode()
    seeds["heic"] = folder / "seed.heic"
    run(["heif-enc", "-q", "60", "-o", str(seeds["heic"]), str(small)]).check_returncode()
    seeds["avif"] = folder / "seed.avif"
    run(["heif-enc", "-A", "-q", "60", "-o", str(seeds["avif"]), str(small)]).check_returncode()
    seeds["webp"] = folder / "seed.webp"
    run(["ffmpeg", "-v", "error", "-y", "-i", str(small), "-c:v", "libwebp", "-quality", "75", str(seeds["webp"])]).check_returncode()
    seeds["tiff"] = folder / "seed.tif"
    run(["ffmpeg", "-v", "error", "-y", "-i", str(small), "-compression_algo", "lzw", str(seeds["tiff"])]).check_returncode()
    seeds["bmp"] = folder / "seed.bmp"
    run(["ffmpeg", "-v", "error", "-y", "-i", str(small), str(seeds["bmp"])]).check_returncode()
    clip = ["-loop", "1", "-framerate", "25", "-i", str(PHOTO), "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-vf", "scale=320:-2,crop=320:180:0:'min(n,33)'", "-frames:v", "16", "-shortest", "-pix_fmt", "yuv420p"]
    codecs = {"mp4": ["-c:v", "libx264", "-g", "4", "-c:a", "aac"],
              "mkv": ["-c:v", "libx264", "-g", "4", "-c:a", "aac"],
              "webm": ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "4", "-c:a", "libopus"]}
    for f, c in codecs.items():
        seeds[f] = folder / f"seed.{f}"
        run(["ffmpeg", "-v", "error", "-y", *clip, *c, str(seeds[f])]).check_returncode()
    seeds["y4m"] = folder / "seed.y4m"
    run(["ffmpeg", "-v", "error", "-y", "-i", str(seeds["mp4"]), "-f", "yuv4mpegpipe", str(seeds["y4m"])]).check_returncode()
    return seeds


def mutate(data, rng):
    """One to three edits; the first 16 bytes (the format's signature) are hit one time in ten."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        lo = 0 if rng.random() < 0.1 else min(16, len(data) - 1)
        at = rng.randrange(lo, len(data))
        kind = rng.choice(["flip", "overwrite", "cut", "repeat", "insert", "truncate", "int"])
        if kind == "flip":
            data[at] ^= 1 << rng.randrange(8)
        elif kind == "overwrite":
            n = min(rng.randint(1, 64), len(data) - at)
            data[at:at + n] = bytes(rng.randrange(256) for _ in range(n))
        elif kind == "cut":
            del data[at:at + rng.randint(1, 4096)]
        elif kind == "repeat":
            data[at:at] = data[at:at + rng.randint(1, 4096)]
        elif kind == "insert":
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 256)))
        elif kind == "truncate":
            del data[at:]
        else:   # a length or size field made large, zero or negative
            value = rng.choice([0, 1, 0x7FFFFFFF, 0xFFFFFFFF, 0x10000, rng.randrange(1 << 32)])
            data[at:at + 4] = value.to_bytes(4, "big")
        if len(data) < 32:
            break
    return bytes(data)


def decoded_frames(path):
    """Frames FFmpeg decodes from the video stream (None when it cannot open the file)."""
    try:
        r = run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                 "stream=nb_read_frames", "-of", "csv=p=0", str(path)], timeout=120)
    except subprocess.TimeoutExpired:
        return None
    text = r.stdout.decode().strip().split("\n")[0].strip().strip(",")
    return int(text) if r.returncode == 0 and text.isdigit() else None


def picture_size(path):
    r = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
             "-of", "csv=p=0", str(path)])
    parts = r.stdout.decode().strip().split(",")
    return (int(parts[0]), int(parts[1])) if r.returncode == 0 and len(parts) == 2 and all(p.isdigit() for p in parts) else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--count", type=int, default=200, help="mutants per format (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--timeout", type=float, default=120, help="seconds a run may take before it counts as a hang")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    binary = str(pathlib.Path(args.binary).resolve())
    work = pathlib.Path(tempfile.mkdtemp(prefix="blazeface-mutants-"))
    seeds = make_seeds(work)
    broken = []
    total = collections.Counter()
    start = time.time()
    for fmt in args.formats.split(","):
        rng = random.Random(f"{args.seed}-{fmt}")
        original = seeds[fmt].read_bytes()
        outcome = collections.Counter()
        for i in range(args.count):
            mutant = work / f"{fmt}-{i}.{EXT[fmt]}"
            mutant.write_bytes(mutate(original, rng))
            out_dir = work / f"out-{fmt}-{i}"
            out_dir.mkdir()
            target = out_dir / f"redacted.{OUT_EXT[fmt]}"
            try:
                r = run([binary, "redact", str(mutant), str(target), "--no-progress"], timeout=args.timeout)
                status = r.returncode
            except subprocess.TimeoutExpired:
                status = "hang"
            problem = None
            if status == "hang":
                problem = f"no answer in {args.timeout:.0f} s"
            elif status < 0 or status > 128:
                problem = f"killed by signal {-status if status < 0 else status - 128}"
            elif status == 0:
                if fmt in ("png", "jpeg", "heic", "avif", "webp", "tiff", "bmp"):
                    size = picture_size(target)
                    if size is None:
                        problem = "exit 0, but the output does not open"
                else:
                    expected, written = decoded_frames(mutant), decoded_frames(target)
                    if not written:
                        problem = f"exit 0, but the output has {written} frames"
                    elif expected is not None and written != expected:
                        problem = f"exit 0 with {written} frames, FFmpeg decodes {expected} from the input"
            else:
                left = [p.name for p in out_dir.iterdir()]
                if left:
                    problem = f"exit {status}, yet left {left}"
            outcome["exit 0" if status == 0 else "hang" if status == "hang" else f"exit {status}"] += 1
            if problem:
                broken.append(f"{mutant.name}: {problem}")
                outcome["broken"] += 1
            else:
                mutant.unlink()
                shutil.rmtree(out_dir)
        total.update(outcome)
        summary = ", ".join(f"{k} {v}" for k, v in sorted(outcome.items()))
        print(f"{fmt:5} {args.count} mutants: {summary}", flush=True)
    print(f"all   {sum(v for k, v in total.items() if k != 'broken')} runs in {time.time() - start:.0f} s, "
          f"{total['broken']} broke a rule")
    for line in broken:
        print("  " + line)
    if args.keep or broken:
        print(f"work folder: {work}")
    else:
        shutil.rmtree(work)
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
