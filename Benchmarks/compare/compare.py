#!/usr/bin/env python3
"""Side-by-side timing: this project's `blazeface bench` against TensorFlow Lite + XNNPACK
(ai-edge-litert, the same .tflite, the same thread count) and MediaPipe's face detection
(Tasks FaceDetector for the short-range model; the legacy solution for the full-range one,
which the Tasks graph cannot run).

Machines here are shared and noisy, so the three are interleaved: each round runs a batch of
each, A B C A B C ..., and the report gives medians over all rounds and the ratios of those
medians, measured in one run. Inference is input tensor to raw outputs; detect is a decoded
1280x853 RGB photo to detections.

  .venv-bench/bin/python Benchmarks/compare/compare.py --cli .build-haswell/release/blazeface
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
from PIL import Image

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PHOTO = os.path.join(REPO, "Tests", "Fixtures", "images", "two_faces_1280x853.png")
MODELS = {"short": "face_detection_short_range.tflite", "full": "face_detection_full_range_sparse.tflite"}


def model_path(name):
    import mediapipe
    return os.path.join(os.path.dirname(mediapipe.__file__), "modules", "face_detection", MODELS[name])


def time_calls(fn, n):
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1e6)
    return samples


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="the blazeface executable (a release build)")
    ap.add_argument("--model", default="short", choices=sorted(MODELS))
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--iterations", type=int, default=100, help="calls per batch")
    ap.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = ap.parse_args()

    from ai_edge_litert.interpreter import Interpreter
    import mediapipe as mp
    from mediapipe.tasks.python import vision
    from mediapipe.tasks.python.core.base_options import BaseOptions

    path = model_path(args.model)
    rgb = np.asarray(Image.open(PHOTO).convert("RGB"))
    if args.model == "short":
        # MediaPipe Tasks' FaceDetector (its graph hard-codes the short-range anchors).
        mp_image = mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb)
        detector = vision.FaceDetector.create_from_options(
            vision.FaceDetectorOptions(base_options=BaseOptions(model_asset_path=path)))
        mediapipe_detect = lambda: detector.detect(mp_image)
    else:
        # The full-range model runs only in the legacy solution (model_selection=1).
        legacy = mp.solutions.face_detection.FaceDetection(model_selection=1, min_detection_confidence=0.5)
        mediapipe_detect = lambda: legacy.process(rgb)
    mediapipe_detect()

    results = []
    for threads in args.threads:
        interp = Interpreter(model_path=path, num_threads=threads)
        interp.allocate_tensors()
        inp = interp.get_input_details()[0]
        interp.set_tensor(inp["index"], np.random.RandomState(0).uniform(-1, 1, inp["shape"]).astype(np.float32))
        for _ in range(20):
            interp.invoke()
        swift_inf, swift_det, tfl, mpd = [], [], [], []
        for _ in range(args.rounds):
            out = subprocess.run([args.cli, "bench", "--model", args.model, "--threads", str(threads),
                                  "--iterations", str(args.iterations), "--json"],
                                 check=True, capture_output=True, text=True).stdout
            s = json.loads(out)
            swift_inf.append(s["inference"]["median_us"])
            swift_det.append(s["detect"]["median_us"])
            tfl.append(statistics.median(time_calls(interp.invoke, args.iterations)))
            if threads == args.threads[0]:
                mpd.append(statistics.median(time_calls(mediapipe_detect, max(10, args.iterations // 4))))
        r = {
            "model": args.model, "threads": threads, "rounds": args.rounds, "iterations": args.iterations,
            "swift_inference_us": statistics.median(swift_inf), "tflite_inference_us": statistics.median(tfl),
            "swift_detect_us": statistics.median(swift_det),
        }
        r["inference_ratio"] = r["swift_inference_us"] / r["tflite_inference_us"]
        r["inference_ratio_per_round_median"] = statistics.median(a / b for a, b in zip(swift_inf, tfl))
        if mpd:
            r["mediapipe_detect_us"] = statistics.median(mpd)
            r["detect_ratio"] = r["swift_detect_us"] / r["mediapipe_detect_us"]
        results.append(r)

    report = {"cpu": cpu_name(), "cli": args.cli, "results": results}
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"CPU: {report['cpu']}; {args.rounds} interleaved rounds of {args.iterations} calls; medians in microseconds")
    print(f"{'model':6} {'thr':>3} {'Swift inf':>10} {'TFLite inf':>10} {'ratio':>6} {'Swift detect':>12} {'MediaPipe detect':>16} {'ratio':>6}")
    for r in results:
        mpd = f"{r['mediapipe_detect_us']:16.1f} {r['detect_ratio']:6.3f}" if "detect_ratio" in r else f"{'':16} {'':6}"
        print(f"{r['model']:6} {r['threads']:3d} {r['swift_inference_us']:10.1f} {r['tflite_inference_us']:10.1f} "
              f"{r['inference_ratio']:6.3f} {r['swift_detect_us']:12.1f} {mpd}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
