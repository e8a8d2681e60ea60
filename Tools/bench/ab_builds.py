#!/usr/bin/env python3
"""Two builds of blazeface side by side on one machine: `bench` (short and full range, 1 and 2
threads), `bench-analyze` and `redact` of a video, the builds in random order each round; prints
the median over the rounds of each per-round ratio NEW / OLD (the way Docs/performance.md's
"One pool" figures were made; a noisy machine needs 15 rounds or more).

usage: Tools/bench/ab_builds.py OLD_BLAZEFACE NEW_BLAZEFACE [--rounds 21] [--video CLIP.mp4]
"""
import argparse, json, os, random, statistics, subprocess, tempfile, time

repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
photo = os.path.join(repo, "Tests/Fixtures/images/two_faces_1280x853.png")
ap = argparse.ArgumentParser()
ap.add_argument("old"); ap.add_argument("new")
ap.add_argument("--rounds", type=int, default=21)
ap.add_argument("--video", help="a clip to redact to MP4 each round (wall time)")
args = ap.parse_args()

def bench(binary, extra):
    return json.loads(subprocess.check_output([binary] + extra + ["--json", "--image", photo], cwd=repo))

def redact(binary):
    out = os.path.join(tempfile.mkdtemp(), "out.mp4")
    start = time.perf_counter()
    subprocess.check_call([binary, "redact", args.video, out, "--no-progress"], stderr=subprocess.DEVNULL)
    return time.perf_counter() - start

ratios = {}
def add(name, old, new): ratios.setdefault(name, []).append(new / old)
random.seed(1)
for r in range(args.rounds):
    for model in ["short", "full"]:
        for threads in ["1", "2"]:
            order = [args.old, args.new]; random.shuffle(order)
            out = {b: bench(b, ["bench", "--model", model, "--threads", threads, "--iterations", "150"]) for b in order}
            for stage in ["inference", "detect"]:
                add(f"bench {model} --threads {threads} {stage}", out[args.old][stage]["median_us"], out[args.new][stage]["median_us"])
    order = [args.old, args.new]; random.shuffle(order)
    out = {b: bench(b, ["bench-analyze", "--iterations", "60"]) for b in order}
    add("bench-analyze", out[args.old]["analyze"]["median_us"], out[args.new]["analyze"]["median_us"])
    if args.video:
        order = [args.old, args.new]; random.shuffle(order)
        out = {b: redact(b) for b in order}
        add("redact video (wall)", out[args.old], out[args.new])
    print(f"round {r + 1} of {args.rounds} done", flush=True)
for name, values in ratios.items():
    print(f"{name}: median NEW/OLD {statistics.median(values):.3f} over {len(values)} rounds")
