#!/usr/bin/env python3
"""Interleaved speed comparison of two `blazeface` builds on `redact` of one Y4M clip (Y4M in and
out: no codec time): A, B, A, B... for --rounds rounds; prints each run's wall and CPU seconds,
the medians, and B's median over A's.

    /tmp/redact-env/bin/python Tools/redaction/ab_speed.py A_BINARY B_BINARY CLIP.y4m [--rounds 5] [-- REDACT OPTIONS]
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def run(binary, clip, out, extra):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([binary, "redact", clip, out, *extra], check=True, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("clip")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("redact", nargs="*")
    args = ap.parse_args()
    out = os.path.join(tempfile.mkdtemp(), "out.y4m")
    times = {"A": [], "B": []}
    for r in range(args.rounds):
        for name, binary in (("A", args.a), ("B", args.b)) if r % 2 == 0 else (("B", args.b), ("A", args.a)):
            wall, cpu = run(binary, args.clip, out, args.redact)
            times[name].append((wall, cpu))
            print(f"round {r} {name}: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
    os.remove(out)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in times.items()}
    for k in "AB":
        print(f"{k}: median {med[k][0]:.2f} s wall, {med[k][1]:.2f} s CPU")
    print(f"B/A: {med['B'][0] / med['A'][0]:.3f} wall, {med['B'][1] / med['A'][1]:.3f} CPU")


if __name__ == "__main__":
    sys.exit(main())
