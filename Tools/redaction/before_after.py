#!/usr/bin/env python3
"""The README's before/after picture: a 1280x720 frame of a synthetic scene (videos.py, fixture
faces 30 to 160 pixels wide) and the same through `blazeface redact` (its defaults), side by
side, each half scaled to 640x360.

    /tmp/redact-env/bin/python Tools/redaction/before_after.py Docs/redact-before-after.png [--seed 2001] [--frame 30]
"""
import argparse
import os
import subprocess
import sys
import tempfile

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenes  # noqa: E402
import videos  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output")
    ap.add_argument("--seed", type=int, default=2001)
    ap.add_argument("--frame", type=int, default=30)
    args = ap.parse_args()
    for i, (rgb, _) in enumerate(videos.scene(args.seed, frames=args.frame + 1)):
        if i == args.frame:
            before = Image.fromarray(rgb)
    folder = tempfile.mkdtemp()
    src, dst = os.path.join(folder, "before.png"), os.path.join(folder, "after.png")
    before.save(src)
    subprocess.run([scenes.BLAZEFACE, "redact", src, dst], check=True)
    after = Image.open(dst)
    out = Image.new("RGB", (1288, 360), (255, 255, 255))
    out.paste(before.resize((640, 360), Image.LANCZOS), (0, 0))
    out.paste(after.resize((640, 360), Image.LANCZOS), (648, 0))
    out.save(args.output, optimize=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
